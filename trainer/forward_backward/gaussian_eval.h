// Gaussian log densities, the inner loop of the E-step, exactly as SphinxTrain's bw computes them:
// log N(x) = log_norm - sum_l precision_l * (x_l - mu_l)^2 with the difference in float32, promoted
// to double, and the sum in double in dimension order.
//
// Two layouts give bit-identical results: one density at a time (any model), and GroupedDensities,
// which evaluates a senone's densities side by side (SIMD), 4 or 8 at a time, when it has at least 4.
#pragma once

#include <cstdint>
#include <vector>

#include "model/acoustic_model.h"
#include "numerics/vector_kernels.h"

namespace pstrain {

// The log density of density `k` of `senone` at x.
inline double EvaluateLogDensity(const AcousticModel& model, std::uint32_t senone, std::uint32_t k, const float* x) {
  const std::uint32_t veclen = model.veclen();
  double dist = 0.0;
  if (!model.has_grouped_layout()) {
    // (the statistics' CI densities of a model with 1 to 3 Gaussians a senone come here every frame)
    const float* mean = model.Mean(senone, k);
    const double* precision = model.PairPrecision(senone, k);  // the float32 precisions, exactly
    for (std::uint32_t l = 0; l < veclen; ++l) {
      const double diff = x[l] - mean[l];  // float32 difference, as bw computes it
      dist += precision[l] * diff * diff;
    }
  } else {
    for (std::uint32_t l = 0; l < veclen; ++l) {
      const double diff = x[l] - model.MeanAt(senone, k, l);
      dist += model.PrecisionAt(senone, k, l) * diff * diff;
    }
  }
  return model.LogNorm(senone, k) - dist;
}

// Every density of `senone` at x, one at a time, into out[k].
inline void EvaluateSenoneLogDensities(const AcousticModel& model, std::uint32_t senone, const float* x, double* out) {
  for (std::uint32_t k = 0; k < model.n_density(); ++k) out[k] = EvaluateLogDensity(model, senone, k, x);
}

// A senone's densities evaluated side by side in groups of 4 or 8, from the model's grouped layout
// (AcousticModel::GroupedMeans: dimension-major [dim][width] float32 means and precisions, built
// once per model; the kernels convert them to double, which is exact). The sums of a group are
// independent: the vector kernel of the active instruction-set level (numerics/vector_kernels.h)
// computes them side by side, every lane performing the same IEEE operations in the same order as
// the one-density-at-a-time loop of EvaluateLogDensity (float32 difference promoted to double,
// dist += precision * diff * diff over the dimensions in order, log_norm - dist), so the log
// densities are bit-identical. Used whenever a senone has at least AcousticModel::kDensityGroup
// densities, with any topn (the top-n are then chosen from all of a senone's densities, as bw
// chooses them).
class GroupedDensities {
 public:
  static bool Applies(const AcousticModel& model) { return model.has_grouped_layout(); }

  // Log densities of every density of `senone` at x, into out[k]: the distances from `kernels`
  // (any instruction-set level gives the same bits), then log_norm - dist.
  static void Evaluate(const AcousticModel& model, const numerics::VectorKernels& kernels, std::uint32_t senone, const float* x,
                       double* out) {
    const std::uint32_t width = model.grouped_width();
    const std::uint32_t n_groups = model.n_density() / width;
    if (width == 8) {
      kernels.grouped8_distances(x, model.GroupedMeans(senone), model.GroupedPrecisions(senone), model.veclen(), n_groups,
                                 std::ptrdiff_t(model.veclen()) * 8, out);
    } else {
      kernels.grouped_distances(x, model.GroupedMeans(senone), model.GroupedPrecisions(senone), model.veclen(), n_groups, out);
    }
    for (std::uint32_t k = 0; k < n_groups * width; ++k) out[k] = model.LogNorm(senone, k) - out[k];
    // Densities beyond the last full group, one at a time (same arithmetic).
    for (std::uint32_t k = n_groups * width; k < model.n_density(); ++k) out[k] = EvaluateLogDensity(model, senone, k, x);
  }

  // Two senones of a model with 8 densities a senone (one group each) in one kernel call, into
  // out[0..7] and out[8..15]: the avx512 level sums the two groups side by side (two chains of
  // additions, where one group alone waits on each addition). The same bits as Evaluate of each.
  static void EvaluateTwoOfEight(const AcousticModel& model, const numerics::VectorKernels& kernels, std::uint32_t a,
                                 std::uint32_t b, const float* x, double* out) {
    const float* mean = model.GroupedMeans(a);
    const std::ptrdiff_t stride = model.GroupedMeans(b) - mean;  // the same offset in the precisions
    kernels.grouped8_distances(x, mean, model.GroupedPrecisions(a), model.veclen(), 2, stride, out);
    for (std::uint32_t k = 0; k < 8; ++k) out[k] = model.LogNorm(a, k) - out[k];
    for (std::uint32_t k = 0; k < 8; ++k) out[8 + k] = model.LogNorm(b, k) - out[8 + k];
  }
};

}  // namespace pstrain
