// Turns the backward pass's posteriors into statistics in an UtteranceStats: per transition into an
// emitting state, the density posteriors w_k den_k p (and, for a CD state, its CI senone's share);
// per frame, the Gaussian statistics of every density whose posterior is above SphinxTrain's
// MIN_POS_FLOAT32 threshold.
#pragma once

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
  // Adds the frame's density posteriors to the Gaussian statistics and starts the next frame.
  void FinishFrame(std::uint32_t frame);

 private:
  // CI-senone densities at `frame` (evaluated at most once per frame): the entry of ci_*.
  std::size_t CiDensities(DensityKernel& kernel, std::uint32_t ci_senone, std::uint32_t frame);
  void Touch(std::uint32_t local) {
    if (!touched_[local]) {
      touched_[local] = 1;
      touched_locals_.push_back(local);
    }
  }

  const AcousticModel* model_ = nullptr;
  const SentenceHmm* hmm_ = nullptr;
  const Features* features_ = nullptr;
  const std::vector<std::uint32_t>* local_of_senone_ = nullptr;
  bool pass2var_ = false;
  const numerics::VectorKernels* kernels_ = nullptr;
  UtteranceStats* stats_ = nullptr;

  std::vector<double> frame_gamma_;  // local * n_density + k -> the frame's posterior
  std::vector<char> touched_;
  std::vector<std::uint32_t> touched_locals_;
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
