// The top-n choice of a senone's densities (DensityKernel::TopOrder), what every senone of every
// frame costs with -topn below the Gaussians per state (SphinxTrain's stage 30, $CFG_CI_TOPN,
// $CFG_CD_TOPN). The inputs are synthetic log densities shaped like a senone's at a frame (a
// base value, the densities spread tens of nats below it, in random order), so that which
// density is best varies from one call to the next as it does in a pass (the cost of a branch on
// the values depends on that).
//
//   BM_TopOrder/densities:N/topn:K   one call per senone, 1,024 senone-frames per iteration
//
// items_processed = calls, so items_per_second is calls/s (per call: the time column / 1,024).
// Before timing, every call's result is checked against the first topn of std::stable_sort.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "forward_backward/density_kernel.h"

namespace pstrain::bench {
namespace {

constexpr std::size_t kCalls = 1024;

// kCalls lists of n log densities: per list a base value and n spreads around it, the shape of a
// senone's densities at a frame (a few close to the best, the others tens of nats below).
std::vector<double> LogDensityLists(std::uint32_t n) {
  std::mt19937 rng(7);
  std::normal_distribution<double> base(-80.0, 15.0), spread(0.0, 12.0);
  std::vector<double> logs(kCalls * n);
  for (std::size_t call = 0; call < kCalls; ++call) {
    const double b = base(rng);
    for (std::uint32_t k = 0; k < n; ++k) logs[call * n + k] = b - std::abs(spread(rng));
  }
  return logs;
}

void BM_TopOrder(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  const auto topn = static_cast<std::uint32_t>(state.range(1));
  const std::vector<double> logs = LogDensityLists(n);
  std::vector<std::uint32_t> order(kCalls * n);
  for (std::size_t call = 0; call < kCalls; ++call) {
    const double* values = logs.data() + call * n;
    DensityKernel::TopOrder(values, n, topn, order.data() + call * n);
    std::vector<std::uint32_t> want(n);
    for (std::uint32_t k = 0; k < n; ++k) want[k] = k;
    std::stable_sort(want.begin(), want.end(), [&](std::uint32_t a, std::uint32_t b) { return values[a] > values[b]; });
    if (!std::equal(want.begin(), want.begin() + topn, order.begin() + std::ptrdiff_t(call * n))) {
      state.SkipWithError(("TopOrder differs from the stable sort at list " + std::to_string(call)).c_str());
      return;
    }
  }
  for (auto _ : state) {
    for (std::size_t call = 0; call < kCalls; ++call) DensityKernel::TopOrder(logs.data() + call * n, n, topn, order.data() + call * n);
    benchmark::DoNotOptimize(order.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kCalls));
}
BENCHMARK(BM_TopOrder)->ArgNames({"densities", "topn"})->Args({8, 1})->Args({8, 4})->Args({16, 4})->Args({16, 8})->Args({64, 4});

}  // namespace
}  // namespace pstrain::bench
