// The scalar level: Exp and Log, and the scalar kernels (one lane; compiled without
// auto-vectorization, so "scalar" really is scalar code).
#include "numerics/elementary.h"

#include <bit>
#include <cstdint>

#include "numerics/elementary_constants.h"
#include "numerics/kernel_entries.h"

namespace pstrain::numerics {
namespace {

using D = double;
using L = std::int64_t;

inline D Splat(double v) { return v; }
inline L SplatL(std::int64_t v) { return v; }
inline L Bits(D v) { return __builtin_bit_cast(L, v); }
inline D FromBits(L v) { return __builtin_bit_cast(D, v); }
inline L MaskLt(D a, D b) { return -static_cast<L>(a < b); }
inline L MaskGt(D a, D b) { return -static_cast<L>(a > b); }
inline L MaskEq(D a, D b) { return -static_cast<L>(a == b); }
inline D Select(L mask, D a, D b) { return mask != 0 ? a : b; }  // exact either way
inline D Clamp(D x, double lo, double hi) {
  x = x > hi ? hi : x;
  return x < lo ? lo : x;
}
inline void Exp2Entries(L j, D& hi, D& lo) {
  hi = constants::kExp2Table[2 * j];
  lo = constants::kExp2Table[2 * j + 1];
}

#include "numerics/elementary_lanes.inc"

}  // namespace

double Exp(double x) { return ExpLanes(x); }
double Log(double x) { return LogLanes(x); }

namespace scalar {

void ExpShifted(const double* in, double shift, double* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = ExpLanes(in[i] - shift);
}

void LogArray(const double* in, double* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = LogLanes(in[i]);
}

void AccumulateFrames(const double* gammas, const float* const* xs, std::size_t n, const float* input_mean, double* mean,
                      double* var, std::uint32_t veclen, bool fresh) {
  if (fresh) {
    for (std::uint32_t l = 0; l < veclen; ++l) mean[l] = var[l] = 0.0;
  }
  for (std::size_t f = 0; f < n; ++f) {
    const double gamma = gammas[f];
    const float* x = xs[f];
    if (input_mean != nullptr) {
      for (std::uint32_t l = 0; l < veclen; ++l) {
        mean[l] += gamma * x[l];
        const double diff = double(x[l]) - double(input_mean[l]);
        var[l] += gamma * diff * diff;
      }
    } else {
      for (std::uint32_t l = 0; l < veclen; ++l) {
        const double xl = x[l];
        mean[l] += gamma * xl;
        var[l] += gamma * xl * xl;
      }
    }
  }
}

void GroupedDistances(const float* x, const float* mean, const double* precision, std::uint32_t veclen,
                      std::uint32_t n_groups, double* dist) {
  for (std::uint32_t g = 0; g < n_groups; ++g, dist += 4) {
    double d0 = 0.0, d1 = 0.0, d2 = 0.0, d3 = 0.0;
    for (std::uint32_t l = 0; l < veclen; ++l, mean += 4, precision += 4) {
      const float xl = x[l];
      const double e0 = xl - mean[0], e1 = xl - mean[1], e2 = xl - mean[2], e3 = xl - mean[3];
      d0 += precision[0] * e0 * e0;
      d1 += precision[1] * e1 * e1;
      d2 += precision[2] * e2 * e2;
      d3 += precision[3] * e3 * e3;
    }
    dist[0] = d0;
    dist[1] = d1;
    dist[2] = d2;
    dist[3] = d3;
  }
}

void Grouped8Distances(const float* x, const float* mean, const double* precision, std::uint32_t veclen,
                       std::uint32_t n_groups, std::ptrdiff_t group_stride, double* dist) {
  for (std::uint32_t g = 0; g < n_groups; ++g, dist += 8, mean += group_stride, precision += group_stride) {
    double d[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    for (std::uint32_t l = 0; l < veclen; ++l) {
      const float xl = x[l];
      for (int j = 0; j < 8; ++j) {
        const double e = xl - mean[8 * l + j];  // the float32 difference, widened
        d[j] += precision[8 * l + j] * e * e;
      }
    }
    for (int j = 0; j < 8; ++j) dist[j] = d[j];
  }
}

void PairDistances(const float* x, const float* const* means, const double* const* precisions, std::uint32_t veclen,
                   std::size_t n, double* dist) {
  for (std::size_t i = 0; i < n; ++i) {
    double d = 0.0;
    for (std::uint32_t l = 0; l < veclen; ++l) {
      const double e = x[l] - means[i][l];
      d += precisions[i][l] * e * e;
    }
    dist[i] = d;
  }
}

// The scalar level takes no fast path: every value goes through the reference conversion
// (accumulators/exact_sum.h ToFixed + AddFixed), which is what the vector levels must match.
std::size_t AddFixed(const double*, std::size_t, std::uint64_t*) { return 0; }

// The carry-save conversion of split_lanes.inc, one value at a time (the same exact double steps).
std::size_t AddSplit(const double* values, std::size_t n, std::int64_t* hi, std::int64_t* lo) {
  constexpr double kMagic = 6755399441055744.0;  // 1.5 * 2^52
  const std::int64_t magic_bits = std::bit_cast<std::int64_t>(kMagic);
  for (std::size_t i = 0; i < n; ++i) {
    const double v = values[i];
    if (!(v < 4294967296.0 && v > -4294967296.0)) return i;  // |value| >= 2^32, infinity or NaN
    const double t = v * 65536.0;
    const double s = t + kMagic;
    const double r = t - (s - kMagic);
    hi[i] += std::bit_cast<std::int64_t>(s) - magic_bits;
    lo[i] += std::bit_cast<std::int64_t>(r * 281474976710656.0 + kMagic) - magic_bits;
  }
  return n;
}

}  // namespace scalar
}  // namespace pstrain::numerics
