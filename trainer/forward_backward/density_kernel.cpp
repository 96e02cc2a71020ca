// DensityKernel: the grouped or one-at-a-time evaluation of a senone's log densities and the top-n.
#include "forward_backward/density_kernel.h"

#include <type_traits>

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
  } else {
    EvaluateSenoneLogDensities(model, senone, x, log_dens_.data());
  }
  if (!model.topn_is_all()) SortOrder(log_dens_.data());  // (with topn = all order_ stays the identity)
}

namespace {

// TopOrder's counted places for n densities: each pair compared once, the one that goes later in
// the stable sort (the smaller value, or the later of two equal ones) counting one more place. For
// the common sizes (4, 8, 16 densities) n is a compile-time constant, so the loops unroll.
template <std::uint32_t kMaxN, typename Count>
inline __attribute__((always_inline)) void CountedTopOrder(const double* logs, Count n, std::uint32_t topn, std::uint32_t* order) {
  std::uint32_t place[kMaxN];
  for (std::uint32_t k = 0; k < n; ++k) place[k] = 0;
  for (std::uint32_t j = 0; j < n; ++j) {
    for (std::uint32_t k = j + 1; k < n; ++k) {
      const std::uint32_t k_later = logs[j] >= logs[k] ? 1 : 0;
      place[k] += k_later;
      place[j] += 1 - k_later;
    }
  }
  for (std::uint32_t k = 0; k < n; ++k) {
    std::uint32_t unused;
    *(place[k] < topn ? order + place[k] : &unused) = k;
  }
}

}  // namespace

void DensityKernel::TopOrder(const double* logs, std::uint32_t n, std::uint32_t topn, std::uint32_t* order) {
  if (topn == 1) {
    // The first of the greatest: one compare per density, a conditional move rather than a branch.
    std::uint32_t best = 0;
    for (std::uint32_t k = 1; k < n; ++k) best = logs[k] > logs[best] ? k : best;
    order[0] = best;
    return;
  }
  // Up to kRankedTopOrder densities each one's place in the stable sort is counted: without NaN
  // the places are 0 .. n - 1, each once, and no branch depends on the values (their order is not
  // predictable: the insertion below mispredicts about once per density). A place at or past
  // topn is written to a slot nobody reads. Comparisons only: the same places on every machine.
  switch (n) {
    case 4: return CountedTopOrder<4>(logs, std::integral_constant<std::uint32_t, 4>{}, topn, order);
    case 8: return CountedTopOrder<8>(logs, std::integral_constant<std::uint32_t, 8>{}, topn, order);
    case 16: return CountedTopOrder<16>(logs, std::integral_constant<std::uint32_t, 16>{}, topn, order);
    default:
      if (n <= kRankedTopOrder) return CountedTopOrder<kRankedTopOrder>(logs, n, topn, order);
  }
  // More densities: an insertion into the kept list, which holds at most topn indices, best first:
  // density k goes after every kept one whose value is >= its own (so an equal value keeps the
  // lower index); a place at or past topn means it is not among the best. About n * topn compares
  // at worst, where counting places would take n * n / 2.
  std::uint32_t kept = 0;
  for (std::uint32_t k = 0; k < n; ++k) {
    const double value = logs[k];
    std::uint32_t at = kept;
    while (at > 0 && logs[order[at - 1]] < value) --at;
    if (at >= topn) continue;
    if (kept < topn) ++kept;
    for (std::uint32_t i = kept - 1; i > at; --i) order[i] = order[i - 1];
    order[at] = k;
  }
}

void DensityKernel::SortOrder(const double* logs) {
  TopOrder(logs, std::uint32_t(order_.size()), model_->topn(), order_.data());
}

void DensityKernel::EvaluateMany(const std::uint32_t* senones, std::size_t n, const float* x, std::vector<std::uint32_t>& index,
                                 UninitializedVector<double>& log) {
  const AcousticModel& model = *model_;
  const std::uint32_t n_density = model.n_density(), topn = model.topn();
  const std::size_t n_values = n * n_density;
  // With topn = all the results are the log densities in index order: computed straight into `log`.
  const bool all = model.topn_is_all();
  double* logs;
  if (all) {
    log.resize(log.size() + n_values);
    logs = log.data() + log.size() - n_values;
  } else {
    if (many_log_.size() < n_values) many_log_.resize(n_values);
    logs = many_log_.data();
  }
  if (grouped_) {
    std::size_t i = 0;
    if (n_density == 8 && model.grouped_width() == 8) {
      for (; i + 2 <= n; i += 2) GroupedDensities::EvaluateTwoOfEight(model, *kernels_, senones[i], senones[i + 1], x, logs + i * 8);
    }
    for (; i < n; ++i) GroupedDensities::Evaluate(model, *kernels_, senones[i], x, logs + i * n_density);
  } else {
    // Every (senone, density) pair, four at a time in the kernel's lanes (each with the arithmetic
    // of EvaluateLogDensity: the same bits), then log_norm - dist.
    if (pair_means_.size() < n_values) {
      pair_means_.resize(n_values);
      pair_precisions_.resize(n_values);
    }
    const float** means = pair_means_.data();
    const double** precisions = pair_precisions_.data();
    // With one density a senone (a CI model's first stage) both loops are flat: nested, they cost
    // about 30 instructions a senone there, mostly setting up an inner loop that runs once.
    const bool one = n_density == 1;
    if (one) {
      const float* const mean_rows = model.Mean(0, 0);
      const double* const precision_rows = model.PairPrecision(0, 0);
      const std::size_t veclen = model.veclen();
      for (std::size_t i = 0; i < n; ++i) {
        means[i] = mean_rows + std::size_t(senones[i]) * veclen;
        precisions[i] = precision_rows + std::size_t(senones[i]) * veclen;
      }
    } else {
      for (std::size_t i = 0, p = 0; i < n; ++i) {
        for (std::uint32_t k = 0; k < n_density; ++k, ++p) {
          means[p] = model.Mean(senones[i], k);
          precisions[p] = model.PairPrecision(senones[i], k);
        }
      }
    }
    kernels_->pair_distances(x, means, precisions, model.veclen(), n_values, logs);
    if (one) {
      for (std::size_t i = 0; i < n; ++i) logs[i] = model.LogNorm(senones[i], 0) - logs[i];
    } else {
      for (std::size_t i = 0, p = 0; i < n; ++i) {
        for (std::uint32_t k = 0; k < n_density; ++k, ++p) logs[p] = model.LogNorm(senones[i], k) - logs[p];
      }
    }
  }
  if (all) return;  // (no indices: they are 0 .. n_density - 1)
  for (std::size_t i = 0; i < n; ++i) {
    const double* senone_logs = logs + i * n_density;
    SortOrder(senone_logs);
    for (std::uint32_t kk = 0; kk < topn; ++kk) {
      index.push_back(order_[kk]);
      log.push_back(senone_logs[order_[kk]]);
    }
  }
}

}  // namespace pstrain
