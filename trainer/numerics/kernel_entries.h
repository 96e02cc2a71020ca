// The per-level kernel entry points (internal to numerics/: use vector_kernels.h). Each level's
// functions live in their own translation unit, compiled for that level's instruction set.
#pragma once

#include <cstddef>
#include <cstdint>

#define PSTRAIN_DECLARE_KERNELS(ns)                                                                 \
  namespace pstrain::numerics::ns {                                                                 \
  void ExpShifted(const double* in, double shift, double* out, std::size_t n);                     \
  void LogArray(const double* in, double* out, std::size_t n);                                      \
  void AccumulateFrames(const double* gammas, const float* const* xs, std::size_t n, const float* input_mean, \
                        double* mean, double* var, std::uint32_t veclen, bool fresh);                \
  std::size_t AddFixed(const double* values, std::size_t n, std::uint64_t* acc);                   \
  std::size_t AddSplit(const double* values, std::size_t n, std::int64_t* hi, std::int64_t* lo);   \
  void Grouped8Distances(const float* x, const float* mean, const double* precision, std::uint32_t veclen, \
                         std::uint32_t n_groups, std::ptrdiff_t group_stride, double* dist);         \
  }
#define PSTRAIN_DECLARE_DISTANCE_KERNELS(ns)                                                        \
  namespace pstrain::numerics::ns {                                                                 \
  void GroupedDistances(const float* x, const float* mean, const double* precision, std::uint32_t veclen, \
                        std::uint32_t n_groups, double* dist);                                       \
  void PairDistances(const float* x, const float* const* means, const double* const* precisions,      \
                     std::uint32_t veclen, std::size_t n, double* dist);                              \
  }

PSTRAIN_DECLARE_KERNELS(scalar)
PSTRAIN_DECLARE_DISTANCE_KERNELS(scalar)
#if defined(__x86_64__)
PSTRAIN_DECLARE_KERNELS(sse2)
PSTRAIN_DECLARE_DISTANCE_KERNELS(sse2)
PSTRAIN_DECLARE_KERNELS(avx2)
PSTRAIN_DECLARE_DISTANCE_KERNELS(avx2)
// The avx512 level has no distance kernels of its own but Grouped8Distances (declared with the
// others above): it takes avx2's for groups of 4 and single densities (kernels_avx512.cpp).
PSTRAIN_DECLARE_KERNELS(avx512)
#elif defined(__aarch64__)
PSTRAIN_DECLARE_KERNELS(neon)
PSTRAIN_DECLARE_DISTANCE_KERNELS(neon)
#endif

#undef PSTRAIN_DECLARE_KERNELS
#undef PSTRAIN_DECLARE_DISTANCE_KERNELS
