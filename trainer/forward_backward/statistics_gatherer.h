// Turns the backward pass's posteriors into statistics in an UtteranceStats: per transition into an
// emitting state, the density posteriors w_k den_k p (and, for a CD state, its CI senone's share);
// per frame, the Gaussian statistics of every density whose posterior is above SphinxTrain's
// MIN_POS_FLOAT32 threshold.
//
// The Gaussian statistics are kept for a block of frames and then added density by density, each
// density's frames in the order FinishFrame saw them (the backward pass's: last frame first) by
// UtteranceStats::AddFrames: every sum gets the same additions in the same order as when each
// frame was added at its FinishFrame, so the same bits, while a density's sums are loaded and
// stored once per block instead of once per frame (a state usually keeps the posterior for a few
// frames in a row: about 4 frames a density and block in a tied CD pass, 6 in a 1-Gaussian CI one).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "features/features.h"
#include "forward_backward/density_kernel.h"
#include "forward_backward/frame_densities.h"
#include "forward_backward/utterance_stats.h"
#include "graph/sentence_hmm.h"
#include "model/acoustic_model.h"

namespace pstrain {

class StatisticsGatherer {
 public:
  // Before each utterance's backward pass. `local_of_senone` maps global to local senones.
  void Reset(const AcousticModel& model, const SentenceHmm& hmm, const Features& features,
             const std::vector<std::uint32_t>& local_of_senone, bool pass2var, const numerics::VectorKernels& kernels,
             UtteranceStats& stats);

  // A transition into emitting `state` at `frame` with p_reest = alpha * a * beta / final alpha:
  // density posteriors w_jk den_k p_reest from the frame's cached densities; a CD state also gives
  // its CI senone w_ci_k den_ci_k / sum_k'(w_ci_k' den_ci_k') * ci_post.
  void AddTransitionInto(DensityKernel& kernel, const FrameDensities& densities, std::uint32_t state, double p_reest,
                         double ci_post, std::uint32_t frame);
  // Records the frame's density posteriors for the Gaussian statistics and starts the next frame.
  void FinishFrame(std::uint32_t frame);
  // Adds the statistics of the frames still kept: after the utterance's last FinishFrame.
  void Finish() {
    if (!block_x_.empty()) Flush();
  }

  // Frames kept before their statistics are added (1 to kMaxBlockFrames; 1 adds each frame at its
  // FinishFrame), from the next Reset on. Tests compare other sizes with the default: the sums
  // must not change.
  static constexpr std::uint32_t kDefaultBlockFrames = 32;
  static constexpr std::uint32_t kMaxBlockFrames = 1024;
  void set_block_frames(std::uint32_t frames) { block_frames_ = std::clamp<std::uint32_t>(frames, 1, kMaxBlockFrames); }

 private:
  // CI-senone densities at `frame` (evaluated at most once per frame): the entry of ci_*.
  std::size_t CiDensities(DensityKernel& kernel, std::uint32_t ci_senone, std::uint32_t frame);
  // Adds the kept frames' Gaussian statistics, density by density, and empties the block.
  void Flush();
  // Index in record_gamma_ of the posteriors of `local` at the frame being gathered (its record,
  // created at its first posterior in the frame).
  std::size_t Touch(std::uint32_t local) {
    std::int32_t record = frame_record_[local];
    if (record < 0) record = NewRecord(local);
    return static_cast<std::size_t>(record) * n_density_;
  }
  std::int32_t NewRecord(std::uint32_t local);

  const AcousticModel* model_ = nullptr;
  const SentenceHmm* hmm_ = nullptr;
  const Features* features_ = nullptr;
  const std::vector<std::uint32_t>* local_of_senone_ = nullptr;
  bool pass2var_ = false;
  const numerics::VectorKernels* kernels_ = nullptr;
  UtteranceStats* stats_ = nullptr;

  std::uint32_t n_density_ = 0;
  // The block: its frames' features by slot, and a record for each (frame, local senone given a
  // posterior in it) with the local's n_density posteriors, chained per local in the order of the
  // frames (FinishFrame's).
  std::uint32_t block_frames_ = kDefaultBlockFrames;
  std::uint32_t block_capacity_ = kDefaultBlockFrames;  // block_frames_ at the last Reset
  std::vector<const float*> block_x_;                    // slot -> the frame's features
  std::vector<std::uint32_t> block_locals_;              // locals with a record in the block
  std::vector<std::int32_t> chain_head_, chain_tail_;    // local -> its first and last record, -1 if none
  std::vector<std::int32_t> frame_record_;               // local -> its record at the frame being gathered, -1 if none
  std::vector<std::uint32_t> frame_locals_;              // locals with a record at that frame
  std::size_t n_records_ = 0;                            // records in the block
  std::vector<std::int32_t> record_next_;                // record -> the local's next record, -1 if none
  std::vector<std::uint32_t> record_slot_;               // record -> its frame's slot
  std::vector<double> record_gamma_;                     // record * n_density + k -> posterior
  // Flush's runs of one local: density k's posteriors above the threshold and their frames' features,
  // at [k * block_capacity, k * block_capacity + run_n[k]).
  std::vector<double> run_gamma_;
  std::vector<const float*> run_x_;
  std::vector<std::uint32_t> run_n_;
  std::vector<float> input_mean_;  // a density's input means, when the model holds no rows of them (AcousticModel::InputMean)
  // CI senones' densities at the frame being accumulated, each scaled by its own best log density:
  // only their ratios matter, and the forward pass's frame scale (which bw uses here) can be
  // hundreds of nats away from a CI senone the forward pass never evaluated (exp would overflow to
  // inf, NaN counts, or underflow to 0).
  std::vector<std::int32_t> ci_entry_;
  std::vector<std::uint32_t> ci_entry_locals_;
  std::vector<double> ci_value_;
  std::vector<std::uint32_t> ci_index_;
  std::vector<double> ci_op_;
  std::vector<double> ci_log_;
};

}  // namespace pstrain
