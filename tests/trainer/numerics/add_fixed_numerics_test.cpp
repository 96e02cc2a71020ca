// The vector levels' add_fixed kernel (numerics/vector_kernels.h) against the reference exact
// conversion and addition (accumulators/exact_sum.h ToFixed + AddFixed): identical 128-bit
// accumulators on every level this CPU has, for values across the whole range (ties, subnormals,
// signed zeros, the 2^32 fast-path limit) and accumulators near the 2^126 limit; values and
// accumulators outside the fast path are left to the reference path, which still throws.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "accumulators/exact_accumulators.h"
#include "accumulators/exact_sum.h"
#include "common/error.h"
#include "numerics/isa.h"
#include "numerics/vector_kernels.h"

namespace pstrain {
namespace {

// What ExactAccumulators::AddValues does, with the kernels of one level.
void AddWithKernel(const numerics::VectorKernels& kernels, const double* values, std::size_t n, FixedPoint* acc) {
  std::size_t i = 0;
  while (i < n) {
    i += kernels.add_fixed(values + i, n - i, reinterpret_cast<std::uint64_t*>(acc + i));
    if (i == n) break;
    AddFixed(acc[i], ToFixed(values[i], "x"), "x");
    ++i;
  }
}

std::vector<double> MixedValues(std::uint32_t seed, std::size_t n) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-130, 40);
  std::uniform_int_distribution<std::int64_t> odd(1, (std::int64_t{1} << 52) - 1);
  std::uniform_int_distribution<int> kind(0, 9);
  std::vector<double> values(n);
  for (double& v : values) {
    switch (kind(rng)) {
      case 0: v = 0.0; break;
      case 1: v = -0.0; break;
      case 2: v = std::ldexp(static_cast<double>(odd(rng) | 1), exponent(rng) - 52); break;  // ties at 2^-64
      case 3: v = std::ldexp(mantissa(rng), 32); break;                                  // around the fast-path limit
      case 4: v = std::ldexp(1.0, -1074) * static_cast<double>(kind(rng) + 1); break;   // subnormal
      default: v = std::ldexp(mantissa(rng), exponent(rng)); break;
    }
  }
  return values;
}

std::vector<FixedPoint> MixedAccumulators(std::uint32_t seed, std::size_t n) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> word;
  std::uniform_int_distribution<int> kind(0, 5);
  std::vector<FixedPoint> acc(n);
  for (FixedPoint& a : acc) {
    const FixedPoint low = static_cast<FixedPoint>(word(rng));
    switch (kind(rng)) {
      case 0: a = 0; break;
      case 1: a = low; break;
      case 2: a = -low; break;
      case 3: a = (FixedPoint{1} << 126) - 1 - low; break;  // just inside the fast path's |acc| < 2^126
      case 4: a = (FixedPoint{1} << 126) + low; break;      // just outside: the reference path
      default: a = -(FixedPoint{1} << 126) - low; break;
    }
  }
  return acc;
}

TEST(AddFixedKernel, EqualsTheReferenceOnEveryLevel) {
  for (numerics::IsaLevel level : numerics::SupportedIsaLevels()) {
    const numerics::VectorKernels& kernels = numerics::KernelsFor(level);
    for (std::uint32_t seed = 1; seed <= 40; ++seed) {
      for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{7}, std::size_t{39}, std::size_t{100}}) {
        const std::vector<double> values = MixedValues(seed * 131 + static_cast<std::uint32_t>(n), n);
        std::vector<FixedPoint> reference = MixedAccumulators(seed, n);
        std::vector<FixedPoint> fast = reference;
        for (std::size_t i = 0; i < n; ++i) AddFixed(reference[i], ToFixed(values[i], "x"), "x");
        AddWithKernel(kernels, values.data(), n, fast.data());
        for (std::size_t i = 0; i < n; ++i) {
          ASSERT_TRUE(fast[i] == reference[i]) << numerics::IsaName(level) << " seed " << seed << " n " << n << " element " << i
                                               << " value " << std::hexfloat << values[i] << ": " << FixedToHex(fast[i])
                                               << " != " << FixedToHex(reference[i]);
        }
      }
    }
  }
}

// The fast path takes the common chunks: a level with lanes must not leave them all to the
// reference path (that would be correct but slow).
TEST(AddFixedKernel, VectorLevelsTakeOrdinaryChunks) {
  const std::vector<double> values(64, 0.75);
  for (numerics::IsaLevel level : numerics::SupportedIsaLevels()) {
    std::vector<std::uint64_t> acc(2 * values.size(), 0);
    const std::size_t done = numerics::KernelsFor(level).add_fixed(values.data(), values.size(), acc.data());
    if (level == numerics::IsaLevel::kScalar || level == numerics::IsaLevel::kSse2) {
      EXPECT_EQ(done, 0u);  // these levels hand everything to the reference path
    } else {
      EXPECT_EQ(done, values.size()) << numerics::IsaName(level);
      EXPECT_EQ(acc[0], std::uint64_t{3} << 62);  // 0.75 * 2^64, low word
      EXPECT_EQ(acc[1], 0u);
    }
  }
}

// A non-finite value or an overflowing sum stops at the reference path, which throws naming the
// statistic, whatever the level.
TEST(AddFixedKernel, ErrorsStillThrow) {
  const AccumulatorShape shape{1, 1, 16, 0, 0};
  std::vector<double> values(16, 1.0);
  values[9] = std::numeric_limits<double>::quiet_NaN();
  ExactAccumulators acc(shape, false);
  EXPECT_THROW(acc.AddValues(ExactAccumulators::Block::kMean, 0, values.data(), values.size()), TrainingError);
  values[9] = std::ldexp(1.0, 62);
  ExactAccumulators big(shape, false);
  big.AddValues(ExactAccumulators::Block::kMean, 0, values.data(), values.size());
  try {
    big.AddValues(ExactAccumulators::Block::kMean, 0, values.data(), values.size());
    FAIL() << "overflow was not detected";
  } catch (const TrainingError& error) {
    EXPECT_NE(std::string(error.what()).find("mean numerator"), std::string::npos);
  }
}

}  // namespace
}  // namespace pstrain
