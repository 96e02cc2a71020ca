// Gaussian log-density evaluation, 39 dimensions, per density, with 1, 8, 12 and 16 densities per
// senone.
//
// The model is an4_ci_cont (102 senones, real variances) as pstrain's AcousticModel prepares it
// (variance floor, 1/(2 sigma^2) and log normalizers in float32); for 8, 12 and 16 densities every
// Gaussian is replicated with deterministically perturbed means, as inc_comp does when it splits.
// The feature vectors are the senones' own means, perturbed (the cost does not depend on the values:
// there is no early exit). One iteration is one forward-pass frame's worth of work: all densities of
// 16 senones (15-25 states are active per frame on real speech).
//
//   BM_GaussianLogDensity/densities:N         one Gaussian at a time: the loop of
//                                             DensityKernel::Evaluate (and bw's); pstrain
//                                             uses it for fewer than 4 densities
//   BM_GaussianLogDensityGrouped/isa:L/densities:N  GroupedDensities (forward_backward/gaussian_eval.h): 8
//                                             densities side by side (N = 8, 16), or 4 (N = 12), with the
//                                             vector kernel of level L
//                                             (0 scalar, 1 sse2, 2 avx2, 3 avx512 on x86-64; a level the
//                                             CPU lacks is skipped with the reason), used with >= 4
//                                             densities, any topn; checked bit-identical to the loop above
//                                             before timing
//   BM_GaussianLogDensityPairs/isa:L/densities:N/senones:S  the pair_distances kernel of level L: every
//                                             density of S senones a frame, each anywhere in memory, several
//                                             at once in vector lanes (DensityKernel::EvaluateMany's path for
//                                             fewer than 4 densities per senone; a CI model's 1-Gaussian
//                                             passes request about 7 a frame); checked
//                                             bit-identical to the one-at-a-time loop before timing
//
// The arithmetic is bw's: float32 difference
// x - mean promoted to double, dist += precision * diff * diff in double over the dimensions in
// order, log density = log_norm - dist.
//
// items_processed = densities, so items_per_second is densities/s; the "per_density" counter is the
// time per density (e.g. "40.1ns"). On x86-64, "flops_per_cycle" is the density arithmetic (per
// dimension a float32 subtraction, two double multiplications and a double addition, plus the
// final log_norm - dist: 4 veclen + 1 operations per density) per time-stamp-counter tick over the
// timed loop. The TSC counts at the nominal clock, so this is flops per nominal cycle (docs/performance.md
// compares it with the CPU's peak without FMA).
#include <benchmark/benchmark.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "isa_util.h"
#include "forward_backward/gaussian_eval.h"
#include "model/acoustic_model.h"
#include "numerics/isa.h"
#include "numerics/vector_kernels.h"

namespace pstrain::bench {
namespace {

constexpr std::uint32_t kFrames = 64;

struct GaussianCase {
  std::unique_ptr<AcousticModel> model;
  std::vector<float> frames;  // kFrames x veclen
};

// Deterministic perturbation in [-0.5, 0.5) (Park-Miller).
struct Lcg {
  std::uint64_t state = 20240601;
  float Next() {
    state = (16807 * state) % 2147483647;
    return static_cast<float>(state) / 2147483647.0f - 0.5f;
  }
};

std::string LoadGaussianCase(std::uint32_t n_density, GaussianCase& out) {
  const std::string dir = An4ModelDir();
  ModelFiles files;
  try {
    files = ModelFiles::Load(dir);
  } catch (const std::exception& error) {
    return std::string("benchmark data missing: cannot load an4_ci_cont (install pocketsphinx-testdata with "
                       "scripts/bootstrap.sh, or set PSTRAIN_AN4_MODEL): ") + error.what();
  }
  const std::uint32_t n_senones = files.means.n_mgau;
  const std::uint32_t src_density = files.means.n_density;
  const std::uint32_t veclen = files.means.veclen.at(0);
  if (veclen != 39 || src_density != 1) return dir + ": expected 1 Gaussian of 39 dimensions per senone";
  Lcg lcg;
  GaussianParams means = files.means, variances = files.variances;
  means.n_density = variances.n_density = n_density;
  means.data.assign(std::size_t(n_senones) * n_density * veclen, 0.0f);
  variances.data.assign(means.data.size(), 0.0f);
  for (std::uint32_t s = 0; s < n_senones; ++s) {
    for (std::uint32_t k = 0; k < n_density; ++k) {
      for (std::uint32_t l = 0; l < veclen; ++l) {
        const std::size_t src = std::size_t(s) * veclen + l, dst = (std::size_t(s) * n_density + k) * veclen + l;
        const float var = files.variances.data[src];
        variances.data[dst] = var;
        means.data[dst] = files.means.data[src] + (k == 0 ? 0.0f : 0.2f * lcg.Next() * var);
      }
    }
  }
  files.means = std::move(means);
  files.variances = std::move(variances);
  files.mixture_weights.d3 = n_density;
  files.mixture_weights.data.assign(std::size_t(n_senones) * n_density, 1.0f / static_cast<float>(n_density));
  out.model = std::make_unique<AcousticModel>(files, ModelOptions{});
  out.frames.resize(std::size_t(kFrames) * veclen);
  for (std::uint32_t t = 0; t < kFrames; ++t) {
    const std::uint32_t s = (t * 37) % n_senones;
    for (std::uint32_t l = 0; l < veclen; ++l) {
      out.frames[std::size_t(t) * veclen + l] = files.means.data[std::size_t(s) * n_density * veclen + l] + lcg.Next();
    }
  }
  return "";
}

// LoadGaussianCase, or false after SkipWithError.
bool LoadOrSkip(benchmark::State& state, std::uint32_t n_density, GaussianCase& out) {
  const std::string error = LoadGaussianCase(n_density, out);
  if (error.empty()) return true;
  state.SkipWithError(error.c_str());
  return false;
}

// One iteration = one frame of the forward pass: all densities of kSenonesPerFrame senones.
constexpr std::uint32_t kSenonesPerFrame = 16;

template <bool kGrouped>
void BM_GaussianLogDensity(benchmark::State& state) {
  const auto n_density = static_cast<std::uint32_t>(state.range(kGrouped ? 1 : 0));
  const numerics::VectorKernels* kernels = nullptr;
  if constexpr (kGrouped) {
    kernels = KernelsOrSkip(state, state.range(0));
    if (kernels == nullptr) return;
  }
  GaussianCase c;
  if (!LoadOrSkip(state, n_density, c)) return;
  const AcousticModel& model = *c.model;
  const std::uint32_t veclen = model.veclen(), n_senones = model.n_senones();
  std::vector<double> log_dens(std::size_t(kSenonesPerFrame) * n_density);
  if constexpr (kGrouped) {
    if (n_density % AcousticModel::kDensityGroup != 0 || !GroupedDensities::Applies(model)) {
      state.SkipWithError("the grouped kernel needs a multiple of 4 densities, all evaluated");
      return;
    }
    // Bit-identical to the one-at-a-time loop (checked once, outside the timing).
    std::vector<double> a(n_density), b(n_density);
    for (std::uint32_t s = 0; s < n_senones; ++s) {
      EvaluateSenoneLogDensities(model, s, c.frames.data(), a.data());
      GroupedDensities::Evaluate(model, *kernels, s, c.frames.data(), b.data());
      if (std::memcmp(a.data(), b.data(), n_density * sizeof(double)) != 0) {
        state.SkipWithError("grouped and one-at-a-time log densities differ");
        return;
      }
    }
  }
  std::uint32_t senone = 0, frame = 0;
#if defined(__x86_64__)
  const std::uint64_t tsc_start = __rdtsc();
#endif
  for (auto _ : state) {
    const float* x = c.frames.data() + std::size_t(frame) * veclen;
    for (std::uint32_t i = 0; i < kSenonesPerFrame; ++i) {
      if constexpr (kGrouped) {
        GroupedDensities::Evaluate(model, *kernels, senone, x, log_dens.data() + std::size_t(i) * n_density);
      } else {
        EvaluateSenoneLogDensities(model, senone, x, log_dens.data() + std::size_t(i) * n_density);
      }
      senone = (senone + 7) % n_senones;
    }
    benchmark::DoNotOptimize(log_dens.data());
    benchmark::ClobberMemory();
    if (++frame == kFrames) frame = 0;
  }
#if defined(__x86_64__)
  const std::uint64_t tsc_ticks = __rdtsc() - tsc_start;
  const double flops = static_cast<double>(state.iterations()) * kSenonesPerFrame * n_density * (4.0 * veclen + 1.0);
  if (tsc_ticks > 0) state.counters["flops_per_cycle"] = flops / static_cast<double>(tsc_ticks);
#endif
  const double per_iteration = static_cast<double>(kSenonesPerFrame) * n_density;
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kSenonesPerFrame * n_density);
  state.counters["dims"] = veclen;
  state.counters["per_density"] =
      benchmark::Counter(per_iteration, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// The pair_distances kernel (DensityKernel::EvaluateMany's one-at-a-time path) over the densities
// of the frame's senones, then log_norm - dist, as EvaluateMany does.
void BM_GaussianLogDensityPairs(benchmark::State& state) {
  const auto n_density = static_cast<std::uint32_t>(state.range(1));
  const auto senones_per_frame = static_cast<std::uint32_t>(state.range(2));
  const numerics::VectorKernels* kernels = KernelsOrSkip(state, state.range(0));
  if (kernels == nullptr) return;
  GaussianCase c;
  if (!LoadOrSkip(state, n_density, c)) return;
  const AcousticModel& model = *c.model;
  const std::uint32_t veclen = model.veclen(), n_senones = model.n_senones();
  const std::size_t n_pairs = std::size_t(senones_per_frame) * n_density;
  // The float32 means, and the precisions as double (exact), in Mean's layout: AcousticModel::Mean and
  // PairPrecision, which the model holds only without the grouped layout (fewer than 4 densities a
  // senone; the means also when densities lie outside its full groups).
  const std::uint32_t n_model_density = model.n_density();
  std::vector<float> mean_rows(std::size_t(n_senones) * n_model_density * veclen);
  std::vector<double> pair_precision(mean_rows.size());
  for (std::uint32_t senone = 0; senone < n_senones; ++senone) {
    for (std::uint32_t k = 0; k < n_model_density; ++k) {
      for (std::uint32_t l = 0; l < veclen; ++l) {
        mean_rows[(std::size_t(senone) * n_model_density + k) * veclen + l] = model.MeanAt(senone, k, l);
        pair_precision[(std::size_t(senone) * n_model_density + k) * veclen + l] = model.PrecisionAt(senone, k, l);
      }
    }
  }
  // The senones of each frame: senones_per_frame of them, stepping by 7 as the other benchmarks do.
  std::vector<const float*> means(std::size_t(kFrames) * n_pairs);
  std::vector<const double*> precisions(means.size());
  std::vector<float> log_norms(means.size());
  for (std::uint32_t t = 0, senone = 0, p = 0; t < kFrames; ++t) {
    for (std::uint32_t i = 0; i < senones_per_frame; ++i, senone = (senone + 7) % n_senones) {
      for (std::uint32_t k = 0; k < n_density; ++k, ++p) {
        means[p] = mean_rows.data() + (std::size_t(senone) * n_model_density + k) * veclen;
        precisions[p] = pair_precision.data() + (std::size_t(senone) * n_model_density + k) * veclen;
        log_norms[p] = model.LogNorm(senone, k);
      }
    }
  }
  std::vector<double> log_dens(n_pairs), want(n_pairs);
  // Bit-identical to the one-at-a-time loop (checked for every frame, outside the timing).
  for (std::uint32_t t = 0, senone = 0; t < kFrames; ++t) {
    const float* x = c.frames.data() + std::size_t(t) * veclen;
    kernels->pair_distances(x, means.data() + t * n_pairs, precisions.data() + t * n_pairs, veclen, n_pairs,
                            log_dens.data());
    for (std::uint32_t i = 0; i < senones_per_frame; ++i, senone = (senone + 7) % n_senones) {
      EvaluateSenoneLogDensities(model, senone, x, want.data() + std::size_t(i) * n_density);
    }
    for (std::size_t p = 0; p < n_pairs; ++p) {
      if (std::bit_cast<std::uint64_t>(log_norms[t * n_pairs + p] - log_dens[p]) != std::bit_cast<std::uint64_t>(want[p])) {
        state.SkipWithError("pair and one-at-a-time log densities differ");
        return;
      }
    }
  }
  std::uint32_t frame = 0;
#if defined(__x86_64__)
  const std::uint64_t tsc_start = __rdtsc();
#endif
  for (auto _ : state) {
    const float* x = c.frames.data() + std::size_t(frame) * veclen;
    const std::size_t first = std::size_t(frame) * n_pairs;
    kernels->pair_distances(x, means.data() + first, precisions.data() + first, veclen, n_pairs, log_dens.data());
    for (std::size_t p = 0; p < n_pairs; ++p) log_dens[p] = log_norms[first + p] - log_dens[p];
    benchmark::DoNotOptimize(log_dens.data());
    benchmark::ClobberMemory();
    if (++frame == kFrames) frame = 0;
  }
#if defined(__x86_64__)
  const std::uint64_t tsc_ticks = __rdtsc() - tsc_start;
  const double flops = static_cast<double>(state.iterations()) * static_cast<double>(n_pairs) * (4.0 * veclen + 1.0);
  if (tsc_ticks > 0) state.counters["flops_per_cycle"] = flops / static_cast<double>(tsc_ticks);
#endif
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n_pairs));
  state.counters["dims"] = veclen;
  state.counters["per_density"] = benchmark::Counter(static_cast<double>(n_pairs),
                                                     benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

BENCHMARK_TEMPLATE(BM_GaussianLogDensity, false)->Name("BM_GaussianLogDensity")->ArgName("densities")->Arg(1)->Arg(8)->Arg(16);
BENCHMARK_TEMPLATE(BM_GaussianLogDensity, true)
    ->Name("BM_GaussianLogDensityGrouped")
    ->ArgNames({"isa", "densities"})
    ->ArgsProduct({{0, 1, 2, 3}, {8, 12, 16}});
BENCHMARK(BM_GaussianLogDensityPairs)
    ->ArgNames({"isa", "densities", "senones"})
    ->ArgsProduct({{0, 1, 2, 3}, {1}, {4, 7, 10, 16}})
    ->ArgsProduct({{0, 1, 2, 3}, {8}, {16}});

}  // namespace
}  // namespace pstrain::bench
