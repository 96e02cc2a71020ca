// The vector kernels of the instruction-set level a benchmark argument names (0 scalar, 1 sse2,
// 2 avx2, 3 avx512 on x86-64), or nullptr after SkipWithError when this CPU lacks the level.
#pragma once

#include <benchmark/benchmark.h>

#include <string>

#include "numerics/isa.h"
#include "numerics/vector_kernels.h"

namespace pstrain::bench {

inline const numerics::VectorKernels* KernelsOrSkip(benchmark::State& state, long level_arg) {
  const auto level = static_cast<numerics::IsaLevel>(level_arg);
  for (const numerics::IsaLevel have : numerics::SupportedIsaLevels()) {
    if (have != level) continue;
    state.SetLabel(std::string(numerics::IsaName(level)));
    return &numerics::KernelsFor(level);
  }
  state.SkipWithError((std::string(numerics::IsaName(level)) + ": not supported by this CPU").c_str());
  return nullptr;
}

}  // namespace pstrain::bench
