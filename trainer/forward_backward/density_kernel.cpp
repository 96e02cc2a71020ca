// DensityKernel: the grouped or one-at-a-time evaluation of a senone's log densities and the top-n.
#include "forward_backward/density_kernel.h"

#include <algorithm>

namespace pstrain {

void DensityKernel::Prepare(const AcousticModel& model) {
  model_ = &model;
  const std::uint32_t n_density = model.n_density();
  log_dens_.resize(n_density);
  order_.resize(n_density);
  for (std::uint32_t k = 0; k < n_density; ++k) order_[k] = k;
  grouped_ = GroupedDensities::Applies(model);
}

void DensityKernel::Evaluate(std::uint32_t senone, const float* x) {
  const AcousticModel& model = *model_;
  if (grouped_) {
    GroupedDensities::Evaluate(model, *kernels_, senone, x, log_dens_.data());
    return;  // topn = all: order_ stays the identity
  }
  EvaluateSenoneLogDensities(model, senone, x, log_dens_.data());
  if (model.topn() < model.n_density()) SortOrder(log_dens_.data());
}

void DensityKernel::SortOrder(const double* logs) {
  for (std::uint32_t k = 0; k < order_.size(); ++k) order_[k] = k;
  std::stable_sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) { return logs[a] > logs[b]; });
}

namespace {

// Log densities of `n` (senone, density) pairs at x, four at a time in independent sums (each the
// loop of EvaluateLogDensity: float32 difference promoted to double, precision * diff * diff added
// in dimension order, then log_norm - dist). A last group of fewer than four repeats its last pair
// in the unused sums and keeps only the used ones: a frame often has only a few senones.
void EvaluatePairs(const AcousticModel& model, const std::uint32_t* senones, std::uint32_t n_density, std::size_t n_pairs,
                   const float* x, double* out) {
  const std::uint32_t veclen = model.veclen();
  for (std::size_t p = 0; p < n_pairs; p += 4) {
    const float* m[4];
    const float* q[4];
    float log_norm[4];
    for (std::size_t j = 0; j < 4; ++j) {
      const std::size_t pair = std::min(p + j, n_pairs - 1);
      const std::uint32_t senone = senones[pair / n_density], k = static_cast<std::uint32_t>(pair % n_density);
      m[j] = model.Mean(senone, k);
      q[j] = model.Precision(senone, k);
      log_norm[j] = model.LogNorm(senone, k);
    }
    double d0 = 0.0, d1 = 0.0, d2 = 0.0, d3 = 0.0;
    for (std::uint32_t l = 0; l < veclen; ++l) {
      const float xl = x[l];
      const double e0 = xl - m[0][l], e1 = xl - m[1][l], e2 = xl - m[2][l], e3 = xl - m[3][l];
      d0 += q[0][l] * e0 * e0;
      d1 += q[1][l] * e1 * e1;
      d2 += q[2][l] * e2 * e2;
      d3 += q[3][l] * e3 * e3;
    }
    const double d[4] = {d0, d1, d2, d3};
    for (std::size_t j = 0; j < 4 && p + j < n_pairs; ++j) out[p + j] = log_norm[j] - d[j];
  }
}

}  // namespace

void DensityKernel::EvaluateMany(const std::uint32_t* senones, std::size_t n, const float* x, std::vector<std::uint32_t>& index,
                                 std::vector<double>& log) {
  const AcousticModel& model = *model_;
  const std::uint32_t n_density = model.n_density(), topn = model.topn();
  many_log_.resize(n * n_density);
  if (grouped_) {
    for (std::size_t i = 0; i < n; ++i) GroupedDensities::Evaluate(model, *kernels_, senones[i], x, many_log_.data() + i * n_density);
  } else {
    EvaluatePairs(model, senones, n_density, n * n_density, x, many_log_.data());
  }
  for (std::size_t i = 0; i < n; ++i) {
    const double* logs = many_log_.data() + i * n_density;
    if (topn < n_density) {
      SortOrder(logs);
      for (std::uint32_t kk = 0; kk < topn; ++kk) {
        index.push_back(order_[kk]);
        log.push_back(logs[order_[kk]]);
      }
    } else {
      for (std::uint32_t k = 0; k < n_density; ++k) index.push_back(k);
      log.insert(log.end(), logs, logs + n_density);
    }
  }
}

}  // namespace pstrain
