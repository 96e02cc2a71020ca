#include "accumulators/exact_sum.h"

#include <cmath>
#include <cstdint>

#include "common/error.h"

namespace pstrain {

namespace {

constexpr double kTwoTo64 = 18446744073709551616.0;   // 2^64
constexpr double kTwoTo127 = 1.7014118346046923e38;   // 2^127

}  // namespace

FixedPoint ToFixed(double value, const char* what) {
  // From the bits: value = (-1)^sign * m * 2^(e - 1075) with m the 53-bit significand, so
  // value * 2^64 = m * 2^shift, shift = e - 1011. An integer shift and a round-to-nearest-even of
  // the bits shifted out: no floating-point rounding, no libm call, no libgcc 128-bit conversion.
  const std::uint64_t bits = __builtin_bit_cast(std::uint64_t, value);
  const int biased_exponent = static_cast<int>((bits >> 52) & 0x7ff);
  if (biased_exponent == 0x7ff) {
    throw TrainingError(std::string(what) + ": value is not finite (" + std::to_string(value) + ")");
  }
  if (biased_exponent == 0) return 0;  // zero or subnormal: |value| < 2^-1022 rounds to 0
  const std::uint64_t significand = (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
  const int shift = biased_exponent - 1011;
  UnsignedFixedPoint magnitude;
  if (shift >= 0) {
    // |value| * 2^64 < 2^127 (|value| < 2^63) needs 53 + shift <= 127.
    if (shift > 127 - 53) {
      throw TrainingError(std::string(what) + ": value " + std::to_string(value) + " is outside the exact accumulator's range (|x| < 2^63)");
    }
    magnitude = static_cast<UnsignedFixedPoint>(significand) << shift;
  } else if (shift >= -53) {
    const int right = -shift;
    const std::uint64_t kept = significand >> right;
    const std::uint64_t rest = significand & ((std::uint64_t{1} << right) - 1);
    const std::uint64_t half = std::uint64_t{1} << (right - 1);
    magnitude = kept + ((rest > half || (rest == half && (kept & 1) != 0)) ? 1 : 0);
  } else {
    return 0;  // value * 2^64 = m / 2^right < 2^53 / 2^54 = 1/2: rounds to 0
  }
  const FixedPoint fixed = static_cast<FixedPoint>(magnitude);
  return (bits >> 63) != 0 ? -fixed : fixed;
}

double FromFixed(FixedPoint fixed) { return static_cast<double>(fixed) / kTwoTo64; }

void AddFixed(FixedPoint& into, FixedPoint value, const char* what) {
  FixedPoint result;
  if (__builtin_add_overflow(into, value, &result)) {
    throw TrainingError(std::string(what) + ": exact accumulator overflow (sum leaves the range |x| < 2^63)");
  }
  into = result;
}

std::string FixedToHex(FixedPoint fixed) {
  static const char kHex[] = "0123456789abcdef";
  UnsignedFixedPoint bits = static_cast<UnsignedFixedPoint>(fixed);
  std::string out(32, '0');
  for (int i = 31; i >= 0; --i) {
    out[static_cast<std::size_t>(i)] = kHex[static_cast<unsigned>(bits & 0xF)];
    bits >>= 4;
  }
  return out;
}

bool FixedFromHex(const std::string& hex, FixedPoint& out) {
  if (hex.size() != 32) return false;
  UnsignedFixedPoint bits = 0;
  for (char c : hex) {
    unsigned digit;
    if (c >= '0' && c <= '9') digit = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f') digit = static_cast<unsigned>(c - 'a' + 10);
    else return false;
    bits = (bits << 4) | digit;
  }
  out = static_cast<FixedPoint>(bits);
  return true;
}

}  // namespace pstrain
