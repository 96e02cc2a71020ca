// The avx512 level: the vector kernels on 8 lanes of double (the density distances on 4 lanes).
// This file is compiled for the avx512 instruction set (trainer/CMakeLists.txt) and is only called
// after ActiveIsaLevel() has found avx512 on the CPU.
#include <cstddef>
#include <cstdint>

#include <immintrin.h>  // the gather and masked tails (lanes_vector.inc)

#include "numerics/elementary_constants.h"
#include "numerics/kernel_entries.h"

#define PSTRAIN_LANES 8
namespace pstrain::numerics::avx512 {
#include "numerics/kernels_level.inc"
}  // namespace pstrain::numerics::avx512
#undef PSTRAIN_LANES
