// The statistics sink of forward-backward: one utterance's statistics over the senones its HMM
// uses (local indices = SentenceHmm::senones), accumulated in double. The caller adds them to the
// global accumulators only when the utterance succeeded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "accumulators/accumulators.h"
#include "accumulators/exact_accumulators.h"
#include "graph/sentence_hmm.h"
#include "model/acoustic_model.h"
#include "numerics/vector_kernels.h"

namespace pstrain {

class UtteranceStats {
 public:
  void Reset(const SentenceHmm& hmm, const AcousticModel& model, std::uint32_t n_tmat);

  // Posterior of density k of local senone `local` (mixture-weight count).
  void AddDensityPosterior(std::uint32_t local, std::uint32_t k, double value) {
    mixw_[std::size_t(local) * n_density_ + k] += value;
  }
  // n >= 1 frames' Gaussian statistics of density k of `local`, frame f with posterior gammas[f] at
  // features xs[f], in that order: mean += gamma x, var += gamma x^2 (one-pass variance) or
  // gamma (x - mu)^2 with mu the input model's mean (two-pass variance, input_mean != nullptr);
  // dnom += gamma. The same sums, bit for bit, as the frames added one call at a time.
  void AddFrames(std::uint32_t local, std::uint32_t k, const double* gammas, const float* const* xs, std::size_t n,
                 const float* input_mean, const numerics::VectorKernels& kernels) {
    const std::size_t dens = std::size_t(local) * n_density_ + k;
    // The density's first frame in this utterance: its sums start from zero, written fresh by the
    // kernel (Reset leaves the mean and variance sums of every density as they were; nothing reads
    // an untouched one).
    const bool fresh = dnom_[dens] == 0.0;
    kernels.accumulate_frames(gammas, xs, n, input_mean, mean_.data() + dens * veclen_, var_.data() + dens * veclen_, veclen_, fresh);
    double dnom = dnom_[dens];
    for (std::size_t f = 0; f < n; ++f) dnom += gammas[f];
    dnom_[dens] = dnom;
  }
  // Transition count: index = (tmat * n_emit + from) * (n_emit + 1) + to.
  void AddTransition(std::size_t index, double value) { tmat_[index] += value; }

  // At least as many values as AddTo adds (every density of every senone occupied): what adding
  // them may cost, known without looking at them.
  std::size_t MaxValues() const {
    return senones_.size() * n_density_ * (2 + 2 * std::size_t(veclen_)) + tmat_.size();
  }

  // Adds these statistics into `global` (deterministic order: local senone order, then tmat).
  // The exact form rounds each value once to 2^-64 (accumulators/exact_sum.h).
  void AddTo(ExactAccumulators& global) const;
  void AddTo(Accumulators& global) const;

 private:
  // Calls add(block, first global index, values, n) for every run of statistics the utterance
  // touched, in a fixed order; densities with zero occupancy are skipped (utterance_stats.cpp).
  template <typename AddFn>
  void ForEachTouched(AddFn&& add) const;
  std::vector<std::uint32_t> senones_;  // local -> global senone
  std::uint32_t n_density_ = 0, veclen_ = 0, n_emit_ = 0;
  std::vector<double> mixw_, dnom_, mean_, var_;
  std::vector<double> tmat_;  // [n_tmat][n_emit][n_emit+1]
};

}  // namespace pstrain
