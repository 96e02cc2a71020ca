// The exact accumulator is what makes sharded training independent of the shard count: the same
// values summed in any grouping and order give identical bits; out-of-range values and overflow
// are errors, never a silent wrap.
#include "accumulators/exact_sum.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <random>
#include <vector>

#include "common/error.h"

namespace pstrain {
namespace {

std::vector<double> WideRangeValues(std::uint32_t seed, std::size_t n) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-40, 40);
  std::vector<double> values(n);
  for (double& v : values) v = std::ldexp(mantissa(rng), exponent(rng));
  return values;
}

TEST(ExactSumTest, AnyGroupingAndOrderGivesIdenticalBits) {
  const std::vector<double> values = WideRangeValues(7, 5000);
  ExactSum serial;
  for (double v : values) serial.Add(v, "test");
  // Contiguous shards of several counts, summed per shard and then reduced in both orders.
  for (std::size_t shards : {2u, 3u, 7u, 64u}) {
    SCOPED_TRACE(shards);
    std::vector<ExactSum> partial(shards);
    for (std::size_t s = 0; s < shards; ++s) {
      for (std::size_t i = s * values.size() / shards; i < (s + 1) * values.size() / shards; ++i) partial[s].Add(values[i], "test");
    }
    ExactSum forward, backward;
    for (std::size_t s = 0; s < shards; ++s) forward.Add(partial[s], "test");
    for (std::size_t s = shards; s-- > 0;) backward.Add(partial[s], "test");
    EXPECT_EQ(forward.fixed(), serial.fixed());
    EXPECT_EQ(backward.fixed(), serial.fixed());
  }
  // A shuffled order too.
  std::vector<double> shuffled = values;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(3));
  ExactSum shuffled_sum;
  for (double v : shuffled) shuffled_sum.Add(v, "test");
  EXPECT_EQ(shuffled_sum.fixed(), serial.fixed());
  // ...whereas plain double summation does depend on the order (what the exact form avoids).
  double plain = 0.0, plain_shuffled = 0.0;
  for (double v : values) plain += v;
  for (double v : shuffled) plain_shuffled += v;
  EXPECT_NE(plain, plain_shuffled);
  EXPECT_NEAR(serial.value(), plain, 1e-9 * std::fabs(plain) + 1e-9);
}

TEST(ExactSumTest, RoundsToTwoToTheMinus64) {
  EXPECT_EQ(ToFixed(1.0, "x"), FixedPoint(1) << 64);
  EXPECT_EQ(ToFixed(-0.5, "x"), -(FixedPoint(1) << 63));
  EXPECT_EQ(ToFixed(std::ldexp(1.0, -64), "x"), FixedPoint(1));
  EXPECT_EQ(ToFixed(std::ldexp(1.0, -66), "x"), FixedPoint(0));  // below resolution: rounds to 0
  EXPECT_EQ(ToFixed(std::ldexp(3.0, -65), "x"), FixedPoint(2));   // 1.5 ulp: ties to even
  EXPECT_EQ(FromFixed(ToFixed(1234.5678, "x")), 1234.5678);
}

// ToFixed converts through two 64-bit halves; it must equal the compiler's exact conversion.
TEST(ExactSumTest, FastConversionEqualsTheReferenceConversion) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-70, 62);
  for (int i = 0; i < 200000; ++i) {
    const double v = std::ldexp(mantissa(rng), exponent(rng));
    const FixedPoint reference = static_cast<FixedPoint>(std::rint(v * 18446744073709551616.0));
    ASSERT_EQ(ToFixed(v, "x"), reference) << v;
  }
  for (double v : {0.0, -0.0, 1.0, -1.0, std::ldexp(1.0, 62), -std::ldexp(1.0, 62), std::ldexp(1.0, -64), -std::ldexp(1.0, -64),
                   std::ldexp(1.0, 62) - 1.0, -5.0, 1e-30, -1e-30}) {
    EXPECT_EQ(ToFixed(v, "x"), static_cast<FixedPoint>(std::rint(v * 18446744073709551616.0))) << v;
  }
}

// FromFixed must give exactly what the compiler's 128-bit conversion gives (libgcc's __floattidf,
// round to nearest even), divided by 2^64: over random magnitudes of every bit length, and over
// the cases its sticky bit exists for: exact ties at each bit length with an even and an odd kept
// bit, ties broken by one low bit far below, and the ends of the range.
double ReferenceFromFixed(FixedPoint fixed) { return static_cast<double>(fixed) / 18446744073709551616.0; }

TEST(ExactSumTest, FromFixedEqualsTheCompilersConversion) {
  auto same_bits = [](FixedPoint fixed) {
    const double fast = FromFixed(fixed), reference = ReferenceFromFixed(fixed);
    return __builtin_bit_cast(std::uint64_t, fast) == __builtin_bit_cast(std::uint64_t, reference);
  };
  std::mt19937_64 rng(21);
  for (int bits = 1; bits <= 127; ++bits) {
    for (int i = 0; i < 4000; ++i) {
      UnsignedFixedPoint magnitude = (UnsignedFixedPoint(rng()) << 64) | rng();
      magnitude &= (UnsignedFixedPoint(1) << bits) - 1;
      magnitude |= UnsignedFixedPoint(1) << (bits - 1);  // exactly `bits` long
      const FixedPoint fixed = static_cast<FixedPoint>(magnitude);
      ASSERT_TRUE(same_bits(fixed)) << "bits " << bits << " i " << i;
      ASSERT_TRUE(same_bits(-fixed)) << "bits " << bits << " i " << i << " negative";
    }
  }
  for (int bits = 54; bits <= 127; ++bits) {
    // Magnitudes of `bits` bits whose 53 kept bits end in 0 or 1, followed by exactly one half
    // (a tie), by a half plus one far bit, and by a half minus one.
    for (const UnsignedFixedPoint kept_low : {UnsignedFixedPoint(0), UnsignedFixedPoint(1)}) {
      const int below = bits - 53;  // bits dropped by the rounding
      const UnsignedFixedPoint kept = (UnsignedFixedPoint(1) << 52) | (UnsignedFixedPoint(rng()) & ((UnsignedFixedPoint(1) << 52) - 2)) | kept_low;
      const UnsignedFixedPoint half = UnsignedFixedPoint(1) << (below - 1);
      for (const UnsignedFixedPoint rest : {half, half + 1, half - 1, UnsignedFixedPoint(0), (half << 1) - 1}) {
        const FixedPoint fixed = static_cast<FixedPoint>((kept << below) | rest);
        ASSERT_TRUE(same_bits(fixed)) << "bits " << bits << " kept_low " << int(kept_low) << " rest " << double(rest);
        ASSERT_TRUE(same_bits(-fixed)) << "bits " << bits << " negative";
      }
    }
  }
  const FixedPoint max = static_cast<FixedPoint>(~UnsignedFixedPoint(0) >> 1);
  for (const FixedPoint fixed : {FixedPoint(0), FixedPoint(1), FixedPoint(-1), max, -max, -max - 1, FixedPoint(1) << 63,
                                 -(FixedPoint(1) << 63), (FixedPoint(1) << 63) - 1, (FixedPoint(1) << 64) - 1, FixedPoint(1) << 64,
                                 -(FixedPoint(1) << 64), (FixedPoint(1) << 64) + 1}) {
    EXPECT_TRUE(same_bits(fixed)) << double(fixed);
  }
  EXPECT_EQ(FromFixed(ToFixed(-1234.5678, "x")), -1234.5678);
  EXPECT_EQ(FromFixed(FixedPoint(1)), std::ldexp(1.0, -64));
}

TEST(ExactSumTest, OutOfRangeAndOverflowAreErrors) {
  EXPECT_THROW(ToFixed(std::nan(""), "x"), TrainingError);
  EXPECT_THROW(ToFixed(std::numeric_limits<double>::infinity(), "x"), TrainingError);
  EXPECT_THROW(ToFixed(std::ldexp(1.0, 63), "x"), TrainingError);
  EXPECT_NO_THROW(ToFixed(std::ldexp(1.0, 62), "x"));
  ExactSum sum;
  sum.Add(std::ldexp(1.0, 62), "x");
  try {
    sum.Add(std::ldexp(1.0, 62), "mean numerator");
    FAIL() << "overflow was not detected";
  } catch (const TrainingError& error) {
    EXPECT_NE(std::string(error.what()).find("mean numerator"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("overflow"), std::string::npos);
  }
}

// AddFixedWrapping: modulo 2^128 with the carries counted, the same result and total carry in any
// order, the total 0 exactly when the sum is in range.
TEST(ExactSumTest, WrappingAdditionCountsTheCarriesOutOfTheRange) {
  const FixedPoint big = ToFixed(std::ldexp(3.0, 61), "x");  // 0.75 of the range
  const FixedPoint values[] = {big, big, -big};
  int order[] = {0, 1, 2};
  do {
    FixedPoint sum = 0;
    int carry = 0;
    for (int i : order) carry += AddFixedWrapping(sum, values[i]);
    EXPECT_EQ(carry, 0);
    EXPECT_TRUE(sum == big);
  } while (std::next_permutation(std::begin(order), std::end(order)));
  FixedPoint sum = big;
  EXPECT_EQ(AddFixedWrapping(sum, big), 1);  // 1.5 of the range: out of it
  EXPECT_EQ(AddFixedWrapping(sum, -big), -1);
  EXPECT_TRUE(sum == big);
  FixedPoint low = -big;
  EXPECT_EQ(AddFixedWrapping(low, -big), -1);
  EXPECT_EQ(AddFixedWrapping(low, FixedPoint(0)), 0);
}

TEST(ExactSumTest, HexRoundTrip) {
  for (double v : {0.0, 1.0, -1.0, 3.25e-10, -123456.789}) {
    const FixedPoint fixed = ToFixed(v, "x");
    FixedPoint back = 0;
    ASSERT_TRUE(FixedFromHex(FixedToHex(fixed), back));
    EXPECT_EQ(back, fixed);
  }
  FixedPoint ignored;
  EXPECT_FALSE(FixedFromHex("xyz", ignored));
  EXPECT_FALSE(FixedFromHex(std::string(32, 'G'), ignored));
}

}  // namespace
}  // namespace pstrain

// The bit-level conversion equals rint(v * 2^64) where rounding matters most: exact halves
// (ties to even), values just above and below them, the resolution limit and the range limit.
namespace pstrain {
namespace {
TEST(ExactSumTest, ConversionRoundsTiesToEvenLikeRint) {
  std::mt19937_64 rng(12);
  std::uniform_int_distribution<std::int64_t> odd(1, (std::int64_t{1} << 52) - 1);
  std::uniform_int_distribution<int> exponent(-120, -53);
  for (int i = 0; i < 200000; ++i) {
    const double tie = std::ldexp(static_cast<double>(odd(rng) | 1), exponent(rng));  // odd multiple of a power of two
    for (const double v : {tie, -tie, std::nextafter(tie, 0.0), std::nextafter(tie, 1.0), -std::nextafter(tie, 1.0)}) {
      ASSERT_EQ(ToFixed(v, "x"), static_cast<FixedPoint>(std::rint(v * 18446744073709551616.0))) << std::hexfloat << v;
    }
  }
  for (const double v : {std::ldexp(1.0, -65), std::ldexp(3.0, -66), std::ldexp(1.0, -66), std::ldexp(1.0, -1074), -std::ldexp(1.0, -1022),
                         std::nextafter(std::ldexp(1.0, 63), 0.0), -std::nextafter(std::ldexp(1.0, 63), 0.0)}) {
    EXPECT_EQ(ToFixed(v, "x"), static_cast<FixedPoint>(std::rint(v * 18446744073709551616.0))) << std::hexfloat << v;
  }
  EXPECT_THROW(ToFixed(-std::ldexp(1.0, 63), "x"), TrainingError);
  EXPECT_THROW(ToFixed(-std::numeric_limits<double>::infinity(), "x"), TrainingError);
}
}  // namespace
}  // namespace pstrain
