// The avx512 level: the vector kernels on 8 lanes of double (groups of 8 densities: a group in one
// register), but for the density distances of groups of 4 and of single densities, which are
// avx2's (vector_kernels.cpp). Those two work on 4 lanes in both levels, from the same source, and
// compiled for AVX-512 they were slower: with 32 vector registers GCC 12 keeps the kernel's 16 row
// pointers in vector registers and moves each back to a general register before its load (150
// vmovq in PairDistances), where the AVX2 build reloads them from the stack
// (BM_GaussianLogDensityPairs/densities:8 1,483 against 1,425 ns on a Zen 4; docs/performance.md,
// twenty-first round). The same operations in the same order either way, so the same bits.
// This file is compiled for the avx512 instruction set (trainer/CMakeLists.txt) and is only called
// after ActiveIsaLevel() has found avx512 on the CPU.
#include <cstddef>
#include <cstdint>

#include <immintrin.h>  // exp's table lookup and clamp, the masked tails (lanes_vector.inc)

#include "numerics/elementary_constants.h"
#include "numerics/kernel_entries.h"

#define PSTRAIN_LANES 8
#define PSTRAIN_DISTANCES_OF_AVX2
namespace pstrain::numerics::avx512 {
#include "numerics/kernels_level.inc"
}  // namespace pstrain::numerics::avx512
#undef PSTRAIN_DISTANCES_OF_AVX2
#undef PSTRAIN_LANES
