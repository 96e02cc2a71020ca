// The avx2 level: the vector kernels on 4 lanes of double.
// This file is compiled for the avx2 instruction set (trainer/CMakeLists.txt) and is only called
// after ActiveIsaLevel() has found avx2 on the CPU.
#include <cstddef>
#include <cstdint>

#include <immintrin.h>  // the gather (lanes_vector.inc Gather)

#include "numerics/elementary_constants.h"
#include "numerics/kernel_entries.h"

#define PSTRAIN_LANES 4
namespace pstrain::numerics::avx2 {
#include "numerics/kernels_level.inc"
}  // namespace pstrain::numerics::avx2
#undef PSTRAIN_LANES
