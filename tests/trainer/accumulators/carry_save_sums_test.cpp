// CarrySaveSums (accumulators/carry_save_sums.h) against the reference exact sums (ToFixed +
// AddFixed on 128-bit integers): identical values after many additions of random values of both
// signs and every magnitude, across the fold boundary of kMaxPendingAdds additions per group, at the
// worst case of the limb bound, and with the same errors for non-finite values and overflow;
// canonical values written straight into untouched sums, and Reset.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "accumulators/carry_save_sums.h"
#include "accumulators/exact_sum.h"
#include "common/error.h"

namespace pstrain {
namespace {

double RandomValue(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-80, 40);
  std::uniform_int_distribution<int> kind(0, 19);
  switch (kind(rng)) {
    case 0: return 0.0;
    case 1: return -0.0;
    case 2: return std::nextafter(4294967296.0, 0.0) * (mantissa(rng) < 0 ? -1.0 : 1.0);  // largest for the limbs
    case 3: return std::ldexp(1.0, 32) * (mantissa(rng) < 0 ? -1.0 : 1.0);                 // smallest for base
    case 4: return std::ldexp(1.0, -65);                                                  // a tie: rounds to 0
    default: return std::ldexp(mantissa(rng), exponent(rng));  // up to 2^40: some go to base
  }
}

void ExpectSame(const CarrySaveSums& sums, const std::vector<FixedPoint>& reference, const std::string& where) {
  ASSERT_EQ(sums.size(), reference.size());
  const std::vector<FixedPoint> values = sums.Values("x");
  for (std::size_t i = 0; i < reference.size(); ++i) {
    ASSERT_TRUE(values[i] == reference[i]) << where << " element " << i << ": " << FixedToHex(values[i]) << " != "
                                           << FixedToHex(reference[i]);
    ASSERT_TRUE(sums.Value(i, "x") == reference[i]) << where << " element " << i;
  }
  // The bulk reads, over every element and over a stretch in the middle.
  std::vector<FixedPoint> into(reference.size(), 1);
  sums.ValuesInto(0, reference.size(), into.data(), "x");
  std::vector<double> doubles(reference.size(), 1.0);
  sums.Doubles(0, reference.size(), doubles.data(), "x");
  for (std::size_t i = 0; i < reference.size(); ++i) {
    ASSERT_TRUE(into[i] == reference[i]) << where << " ValuesInto element " << i;
    ASSERT_EQ(doubles[i], FromFixed(reference[i])) << where << " Doubles element " << i;
  }
  if (reference.size() > 2) {
    const std::size_t first = 1, n = reference.size() - 2;
    sums.ValuesInto(first, n, into.data(), "x");
    for (std::size_t j = 0; j < n; ++j) ASSERT_TRUE(into[j] == reference[first + j]) << where << " from element 1, " << j;
  }
}

// Runs of random length at random places, as UtteranceStats::AddTo adds densities' statistics,
// many more of them than the fold bound, so that every group is folded several times.
TEST(CarrySaveSums, EqualsTheReferenceOverManyAdditions) {
  std::mt19937_64 rng(11);
  constexpr std::size_t kSize = 200;  // 4 groups, the last one partial
  CarrySaveSums sums(kSize);
  std::vector<FixedPoint> reference(kSize, 0);
  std::uniform_int_distribution<std::size_t> length(1, 45);
  std::size_t max_pending = 0;
  for (std::size_t call = 0; call < 120000; ++call) {
    const std::size_t n = length(rng);
    const std::size_t first = std::uniform_int_distribution<std::size_t>(0, kSize - n)(rng);
    std::vector<double> values(n);
    for (double& v : values) v = RandomValue(rng);
    sums.AddValues(first, values.data(), n, "x");
    for (std::size_t i = 0; i < n; ++i) AddFixed(reference[first + i], ToFixed(values[i], "x"), "x");
    for (std::size_t i = 0; i < kSize; i += CarrySaveSums::kGroup) max_pending = std::max<std::size_t>(max_pending, sums.PendingAdds(i));
    if (call % 20000 == 0) ExpectSame(sums, reference, "call " + std::to_string(call));
  }
  ExpectSame(sums, reference, "end");
  EXPECT_EQ(max_pending, CarrySaveSums::kMaxPendingAdds);  // the boundary was reached, and never passed
  sums.Fold("x");
  ExpectSame(sums, reference, "after Fold");
  for (std::size_t i = 0; i < kSize; i += CarrySaveSums::kGroup) EXPECT_EQ(sums.PendingAdds(i), 0u);
}

// Compact: sums held in both base and the limbs end held in base alone (the limbs released), with
// the same values; sums in the limbs alone, or in base alone, are left as they are.
TEST(CarrySaveSums, CompactLeavesTheValuesInBaseAlone) {
  constexpr std::size_t kSize = 150;
  CarrySaveSums both(kSize), limbs(kSize);
  std::vector<FixedPoint> reference(kSize, 0), limb_reference(kSize, 0);
  for (std::size_t i = 0; i < kSize; ++i) {
    const double small = std::ldexp(1.0 + static_cast<double>(i), -20);
    both.AddValues(i, &small, 1, "x");
    limbs.AddValues(i, &small, 1, "x");
    AddFixed(reference[i], ToFixed(small, "x"), "x");
    AddFixed(limb_reference[i], ToFixed(small, "x"), "x");
  }
  const double big = std::ldexp(3.0, 40);  // goes to base: both are held now
  both.AddValues(7, &big, 1, "x");
  AddFixed(reference[7], ToFixed(big, "x"), "x");
  ASSERT_FALSE(both.base_only());
  both.Compact("x");
  EXPECT_TRUE(both.base_only());
  EXPECT_EQ(both.PendingAdds(0), 0u);
  ExpectSame(both, reference, "compacted");
  limbs.Compact("x");
  EXPECT_FALSE(limbs.base_only()) << "limbs alone were folded into a base";
  ExpectSame(limbs, limb_reference, "limbs alone");
  both.Compact("x");  // (base alone: nothing to do)
  ExpectSame(both, reference, "compacted twice");
}

// Doubles with the limbs alone (no value has gone to base, nothing folded), the E-step's usual
// state, converts each value as it is formed from its limbs: the same doubles as FromFixed of the
// canonical value, for limbs of every size up to past 2^53 with full mantissas (where converting a
// limb to double on its own would round it).
TEST(CarrySaveSums, DoublesFromTheLimbsAloneEqualFromFixed) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  constexpr std::size_t kSize = 64, kHighFirst = 56, kLowFirst = 60;
  CarrySaveSums sums(kSize);
  std::vector<FixedPoint> reference(kSize, 0);
  std::vector<double> values(kSize);
  for (int call = 0; call < 300; ++call) {
    for (std::size_t i = 0; i < kSize; ++i) {
      if (i >= kLowFirst) {
        // (1 + f) 2^-16, f in [1/4, 1/2): the high limb gains 1, the low one f 2^48 (random bits),
        // past 2^53 after about 90 additions.
        values[i] = std::ldexp(1.25 + 0.125 * (unit(rng) + 1.0), -16);
      } else if (i >= kHighFirst) {
        // [2^31, 2^32), full mantissas: the high limb gains about 2^47 .. 2^48 (random bits), past
        // 2^53 after about 45 additions.
        values[i] = std::ldexp(1.5 + 0.25 * unit(rng), 31) + std::ldexp(unit(rng), -10);
      } else {
        // A magnitude of its own for each element, from 2^-70 to 2^30, random signs: both limbs
        // stay within the shortcut's reach.
        const double scale = std::ldexp(1.0, -70 + int(i) * 100 / int(kHighFirst - 1));
        values[i] = std::fabs(unit(rng)) * scale * (unit(rng) < 0 ? -1 : 1);
      }
    }
    sums.AddValues(0, values.data(), kSize, "x");
    for (std::size_t i = 0; i < kSize; ++i) AddFixed(reference[i], ToFixed(values[i], "x"), "x");
    std::vector<double> doubles(kSize);
    sums.Doubles(0, kSize, doubles.data(), "x");
    for (std::size_t i = 0; i < kSize; ++i) {
      ASSERT_EQ(doubles[i], FromFixed(reference[i])) << "call " << call << " element " << i;
    }
  }
  EXPECT_EQ(sums.PendingAdds(0), 300u);  // never folded: the limbs alone all along
}

// The worst case of the bound: kMaxPendingAdds additions of the largest value the limbs take,
// positive and negative, then the fold at the next addition; no limb wraps.
TEST(CarrySaveSums, LimbBoundAndFoldBoundary) {
  for (double sign : {1.0, -1.0}) {
    const double largest = sign * std::nextafter(4294967296.0, 0.0);
    const double carry = sign * (std::ldexp(1.0, 31) + std::ldexp(1.0, -17) - std::ldexp(1.0, -21));  // Lo = 2^47 - 2^43
    CarrySaveSums sums(2);
    std::vector<FixedPoint> reference(2, 0);
    const double values[2] = {largest, carry};
    for (std::uint32_t k = 0; k < CarrySaveSums::kMaxPendingAdds; ++k) {
      sums.AddValues(0, values, 2, "x");
      for (int i = 0; i < 2; ++i) AddFixed(reference[i], ToFixed(values[i], "x"), "x");
    }
    EXPECT_EQ(sums.PendingAdds(0), CarrySaveSums::kMaxPendingAdds);
    ExpectSame(sums, reference, "at the bound");
    sums.AddValues(0, values, 2, "x");  // folds the group first
    for (int i = 0; i < 2; ++i) AddFixed(reference[i], ToFixed(values[i], "x"), "x");
    EXPECT_EQ(sums.PendingAdds(0), 1u);
    ExpectSame(sums, reference, "after the boundary");
  }
}

// Canonical values from elsewhere (a reduction) and from a file (stored into base) add to the
// limbs' values.
TEST(CarrySaveSums, FixedValuesAndAStoredBase) {
  CarrySaveSums sums(3);
  ExpectSame(sums, {0, 0, 0}, "never added to");
  FixedPoint* base = sums.UninitializedBase();
  base[0] = FixedPoint{5};
  base[1] = -(FixedPoint{1} << 100);
  base[2] = FixedPoint{0};
  ExpectSame(sums, {FixedPoint{5}, -(FixedPoint{1} << 100), FixedPoint{0}}, "stored, no limbs");
  const double values[3] = {1.5, -2.25, std::ldexp(1.0, 35)};
  sums.AddValues(0, values, 3, "x");
  sums.AddFixedValue(2, FixedPoint{7}, "x");
  EXPECT_TRUE(sums.Value(0, "x") == FixedPoint{5} + ToFixed(1.5, "x"));
  EXPECT_TRUE(sums.Value(1, "x") == -(FixedPoint{1} << 100) + ToFixed(-2.25, "x"));
  EXPECT_TRUE(sums.Value(2, "x") == ToFixed(std::ldexp(1.0, 35), "x") + 7);
  ExpectSame(sums, {sums.Value(0, "x"), sums.Value(1, "x"), sums.Value(2, "x")}, "base and limbs");
}

// Untouched sums take their canonical values straight into base (UninitializedBase); they then
// add as any others; Reset makes every value zero and the sums untouched again. Sums that were
// added to refuse UninitializedBase.
TEST(CarrySaveSums, UninitializedBaseAndReset) {
  CarrySaveSums sums(3);
  EXPECT_TRUE(sums.untouched());
  FixedPoint* base = sums.UninitializedBase();
  base[0] = FixedPoint{9};
  base[1] = -(FixedPoint{1} << 90);
  base[2] = FixedPoint{0};
  EXPECT_FALSE(sums.untouched());
  ExpectSame(sums, {FixedPoint{9}, -(FixedPoint{1} << 90), FixedPoint{0}}, "written into base");
  const double values[3] = {0.5, 0.0, -1.0};
  sums.AddValues(0, values, 3, "x");
  EXPECT_TRUE(sums.Value(0, "x") == FixedPoint{9} + ToFixed(0.5, "x"));
  EXPECT_TRUE(sums.Value(2, "x") == ToFixed(-1.0, "x"));
  EXPECT_THROW(sums.UninitializedBase(), std::logic_error);
  sums.Reset();
  EXPECT_TRUE(sums.untouched());
  ExpectSame(sums, {0, 0, 0}, "after Reset");
  CarrySaveSums limbs_only(2);
  limbs_only.AddValues(0, values, 2, "x");
  EXPECT_FALSE(limbs_only.untouched());
  EXPECT_THROW(limbs_only.UninitializedBase(), std::logic_error);
}

// NaN and infinity throw at the addition; a sum leaving |sum| < 2^63 throws: at the addition when
// it goes through base, and when the limbs are read or folded when it goes through them.
TEST(CarrySaveSums, ErrorsStillThrow) {
  CarrySaveSums sums(4);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(sums.AddValues(1, &nan, 1, "x"), TrainingError);
  const double inf = -std::numeric_limits<double>::infinity();
  EXPECT_THROW(sums.AddValues(2, &inf, 1, "x"), TrainingError);

  const double big = std::ldexp(1.0, 62);
  CarrySaveSums base_overflow(1);
  base_overflow.AddValues(0, &big, 1, "x");
  try {
    base_overflow.AddValues(0, &big, 1, "variance numerator");
    FAIL() << "overflow through base was not detected";
  } catch (const TrainingError& error) {
    EXPECT_NE(std::string(error.what()).find("variance numerator"), std::string::npos);
  }

  CarrySaveSums limb_overflow(1);
  limb_overflow.AddFixedValue(0, std::numeric_limits<FixedPoint>::max() - ToFixed(0.5, "x"), "x");
  const double one = 1.0;
  limb_overflow.AddValues(0, &one, 1, "x");  // in the limbs: not yet folded
  EXPECT_THROW(limb_overflow.Value(0, "x"), TrainingError);
  EXPECT_THROW(limb_overflow.Values("x"), TrainingError);
  FixedPoint into = 0;
  EXPECT_THROW(limb_overflow.ValuesInto(0, 1, &into, "x"), TrainingError);
  double as_double = 0.0;
  EXPECT_THROW(limb_overflow.Doubles(0, 1, &as_double, "x"), TrainingError);
  EXPECT_THROW(limb_overflow.Fold("x"), TrainingError);
}

}  // namespace
}  // namespace pstrain
