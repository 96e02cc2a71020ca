// The density kernel of forward-backward: the log densities of one senone at one frame, and their
// top-n order. The arithmetic is the vector kernels' of the active instruction-set level
// (numerics/vector_kernels.h): every level gives the same bits.
//
// Every density of a senone is evaluated: with the model's grouped layout when a senone has at least
// 4 (forward_backward/gaussian_eval.h), one at a time otherwise. With topn below all the best `topn`
// are then chosen (ties keep the lower index).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/uninitialized_vector.h"
#include "forward_backward/gaussian_eval.h"
#include "model/acoustic_model.h"
#include "numerics/vector_kernels.h"

namespace pstrain {

class DensityKernel {
 public:
  explicit DensityKernel(const numerics::VectorKernels& kernels) : kernels_(&kernels) {}

  // The vector kernels every evaluation uses (also the statistics gatherer's).
  const numerics::VectorKernels& kernels() const { return *kernels_; }

  // Before each utterance (the model may change between utterances).
  void Prepare(const AcousticModel& model);

  // Log densities of `senone` at x. Then LogDensity(Order(kk)) for kk < topn
  // are the best topn, best first (or all densities in index order when topn = all).
  void Evaluate(std::uint32_t senone, const float* x);
  double LogDensity(std::uint32_t k) const { return log_dens_[k]; }
  std::uint32_t Order(std::uint32_t kk) const { return order_[kk]; }

  // Evaluate for each of senones[0..n) at x, the results of senone i appended to `index` (its
  // top-n density indices, best first) and `log` (their log densities): the same values, in the
  // same order, as Evaluate then Order and LogDensity for each senone in turn. With topn = all
  // nothing is appended to `index`: the order is 0 .. n_density - 1 for every senone. Densities evaluated
  // one at a time (fewer than 4 per senone) run four at once in the lanes of the
  // pair_distances kernel (numerics/vector_kernels.h), each lane with the arithmetic of
  // EvaluateLogDensity, so the bits do not change; senones of 8 densities go two to a kernel call
  // (GroupedDensities::EvaluateTwoOfEight), the same bits as one at a time.
  void EvaluateMany(const std::uint32_t* senones, std::size_t n, const float* x, std::vector<std::uint32_t>& index,
                    UninitializedVector<double>& log);

  // order[0..topn) = the indices of the topn largest of logs[0..n) (topn <= n, none NaN), best
  // first, an equal value keeping the lower index: the first topn of a stable sort by descending
  // value. order[topn..n) is left as it was.
  // Up to kRankedTopOrder densities each one's place is counted (n * (n - 1) / 2 compares, no
  // branch on the values); beyond, they are inserted one by one (n * topn compares at most).
  static constexpr std::uint32_t kRankedTopOrder = 32;
  static void TopOrder(const double* logs, std::uint32_t n, std::uint32_t topn, std::uint32_t* order);

  // out[i] = Exp(in[i] - shift), i < n.
  void ExpShifted(const double* in, double shift, double* out, std::size_t n) const {
    kernels_->exp_shifted(in, shift, out, n);
  }
  // out[i] = Log(in[i]), i < n.
  void LogArray(const double* in, double* out, std::size_t n) const { kernels_->log(in, out, n); }

 private:
  // order_[0..topn) = the best topn densities by `logs` (n_density values): TopOrder.
  void SortOrder(const double* logs);

  const numerics::VectorKernels* kernels_;
  const AcousticModel* model_ = nullptr;
  bool grouped_ = false;
  std::vector<double> log_dens_;      // n_density
  std::vector<std::uint32_t> order_;  // n_density
  std::vector<double> many_log_;      // EvaluateMany: n * n_density
  std::vector<const float*> pair_means_;         // EvaluateMany, one at a time: each pair's rows
  std::vector<const double*> pair_precisions_;
};

}  // namespace pstrain
