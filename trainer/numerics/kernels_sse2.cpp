// The sse2 level: the vector kernels on 2 lanes of double.
// This file is compiled for the sse2 instruction set (trainer/CMakeLists.txt) and is only called
// after ActiveIsaLevel() has found sse2 on the CPU.
#include <cstddef>
#include <cstdint>

#include "numerics/elementary_constants.h"
#include "numerics/kernel_entries.h"

namespace pstrain::numerics::sse2 {
namespace {
#define PSTRAIN_LANES 2
#include "numerics/lanes_vector.inc"
#undef PSTRAIN_LANES
}  // namespace

void ExpShifted(const double* in, double shift, double* out, std::size_t n) { ExpShiftedLanes(in, shift, out, n); }

void LogArray(const double* in, double* out, std::size_t n) { LogArrayLanes(in, out, n); }

void AccumulateFrame(double gamma, const float* x, const float* input_mean, double* mean, double* var,
                     std::uint32_t veclen) {
  AccumulateFrameLanes(gamma, x, input_mean, mean, var, veclen);
}

void GroupedDistances(const float* x, const float* mean, const float* precision, std::uint32_t veclen,
                      std::uint32_t n_groups, double* dist) {
  GroupedDistancesLanes(x, mean, precision, veclen, n_groups, dist);
}

}  // namespace pstrain::numerics::sse2
