// The levels' add_split kernel (numerics/vector_kernels.h), the carry-save form of the exact
// accumulation, against the reference conversion (accumulators/exact_sum.h ToFixed): on every
// level this CPU has, each value it takes adds exactly ToFixed(value) = H * 2^48 + Lo to the limbs,
// with |H| <= 2^48 and |Lo| <= 2^47 (the bound carry_save_sums.h relies on); the chunk it stops at
// is left untouched and contains a value with |value| >= 2^32 or not finite.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "accumulators/exact_sum.h"
#include "numerics/isa.h"
#include "numerics/vector_kernels.h"

namespace pstrain {
namespace {

constexpr std::int64_t kLimbBound = std::int64_t{1} << 48;

FixedPoint Limbs(std::int64_t hi, std::int64_t lo) {
  return static_cast<FixedPoint>(static_cast<UnsignedFixedPoint>(static_cast<FixedPoint>(hi)) << 48) + lo;
}

// Values across the range: ties at 2^-64, a fraction that rounds up to 2^48 (the carry into the
// next limb unit), subnormals, signed zeros, both sides of the 2^32 limit, NaN and infinity.
std::vector<double> MixedValues(std::uint32_t seed, std::size_t n, bool with_slow) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-130, 33);
  std::uniform_int_distribution<std::int64_t> odd(1, (std::int64_t{1} << 52) - 1);
  std::uniform_int_distribution<int> kind(0, 13);
  std::vector<double> values(n);
  for (double& v : values) {
    const double sign = mantissa(rng) < 0 ? -1.0 : 1.0;
    switch (kind(rng)) {
      case 0: v = 0.0; break;
      case 1: v = -0.0; break;
      case 2: v = sign * std::ldexp(static_cast<double>(odd(rng) | 1), exponent(rng) - 52); break;  // ties
      case 3: v = sign * std::ldexp(mantissa(rng), 32); break;  // below the limit (|mantissa| < 1)
      case 4: v = sign * std::ldexp(1.0, -1074) * static_cast<double>(kind(rng) + 1); break;  // subnormal
      case 5: v = sign * std::nextafter(4294967296.0, 0.0); break;  // the largest value the limbs take
      case 6: v = sign * (std::ldexp(1.0, -12) - std::ldexp(1.0, -65)); break;  // r * 2^48 = -1/2: a tie
      case 7: v = sign * std::ldexp(3.0, -66); break;  // 0.75 * 2^-64: rounds to 1
      case 8: v = sign * std::ldexp(1.0, -65); break;  // 0.5 * 2^-64: rounds to 0 (even)
      case 9:
        if (with_slow) {
          const double slow[] = {4294967296.0, std::ldexp(1.0, 62), std::numeric_limits<double>::infinity(),
                                 std::numeric_limits<double>::quiet_NaN()};
          v = sign * slow[static_cast<std::size_t>(kind(rng)) % 4];
          break;
        }
        [[fallthrough]];
      default: v = std::ldexp(mantissa(rng), exponent(rng)); break;
    }
  }
  return values;
}

TEST(AddSplitKernel, AddsToFixedOnEveryLevel) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> start(-(std::int64_t{1} << 62), std::int64_t{1} << 62);
  for (numerics::IsaLevel level : numerics::SupportedIsaLevels()) {
    const numerics::VectorKernels& kernels = numerics::KernelsFor(level);
    std::size_t taken = 0, stopped = 0;
    for (std::uint32_t seed = 1; seed <= 60; ++seed) {
      for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{7}, std::size_t{39}, std::size_t{100}}) {
        const std::vector<double> values = MixedValues(seed * 131 + static_cast<std::uint32_t>(n), n, seed % 3 == 0);
        std::vector<std::int64_t> hi(n), lo(n);
        for (std::size_t i = 0; i < n; ++i) {
          hi[i] = start(rng);
          lo[i] = start(rng);
        }
        const std::vector<std::int64_t> hi0 = hi, lo0 = lo;
        std::size_t i = 0;
        while (i < n) {
          const std::size_t done = i + kernels.add_split(values.data() + i, n - i, hi.data() + i, lo.data() + i);
          for (; i < done; ++i) {
            const std::int64_t dh = hi[i] - hi0[i], dl = lo[i] - lo0[i];
            ASSERT_LE(std::abs(dh), kLimbBound) << numerics::IsaName(level) << " value " << std::hexfloat << values[i];
            ASSERT_LE(std::abs(dl), kLimbBound / 2) << numerics::IsaName(level) << " value " << std::hexfloat << values[i];
            ASSERT_TRUE(Limbs(dh, dl) == ToFixed(values[i], "x"))
                << numerics::IsaName(level) << " seed " << seed << " element " << i << " value " << std::hexfloat << values[i]
                << ": " << FixedToHex(Limbs(dh, dl)) << " != " << FixedToHex(ToFixed(values[i], "x"));
            ++taken;
          }
          if (i == n) break;
          // Stopped: the chunk from i on is untouched, and one of its values is not for the limbs.
          bool has_slow = false;
          for (std::size_t k = i; k < n; ++k) {
            ASSERT_EQ(hi[k], hi0[k]);
            ASSERT_EQ(lo[k], lo0[k]);
          }
          for (std::size_t k = i; k < n && k < i + 8; ++k) has_slow |= !(std::fabs(values[k]) < 4294967296.0);
          ASSERT_TRUE(has_slow) << numerics::IsaName(level) << " stopped at " << i << " with only ordinary values";
          ++stopped;
          ++i;  // the caller's reference path takes this element
        }
      }
    }
    EXPECT_GT(taken, 1000u) << numerics::IsaName(level);
    EXPECT_GT(stopped, 10u) << numerics::IsaName(level);
  }
}

// Exact at the extremes of the split: the largest magnitude, and a fraction 2^-49 below an integer
// t (a tie of the low limb at 2^48 * r = -1/2).
TEST(AddSplitKernel, ExtremeValues) {
  const double largest = std::nextafter(4294967296.0, 0.0);
  const double carry = std::ldexp(1.0, -12) - std::ldexp(1.0, -65);
  for (numerics::IsaLevel level : numerics::SupportedIsaLevels()) {
    const std::vector<double> values = {largest, -largest, carry, -carry, 1.0, -1.0, 0.75, -0.0};
    std::vector<std::int64_t> hi(values.size(), 0), lo(values.size(), 0);
    ASSERT_EQ(numerics::KernelsFor(level).add_split(values.data(), values.size(), hi.data(), lo.data()), values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      EXPECT_TRUE(Limbs(hi[i], lo[i]) == ToFixed(values[i], "x")) << numerics::IsaName(level) << " " << std::hexfloat << values[i];
    }
    // The largest value: t = 2^48 - 2^-5 rounds up to H = 2^48, Lo = -2^43 (the limbs' extreme).
    EXPECT_EQ(hi[0], kLimbBound) << numerics::IsaName(level);
    EXPECT_EQ(lo[0], -(std::int64_t{1} << 43)) << numerics::IsaName(level);
    EXPECT_EQ(hi[1], -kLimbBound) << numerics::IsaName(level);
  }
}

}  // namespace
}  // namespace pstrain
