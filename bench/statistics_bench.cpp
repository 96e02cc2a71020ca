// The Gaussian statistics kernel (numerics/vector_kernels.h accumulate_frames): a run of frames'
// posteriors added to a density's mean and variance sums, as the statistics gatherer calls it for
// every density with frames in its block (forward_backward/utterance_stats.h AddFrames; a tied CD
// pass averages about 4 frames a call, a 1-Gaussian CI pass about 6).
//
//   BM_AccumulateFrames/isa:L/veclen:N/frames:F
//       F frames (1: a frame at a time, as before the gatherer kept blocks) of N dimensions (39: 13
//       cepstra with deltas and double deltas; 13: cepstra only), two-pass variance (x - the input
//       mean), over 64 densities' sums (40 KiB, in cache) with the vector kernel of level L (0
//       scalar, 1 sse2, 2 avx2, 3 avx512; a level the CPU lacks is skipped with the reason)
//
// items_processed = density frames.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "isa_util.h"
#include "numerics/vector_kernels.h"

namespace pstrain::bench {
namespace {

constexpr std::size_t kDensities = 64;

void BM_AccumulateFrames(benchmark::State& state) {
  const numerics::VectorKernels* kernels = KernelsOrSkip(state, state.range(0));
  if (kernels == nullptr) return;
  const auto veclen = static_cast<std::uint32_t>(state.range(1));
  const auto frames = static_cast<std::size_t>(state.range(2));
  std::mt19937_64 rng(5);
  std::normal_distribution<float> gauss(0.0f, 3.0f);
  std::vector<float> x(frames * veclen), input_mean(kDensities * veclen);
  for (float& v : x) v = gauss(rng);
  for (float& v : input_mean) v = gauss(rng);
  std::vector<const float*> xs(frames);
  std::vector<double> gammas(frames);
  for (std::size_t f = 0; f < frames; ++f) {
    xs[f] = x.data() + f * veclen;
    gammas[f] = 0.0625 + 0.001 * double(f);
  }
  std::vector<double> mean(kDensities * veclen, 0.0), var(kDensities * veclen, 0.0);
  for (auto _ : state) {
    for (std::size_t d = 0; d < kDensities; ++d) {
      kernels->accumulate_frames(gammas.data(), xs.data(), frames, input_mean.data() + d * veclen, mean.data() + d * veclen,
                                 var.data() + d * veclen, veclen, false);
    }
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(var.data());
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kDensities * frames));
}
BENCHMARK(BM_AccumulateFrames)->ArgNames({"isa", "veclen", "frames"})->ArgsProduct({{0, 1, 2, 3}, {13, 39}, {1, 4}});

}  // namespace
}  // namespace pstrain::bench
