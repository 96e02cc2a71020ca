// The project's exp and log (numerics/elementary.h) against glibc's, and the vector exp of each
// instruction-set level (numerics/vector_kernels.h), on the inputs the E-step gives them: exp of log
// densities minus the frame scale (in [-60, 10]), log of per-frame scale factors (in [1e-30, 1e30]).
//
//   BM_Exp/impl:0   numerics::Exp, one call at a time      BM_Exp/impl:1   glibc's exp
//   BM_Log/impl:0   numerics::Log                          BM_Log/impl:1   glibc's log
//   BM_ExpShifted/isa:L  the vector exp of level L over 1,024 values (0 scalar, 1 sse2, 2 avx2,
//                        3 avx512; a level the CPU lacks is skipped with the reason)
//   BM_LogArray/isa:L    the vector log of level L over 1,024 values
//   BM_ExpShiftedRuns/isa:L/run:N  the vector exp over the same values in calls of N (a frame's
//                        densities: a 1-Gaussian model's frame has a few dozen, so the tail counts)
//
// items_per_second = calls (values) per second. glibc is called here only to be measured: the
// trainer never calls it (tests/trainer/numerics/portable_numerics_integration_test.cpp).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "isa_util.h"
#include "numerics/elementary.h"
#include "numerics/isa.h"
#include "numerics/vector_kernels.h"

namespace pstrain::bench {
namespace {

constexpr std::size_t kValues = 1024;

std::vector<double> Inputs(double lo, double hi, bool log_uniform) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> values(kValues);
  for (double& v : values) v = log_uniform ? std::pow(10.0, dist(rng)) : dist(rng);
  return values;
}

template <double (*kOurs)(double), double (*kGlibc)(double)>
void RunScalar(benchmark::State& state, const std::vector<double>& in) {
  std::vector<double> out(in.size());
  const bool glibc = state.range(0) == 1;
  state.SetLabel(glibc ? "glibc" : "pstrain");
  for (auto _ : state) {
    if (glibc) {
      for (std::size_t i = 0; i < in.size(); ++i) out[i] = kGlibc(in[i]);
    } else {
      for (std::size_t i = 0; i < in.size(); ++i) out[i] = kOurs(in[i]);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(in.size()));
}

double GlibcExp(double x) { return std::exp(x); }
double GlibcLog(double x) { return std::log(x); }

void BM_Exp(benchmark::State& state) { RunScalar<numerics::Exp, GlibcExp>(state, Inputs(-60.0, 10.0, false)); }
void BM_Log(benchmark::State& state) { RunScalar<numerics::Log, GlibcLog>(state, Inputs(-30.0, 30.0, true)); }
BENCHMARK(BM_Exp)->ArgName("impl")->Arg(0)->Arg(1);
BENCHMARK(BM_Log)->ArgName("impl")->Arg(0)->Arg(1);

void BM_ExpShifted(benchmark::State& state) {
  const numerics::VectorKernels* kernels_ptr = KernelsOrSkip(state, state.range(0));
  if (kernels_ptr == nullptr) return;
  const numerics::VectorKernels& kernels = *kernels_ptr;
  const std::vector<double> in = Inputs(-50.0, 20.0, false);
  std::vector<double> out(in.size());
  for (auto _ : state) {
    kernels.exp_shifted(in.data(), 10.0, out.data(), in.size());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(in.size()));
}
BENCHMARK(BM_ExpShifted)->ArgName("isa")->Arg(0)->Arg(1)->Arg(2)->Arg(3);

void BM_ExpShiftedRuns(benchmark::State& state) {
  const numerics::VectorKernels* kernels_ptr = KernelsOrSkip(state, state.range(0));
  if (kernels_ptr == nullptr) return;
  const numerics::VectorKernels& kernels = *kernels_ptr;
  const std::size_t run = static_cast<std::size_t>(state.range(1));
  const std::vector<double> in = Inputs(-50.0, 20.0, false);
  const std::size_t runs = in.size() / run;
  std::vector<double> out(in.size());
  for (auto _ : state) {
    for (std::size_t r = 0; r < runs; ++r) kernels.exp_shifted(in.data() + r * run, 10.0, out.data() + r * run, run);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(runs * run));
}
BENCHMARK(BM_ExpShiftedRuns)->ArgNames({"isa", "run"})->ArgsProduct({{0, 1, 2, 3}, {5, 41}});

void BM_LogArray(benchmark::State& state) {
  const numerics::VectorKernels* kernels_ptr = KernelsOrSkip(state, state.range(0));
  if (kernels_ptr == nullptr) return;
  const numerics::VectorKernels& kernels = *kernels_ptr;
  const std::vector<double> in = Inputs(-30.0, 30.0, true);
  std::vector<double> out(in.size());
  for (auto _ : state) {
    kernels.log(in.data(), out.data(), in.size());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(in.size()));
}
BENCHMARK(BM_LogArray)->ArgName("isa")->Arg(0)->Arg(1)->Arg(2)->Arg(3);

}  // namespace
}  // namespace pstrain::bench
