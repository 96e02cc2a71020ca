// The sse2 level: the vector kernels on 2 lanes of double.
// This file is compiled for the sse2 instruction set (trainer/CMakeLists.txt) and is only called
// after ActiveIsaLevel() has found sse2 on the CPU.
#include <cstddef>
#include <cstdint>

#include "numerics/elementary_constants.h"
#include "numerics/kernel_entries.h"

#define PSTRAIN_LANES 2
namespace pstrain::numerics::sse2 {
#include "numerics/kernels_level.inc"
}  // namespace pstrain::numerics::sse2
#undef PSTRAIN_LANES
