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
  const std::uint32_t n_density = model.n_density();
  if (model.topn() < n_density) {
    for (std::uint32_t k = 0; k < n_density; ++k) order_[k] = k;
    std::stable_sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) { return log_dens_[a] > log_dens_[b]; });
  }
}

}  // namespace pstrain
