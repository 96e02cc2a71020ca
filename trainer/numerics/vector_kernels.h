// The vector kernels of the E-step, one implementation per instruction-set level (numerics/isa.h),
// chosen at run time. Every implementation performs, lane by lane, exactly the operations of the
// scalar one in the same order (no FMA, no reassociation, no approximate reciprocal), so all levels
// give bit-identical results; VectorKernels.EveryLevelGivesTheScalarBits and
// VectorKernels.GroupsOfEightGiveTheOneDensityBits check that on every level the CPU has
// (tests/trainer/numerics/elementary_numerics_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "numerics/isa.h"

namespace pstrain::numerics {

struct VectorKernels {
  IsaLevel level;
  // out[i] = Exp(in[i] - shift) for i < n (in and out may be the same array).
  void (*exp_shifted)(const double* in, double shift, double* out, std::size_t n);
  // out[i] = Log(in[i]) for i < n (in and out may be the same array).
  void (*log)(const double* in, double* out, std::size_t n);
  // n frames' Gaussian statistics of one density, frame f with posterior gammas[f] at features
  // xs[f], added one after another (f = 0, 1, ..., n - 1, whatever frames they are); for each
  // frame and l < veclen:
  //   mean[l] += gamma * x[l];  var[l] += (gamma * x[l]) * x[l]            (input_mean == nullptr)
  //   mean[l] += gamma * x[l];  var[l] += (gamma * d) * d, d = x[l] - input_mean[l] (in double)
  // Each element gets its n additions in that order, so the bits are those of n calls of one
  // frame each. The vector levels hold a few chunks of the sums in registers across the frames:
  // each sum is loaded and stored once per call, not once per frame.
  // With `fresh`, the sums start from zero: mean and var are written without being read, the first
  // frame's addition to each being 0.0 + the product (so a product of -0.0 gives +0.0, as its
  // addition to a zeroed sum does): the same bits as zeroing them first. The vector levels start
  // from zero lanes (no zeroing stores, no reloads); the scalar level zeroes the sums, then adds.
  // n >= 1.
  void (*accumulate_frames)(const double* gammas, const float* const* xs, std::size_t n, const float* input_mean, double* mean,
                            double* var, std::uint32_t veclen, bool fresh);
  // Squared Mahalanobis distances of groups of 4 densities laid out dimension-major:
  // for g < n_groups, j < 4: dist[4g + j] = sum over l < veclen, in order, of
  //   p * d * d,  d = double(float(x[l] - mean[(g veclen + l) 4 + j])),  p = precision[(g veclen + l) 4 + j]
  // (the float32 difference promoted to double, (p * d) * d, added in dimension order: SphinxTrain's
  // arithmetic, forward_backward/gaussian_eval.h). The precisions are the model's float32 values
  // held as double (exact), so no lane converts them.
  void (*grouped_distances)(const float* x, const float* mean, const double* precision, std::uint32_t veclen,
                            std::uint32_t n_groups, double* dist);
  // The same distances for groups of 8 densities laid out dimension-major [dim][8] (the layout of a
  // model with a multiple of 8 densities a senone, AcousticModel::grouped_width), group g starting
  // group_stride values after group g - 1 (veclen * 8 for a senone's own groups; any distance, even
  // negative, for groups of different senones): for g < n_groups, j < 8: dist[8g + j] = sum over
  // l < veclen, in order, of
  //   p * d * d,  d = double(float(x[l] - mean[g group_stride + 8 l + j])),  p = precision[g group_stride + 8 l + j].
  // The avx512 level holds a group in one register of 8 lanes (a dimension's 8 means and 8
  // precisions are one load each), two groups at a time; the narrower levels take a group as its
  // two halves of 4.
  void (*grouped8_distances)(const float* x, const float* mean, const double* precision, std::uint32_t veclen,
                             std::uint32_t n_groups, std::ptrdiff_t group_stride, double* dist);
  // The same distance for n single densities anywhere in memory (densities evaluated one at a time:
  // fewer than 4 per senone, or top-n): for i < n, dist[i] = sum over l < veclen, in order, of
  //   p * d * d,  d = double(float(x[l] - means[i][l])),  p = precisions[i][l]
  // (EvaluateLogDensity's arithmetic, forward_backward/gaussian_eval.h, when the precisions are the
  // model's float32 values held as double: AcousticModel::PairPrecision).
  void (*pair_distances)(const float* x, const float* const* means, const double* const* precisions, std::uint32_t veclen,
                         std::size_t n, double* dist);
  // The common case of the exact accumulation (accumulators/exact_sum.h): for i < n in order,
  // acc[i] += ToFixed(values[i]) with acc n signed 128-bit little-endian integers (2n 64-bit words,
  // low word first), in chunks of the level's lanes. Only chunks where nothing can fail are done
  // (every |value| < 2^32, every accumulator |acc| < 2^126); the return value is the index of the
  // first element of the first chunk not done (n when all are), which the caller must take through
  // ToFixed + AddFixed (one element) before calling again. The scalar and sse2 levels do none
  // (return 0): sse2 lacks per-lane 64-bit shifts, and emulating them is slower than the reference.
  std::size_t (*add_fixed)(const double* values, std::size_t n, std::uint64_t* acc);
  // The carry-save form of the exact accumulation (accumulators/carry_save_sums.h): for i < n in
  // order, with F = ToFixed(values[i]) written F = H * 2^48 + Lo, |H| <= 2^48, |Lo| <= 2^47:
  //   hi[i] += H;  lo[i] += Lo   (plain 64-bit additions; the caller bounds how many a limb gets).
  // Only chunks of the level's lanes where every |value| < 2^32 are done (so not NaN or infinity);
  // the return value is the index of the first element of the first chunk not done (n when all
  // are), which the caller must take through the reference path (one element) before calling
  // again. Every level, scalar included, does the same additions (the split of F may differ only
  // in how H and Lo share F; all levels here split the same way).
  std::size_t (*add_split)(const double* values, std::size_t n, std::int64_t* hi, std::int64_t* lo);
};

// The kernels of one level (the level must be in BuildIsaLevels(); the caller checks the CPU).
const VectorKernels& KernelsFor(IsaLevel level);
// The kernels of ActiveIsaLevel().
const VectorKernels& ActiveKernels();

}  // namespace pstrain::numerics
