// Forward-backward (Baum-Welch E-step) over one utterance's sentence HMM, following SphinxTrain's
// bw: scaled alphas with a relative beam, densities scaled per frame by (max log density - 10),
// beta pruning relative to the final alpha, the same per-frame sanity checks, and posterior-weighted
// statistics for mixture weights, Gaussians (1- or 2-pass variance) and transitions. All statistics
// are accumulated in double into an UtteranceStats, which the caller adds to the global
// accumulators only when the utterance succeeded.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "accumulators/accumulators.h"
#include "accumulators/exact_accumulators.h"
#include "features/features.h"
#include "graph/sentence_hmm.h"
#include "model/acoustic_model.h"

namespace pstrain {

struct BeamOptions {
  double abeam = 1e-100;  // bw's default; SphinxTrain's scripts pass 1e-90
  double bbeam = 1e-100;  // bw's default; SphinxTrain's scripts pass 1e-10
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

// Statistics of one utterance over the senones its HMM uses (local indices = SentenceHmm::senones).
class UtteranceStats {
 public:
  void Reset(const SentenceHmm& hmm, const AcousticModel& model, std::uint32_t n_tmat);
  // Adds these statistics into `global` (deterministic order: local senone order, then tmat).
  // The exact form rounds each value once to 2^-64 (accumulators/exact_sum.h).
  void AddTo(ExactAccumulators& global) const;
  void AddTo(Accumulators& global) const;

 private:
  template <typename AddFn>
  void ForEachValue(AddFn&& add) const;
  friend class ForwardBackward;
  std::vector<std::uint32_t> senones_;  // local -> global senone
  std::uint32_t n_density_ = 0, veclen_ = 0, n_emit_ = 0;
  std::vector<double> mixw_, dnom_, mean_, var_;
  std::vector<double> tmat_;  // [n_tmat][n_emit][n_emit+1]
};

// Runs forward-backward. Reusable scratch buffers make repeated calls allocation-free.
class ForwardBackward {
 public:
  // Returns the failure, or nothing on success (then `stats_out` and `acc_out` are filled).
  std::optional<AlignmentFailure> Run(const AcousticModel& model, const SentenceHmm& hmm, const Features& features,
                                      const ForwardBackwardOptions& options, UtteranceStats& acc_out,
                                      ForwardBackwardStats& stats_out);

 private:
  // Evaluates the log densities of local senone `local` at frame `t` into `log_dens` (topn best,
  // with indices in `idx`).
  void EvaluateLogDensities(const AcousticModel& model, std::uint32_t senone, const float* x);

  std::vector<double> log_dens_;      // scratch: n_density
  std::vector<std::uint32_t> order_;  // scratch: top-n selection

  // Forward results per frame.
  std::vector<std::size_t> alpha_begin_;  // frame -> first entry (size T+1)
  std::vector<std::uint32_t> alpha_state_;
  std::vector<double> alpha_value_;       // scaled alphas
  std::vector<double> scale_;             // 1 / best alpha per frame
  std::vector<double> dscale_;            // density log-scale per frame

  // Density cache per frame: for each evaluated local senone, topn scaled densities + indices + op.
  std::vector<std::size_t> dens_begin_;   // frame -> first entry (size T+1)
  std::vector<std::uint32_t> dens_local_;
  std::vector<double> dens_op_;
  std::vector<double> dens_value_;        // entry * topn
  std::vector<std::uint32_t> dens_index_; // entry * topn
  std::vector<double> dens_log_;          // pre-scaling log densities of the frame being built

  // Scratch maps indexed by HMM state / local senone.
  std::vector<std::int32_t> state_slot_;
  std::vector<std::int32_t> local_entry_;
  std::vector<std::uint32_t> local_of_senone_;
};

}  // namespace pstrain
