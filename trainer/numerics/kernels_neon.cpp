// The neon level: the vector kernels on 2 lanes of double.
// This file is compiled for the neon instruction set (trainer/CMakeLists.txt) and is only called
// after ActiveIsaLevel() has found neon on the CPU.
#include <cstddef>
#include <cstdint>

#include "numerics/elementary_constants.h"
#include "numerics/kernel_entries.h"

#define PSTRAIN_LANES 2
namespace pstrain::numerics::neon {
#include "numerics/kernels_level.inc"
}  // namespace pstrain::numerics::neon
#undef PSTRAIN_LANES
