// The exact accumulation's inner loop: 39 statistics of one density (a mean or variance numerator,
// veclen 39) rounded to 2^-64 and added to their 128-bit accumulators, as UtteranceStats::AddTo
// does once per touched density and utterance.
//
//   BM_AddFixedReference        accumulators/exact_sum.h ToFixed + AddFixed, one value at a time
//   BM_AddFixedKernel/isa:L     the add_fixed kernel of level L (0 scalar: hands everything to the
//                               reference, so this measures the hand-back), with the reference
//                               path for what it hands back, as ExactAccumulators::AddValues does
//
// items_per_second = values per second. The values are E-step-like: sums of posterior-weighted
// cepstra, magnitudes 1e-6 .. 1e4, both signs.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "accumulators/exact_sum.h"
#include "isa_util.h"
#include "numerics/vector_kernels.h"

namespace pstrain::bench {
namespace {

constexpr std::size_t kVeclen = 39;
constexpr std::size_t kDensities = 64;  // 64 runs of 39 values: 2,496 accumulators (40 KiB)

std::vector<double> StatisticValues() {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> exponent(-6.0, 4.0);
  std::bernoulli_distribution negative(0.4);
  std::vector<double> values(kVeclen * kDensities);
  for (double& v : values) v = (negative(rng) ? -1.0 : 1.0) * std::pow(10.0, exponent(rng));
  return values;
}

void BM_AddFixedReference(benchmark::State& state) {
  const std::vector<double> values = StatisticValues();
  std::vector<FixedPoint> acc(values.size(), 0);
  for (auto _ : state) {
    for (std::size_t i = 0; i < values.size(); ++i) AddFixed(acc[i], ToFixed(values[i], "x"), "x");
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * values.size()));
}
BENCHMARK(BM_AddFixedReference);

void BM_AddFixedKernel(benchmark::State& state) {
  const numerics::VectorKernels* kernels = KernelsOrSkip(state, state.range(0));
  if (kernels == nullptr) return;
  const std::vector<double> values = StatisticValues();
  std::vector<FixedPoint> acc(values.size(), 0);
  for (auto _ : state) {
    for (std::size_t d = 0; d < kDensities; ++d) {
      const double* v = values.data() + d * kVeclen;
      FixedPoint* a = acc.data() + d * kVeclen;
      std::size_t i = 0;
      while (i < kVeclen) {
        i += kernels->add_fixed(v + i, kVeclen - i, reinterpret_cast<std::uint64_t*>(a + i));
        if (i == kVeclen) break;
        AddFixed(a[i], ToFixed(v[i], "x"), "x");
        ++i;
      }
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * values.size()));
}
BENCHMARK(BM_AddFixedKernel)->ArgName("isa")->DenseRange(0, 3);

}  // namespace
}  // namespace pstrain::bench
