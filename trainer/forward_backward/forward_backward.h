// Forward-backward (Baum-Welch E-step) over one utterance's sentence HMM, following SphinxTrain's
// bw: scaled alphas with a relative beam, densities scaled per frame by (max log density - 10),
// beta pruning relative to the final alpha, the same per-frame sanity checks, and posterior-weighted
// statistics for mixture weights, Gaussians (1- or 2-pass variance) and transitions.
//
// The pieces, one file each:
//   density_kernel.*       the log densities of a senone at a frame (the replaceable kernel; its
//                          arithmetic is the active instruction-set level's, numerics/)
//   frame_densities.*      the forward pass's per-frame density cache, read again backwards
//   arc_table.*            the HMM's arcs, both ways, flattened for the passes
//   alpha_pass.cpp         ForwardBackward::AlphaPass
//   beta_pass.cpp          ForwardBackward::BetaPass and its pruning
//   statistics_gatherer.*  posteriors -> statistics, into the sink utterance_stats.*
// All statistics are accumulated in double into an UtteranceStats, which the caller adds to the
// global accumulators only when the utterance succeeded.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/uninitialized_vector.h"
#include "features/features.h"
#include "forward_backward/arc_table.h"
#include "forward_backward/density_kernel.h"
#include "forward_backward/frame_densities.h"
#include "forward_backward/statistics_gatherer.h"
#include "forward_backward/utterance_stats.h"
#include "graph/sentence_hmm.h"
#include "model/acoustic_model.h"
#include "numerics/vector_kernels.h"

namespace pstrain {

// The defaults are what SphinxTrain's scripts pass to bw, and pstrain's command-line defaults;
// bw's own built-in beams are 1e-100 and 1e-100 (`pstrain bw` uses those, cli/cmd_bw.cpp).
struct BeamOptions {
  double abeam = 1e-90;  // forward beam, relative to the best state
  double bbeam = 1e-10;  // backward beam, relative to the final alpha
};

struct ForwardBackwardOptions {
  BeamOptions beams;
  double spthresh = 0.0;
  bool pass2var = false;
};

// Why an utterance could not be aligned. `reason` is a stable machine-readable code (recorded in
// summaries), `message` says where (frame, values).
struct AlignmentFailure {
  std::string reason;
  std::string message;
  bool beam_related = true;  // a wider beam might succeed
};

struct ForwardBackwardStats {
  double log_likelihood = 0.0;  // natural log
  std::uint32_t n_frames = 0;
  double avg_alpha_states = 0.0;
  double avg_beta_states = 0.0;
  double avg_pruned_posterior = 0.0;
};

// Runs forward-backward. The per-frame and per-state arrays (alphas, scales, the density cache,
// betas, the statistics gatherer's) are members kept between calls, so their memory is reused and
// grows only for an utterance larger than any before it. Every call still allocates: the beta
// pass's four active-state lists and, for a pronunciation graph, the initial alphas are local
// vectors, and a failure allocates its message.
class ForwardBackward {
 public:
  // With the kernels of the active instruction-set level (PSTRAIN_ISA, numerics/isa.h).
  ForwardBackward();
  explicit ForwardBackward(const numerics::VectorKernels& kernels);

  // Returns the failure, or nothing on success (then `stats_out` and `acc_out` are filled).
  // `before_statistics`, when given, is called once the alpha pass has succeeded and before
  // `acc_out` is first touched (the beta pass resets it): a caller whose other thread still reads
  // the last utterance's statistics from `acc_out` waits for it there, while this utterance's alpha
  // pass has already run. What it throws leaves Run.
  std::optional<AlignmentFailure> Run(const AcousticModel& model, const SentenceHmm& hmm, const Features& features,
                                      const ForwardBackwardOptions& options, UtteranceStats& acc_out,
                                      ForwardBackwardStats& stats_out, const std::function<void()>& before_statistics = {});

  // Frames whose Gaussian statistics are kept before being added (StatisticsGatherer: the sums do
  // not depend on it; tests compare sizes), from the next Run on.
  void set_statistics_block_frames(std::uint32_t frames) { gatherer_.set_block_frames(frames); }

 private:
  struct Pass {
    const AcousticModel& model;
    const SentenceHmm& hmm;
    const Features& features;
    const ForwardBackwardOptions& options;
  };
  // Scaled alphas of every frame (alpha_*, scale_, dscale_) and the density cache.
  std::optional<AlignmentFailure> AlphaPass(const Pass& pass, ForwardBackwardStats& stats);
  // Betas from the last frame back to frame 0, gathering the statistics into `acc`.
  std::optional<AlignmentFailure> BetaPass(const Pass& pass, double final_alpha, UtteranceStats& acc,
                                           ForwardBackwardStats& stats);
  // Keeps the states of `candidates` whose alpha * beta at frame t exceeds `threshold` (appended to
  // `kept`), drops the others (asf_next_ cleared); adds the kept and the dropped alpha * beta to
  // `kept_sum` and `pruned_sum`.
  void PruneBeta(const std::vector<std::uint32_t>& candidates, double threshold, std::vector<std::uint32_t>& kept,
                 double& kept_sum, double& pruned_sum);
  // The backward pass: `state`'s alpha entry at the frame whose slots were set last, or -1 if the
  // state was not active then (beta_pass.cpp).
  std::int32_t AlphaSlot(std::uint32_t state) const {
    const std::int32_t e = state_slot_[state];
    return static_cast<std::uint64_t>(e - slot_first_) < slot_count_ ? e : -1;
  }
  std::uint32_t LocalOf(const SentenceHmm& hmm, std::uint32_t state) const {
    return local_of_senone_[hmm.states[state].senone];
  }

  DensityKernel kernel_;  // holds the vector kernels (kernel_.kernels())
  FrameDensities densities_;
  ArcTable arcs_;         // the utterance's arcs, both ways
  StatisticsGatherer gatherer_;

  // Forward results per frame.
  std::vector<std::size_t> alpha_begin_;  // frame -> first entry (size T+1)
  UninitializedVector<std::uint32_t> alpha_state_;  // (alpha_pass.cpp: written before read)
  UninitializedVector<double> alpha_value_;         // scaled alphas
  std::vector<double> scale_;             // 1 / best alpha per frame
  std::vector<double> dscale_;            // density log-scale per frame
  std::vector<double> log_scale_;         // Log(scale_) per frame

  // Scratch indexed by HMM state / global senone.
  std::vector<std::int32_t> state_slot_;  // alpha: candidate slot (-1 none); beta: alpha entry (AlphaSlot)
  std::int64_t slot_first_ = 0;           // beta: the frame's first alpha entry
  std::uint64_t slot_count_ = 0;          // beta: and its number of entries
  std::vector<std::uint32_t> local_of_senone_;
  std::vector<std::uint32_t> cand_state_;
  std::vector<std::uint32_t> cand_local_;
  std::vector<double> cand_alpha_;
  std::vector<double> beta_, prior_beta_;
  std::vector<std::uint32_t> beta_written_, prior_beta_written_;  // (beta_pass.cpp)
  std::vector<char> asf_, asf_next_;
};

}  // namespace pstrain
