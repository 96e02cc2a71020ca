// The sse2 level: the vector kernels on 2 lanes of double.
// This file is compiled for the sse2 instruction set (trainer/CMakeLists.txt) and is only called
// after ActiveIsaLevel() has found sse2 on the CPU.
#include <cstddef>
#include <cstdint>

#include "numerics/elementary_constants.h"
#include "numerics/kernel_entries.h"

#define PSTRAIN_LANES 2
// SSE2 has no per-lane 64-bit shifts or 64-bit compares: the add_fixed lanes would be emulated and
// measured 4x slower than the scalar reference (bench/exact_bench.cpp), so this level hands every
// value back to it, as the scalar level does.
#define PSTRAIN_ADD_FIXED_BY_REFERENCE
namespace pstrain::numerics::sse2 {
#include "numerics/kernels_level.inc"
}  // namespace pstrain::numerics::sse2
#undef PSTRAIN_ADD_FIXED_BY_REFERENCE
#undef PSTRAIN_LANES
