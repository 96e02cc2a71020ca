// The exact accumulation's inner loop: 39 statistics of one density (a mean or variance numerator,
// veclen 39) rounded to 2^-64 and added to their 128-bit accumulators, as UtteranceStats::AddTo
// does once per touched density and utterance.
//
//   BM_AddFixedReference        accumulators/exact_sum.h ToFixed + AddFixed, one value at a time
//   BM_AddFixedKernel/isa:L     the add_fixed kernel of level L (0 scalar: hands everything to the
//                               reference, so this measures the hand-back), with the reference
//                               path for what it hands back, as ExactAccumulators::AddValues did
//                               before the carry-save form
//   BM_AddSplitKernel/isa:L     the add_split kernel of level L: the carry-save form
//                               (accumulators/carry_save_sums.h), two 64-bit limb arrays
//   BM_AddFixedScattered, BM_CarrySaveScattered
//                               the whole ExactAccumulators-like path on a tied-CD-sized block
//                               (4,816 densities x 2 x 39 statistics: 5.9 MB as 128-bit sums,
//                               more than L2), 300 densities in a random order per iteration,
//                               with the prefetch of UtteranceStats::AddTo; the active level
//   BM_FromFixed/impl:I         the conversion back to double of a pass's sums (the double view,
//                               the bw-format files): 0 static_cast<double>(fixed) / 2^64 (libgcc's
//                               __floattidf), 1 accumulators/exact_sum.h FromFixed
//
// items_per_second = values per second. The values are E-step-like: sums of posterior-weighted
// cepstra, magnitudes 1e-6 .. 1e4, both signs.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "accumulators/carry_save_sums.h"
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

void BM_AddSplitKernel(benchmark::State& state) {
  const numerics::VectorKernels* kernels = KernelsOrSkip(state, state.range(0));
  if (kernels == nullptr) return;
  const std::vector<double> values = StatisticValues();
  std::vector<std::int64_t> hi(values.size(), 0), lo(values.size(), 0);
  for (auto _ : state) {
    for (std::size_t d = 0; d < kDensities; ++d) {
      const std::size_t first = d * kVeclen;
      std::size_t i = 0;
      while (i < kVeclen) {
        i += kernels->add_split(values.data() + first + i, kVeclen - i, hi.data() + first + i, lo.data() + first + i);
        if (i == kVeclen) break;
        ++i;  // (never: the values are all below 2^32)
      }
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * values.size()));
}
BENCHMARK(BM_AddSplitKernel)->ArgName("isa")->DenseRange(0, 3);

constexpr std::size_t kScatteredDensities = 4816 * 2;  // mean and variance runs of a 602 x 8 model
constexpr std::size_t kTouched = 300;

std::vector<std::size_t> TouchedOrder() {
  std::mt19937_64 rng(9);
  std::uniform_int_distribution<std::size_t> pick(0, kScatteredDensities - 1);
  std::vector<std::size_t> order(kTouched);
  for (std::size_t& d : order) d = pick(rng);
  return order;
}

void BM_AddFixedScattered(benchmark::State& state) {
  const numerics::VectorKernels& kernels = numerics::ActiveKernels();
  const std::vector<double> values = StatisticValues();
  const std::vector<std::size_t> order = TouchedOrder();
  std::vector<FixedPoint> acc(kScatteredDensities * kVeclen, 0);
  for (auto _ : state) {
    for (std::size_t t = 0; t < kTouched; ++t) {
      if (t + 4 < kTouched) {
        const char* next = reinterpret_cast<const char*>(acc.data() + order[t + 4] * kVeclen);
        for (std::size_t offset = 0; offset < kVeclen * sizeof(FixedPoint); offset += 64) __builtin_prefetch(next + offset, 1);
      }
      const double* v = values.data() + (t % kDensities) * kVeclen;
      FixedPoint* a = acc.data() + order[t] * kVeclen;
      std::size_t i = 0;
      while (i < kVeclen) {
        i += kernels.add_fixed(v + i, kVeclen - i, reinterpret_cast<std::uint64_t*>(a + i));
        if (i == kVeclen) break;
        AddFixed(a[i], ToFixed(v[i], "x"), "x");
        ++i;
      }
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kTouched * kVeclen));
}
BENCHMARK(BM_AddFixedScattered);

void BM_CarrySaveScattered(benchmark::State& state) {
  const std::vector<double> values = StatisticValues();
  const std::vector<std::size_t> order = TouchedOrder();
  CarrySaveSums sums(kScatteredDensities * kVeclen);
  for (auto _ : state) {
    for (std::size_t t = 0; t < kTouched; ++t) {
      if (t + 4 < kTouched) sums.Prefetch(order[t + 4] * kVeclen, kVeclen);
      sums.AddValues(order[t] * kVeclen, values.data() + (t % kDensities) * kVeclen, kVeclen, "x");
    }
    benchmark::ClobberMemory();
    // Folds happen as they would in a pass (every kMaxPendingAdds additions per group).
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kTouched * kVeclen));
}
BENCHMARK(BM_CarrySaveScattered);

// Sums as a pass's accumulators hold them: E-step-like values summed over a few hundred utterances.
void BM_FromFixed(benchmark::State& state) {
  const std::vector<double> values = StatisticValues();
  std::vector<FixedPoint> sums(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) sums[i] = ToFixed(values[i] * 300.0, "x");
  std::vector<double> out(sums.size());
  const bool fast = state.range(0) == 1;
  for (auto _ : state) {
    if (fast) {
      for (std::size_t i = 0; i < sums.size(); ++i) out[i] = FromFixed(sums[i]);
    } else {
      for (std::size_t i = 0; i < sums.size(); ++i) out[i] = static_cast<double>(sums[i]) / 18446744073709551616.0;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * sums.size()));
}
BENCHMARK(BM_FromFixed)->ArgName("impl")->Arg(0)->Arg(1);

}  // namespace
}  // namespace pstrain::bench
