// Exact, associative summation of doubles: each value is rounded once to a fixed-point integer with
// 64 fractional bits (resolution 2^-64 ~ 5.4e-20) held in a signed 128-bit integer, and integers
// add exactly. Any grouping and any order of the same values therefore gives the same bits, which
// is what makes sharded training independent of the shard count and of completion order.
//
// Range: |sum| < 2^63 (~9.2e18). A value that is not finite, or a sum that would leave the range,
// throws TrainingError naming what was being summed: never a silent wrap.
#pragma once

#include <cstdint>
#include <string>

namespace pstrain {

// 128-bit integers are a GCC/Clang extension (__extension__ keeps -Wpedantic quiet).
__extension__ typedef __int128 FixedPoint;
__extension__ typedef unsigned __int128 UnsignedFixedPoint;

inline constexpr int kFixedFractionBits = 64;

[[noreturn]] void ThrowNotConvertible(double value, const char* what);
[[noreturn]] void ThrowOverflow(const char* what);

// Rounds `value` to the nearest multiple of 2^-64 (ties to even). Throws TrainingError for NaN,
// infinity or |value| >= 2^63; `what` names the quantity in the message.
//
// From the bits: value = (-1)^sign * m * 2^(e - 1075) with m the 53-bit significand, so
// value * 2^64 = m * 2^shift, shift = e - 1011. An integer shift and a round-to-nearest-even of
// the bits shifted out: no floating-point rounding, no libm call, no libgcc 128-bit conversion.
// Inline: the E-step converts every statistic an utterance touched.
inline FixedPoint ToFixed(double value, const char* what) {
  const std::uint64_t bits = __builtin_bit_cast(std::uint64_t, value);
  const int biased_exponent = static_cast<int>((bits >> 52) & 0x7ff);
  if (biased_exponent == 0) return 0;  // zero or subnormal: |value| < 2^-1022 rounds to 0
  const int shift = biased_exponent - 1011;
  // Not finite (exponent 0x7ff), or |value| * 2^64 >= 2^127 (|value| >= 2^63): 53 + shift > 127.
  if (shift > 127 - 53) [[unlikely]] ThrowNotConvertible(value, what);
  const std::uint64_t significand = (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
  UnsignedFixedPoint magnitude;
  if (shift >= 0) {
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

// The nearest double to `fixed` * 2^-64 (ties to even): static_cast<double>(fixed) / 2^64, bit for
// bit, without libgcc's software 128-bit conversion (__floattidf).
// |fixed| < 2^63 converts as an int64 (one correctly rounded conversion). Below 2^106, fixed =
// a * 2^53 + b with |a| <= 2^53 and 0 <= b < 2^53 (a = fixed >> 53, b its low 53 bits): a * 2^53 and
// b are exact doubles, so their sum is rounded once, to nearest even. Otherwise the magnitude's
// top 64 bits are kept, with a sticky bit in bit 0 for any 1 among the bits dropped below them:
// converting that 64-bit integer (its bit 63 set) rounds at bit 10, above the sticky bit, so it
// rounds exactly as the whole 128-bit magnitude would. The scale 2^(dropped - 64) is exact (the
// result is at least 1/2), and so is the sign, set last (no branch on the sign or the length).
// Inline: called for every statistic when a pass's sums are converted.
inline double FromFixed(FixedPoint fixed) {
  const auto high = static_cast<std::int64_t>(fixed >> 64);
  const auto low = static_cast<std::uint64_t>(fixed);
  if (high == (static_cast<std::int64_t>(low) >> 63)) return static_cast<double>(static_cast<std::int64_t>(low)) * 0x1p-64;
  if (high >= -(std::int64_t{1} << 42) && high < (std::int64_t{1} << 42)) {
    const auto a = static_cast<std::int64_t>(fixed >> 53);
    const std::uint64_t b = low & ((std::uint64_t{1} << 53) - 1);
    return (static_cast<double>(a) * 0x1p53 + static_cast<double>(b)) * 0x1p-64;
  }
  const auto sign = static_cast<UnsignedFixedPoint>(fixed >> 127);  // all ones when negative
  const UnsignedFixedPoint magnitude = (static_cast<UnsignedFixedPoint>(fixed) ^ sign) - sign;
  const auto magnitude_high = static_cast<std::uint64_t>(magnitude >> 64);
  const int dropped = magnitude_high == 0 ? 0 : 64 - __builtin_clzll(magnitude_high);  // 0..64 low bits beyond 64
  const UnsignedFixedPoint below = magnitude & ((UnsignedFixedPoint{1} << dropped) - 1);
  const std::uint64_t top = static_cast<std::uint64_t>(magnitude >> dropped) | (below != 0 ? 1 : 0);
  const double scale = __builtin_bit_cast(double, static_cast<std::uint64_t>(1023 + dropped - 64) << 52);
  const double result = static_cast<double>(top) * scale;
  return __builtin_bit_cast(double, __builtin_bit_cast(std::uint64_t, result) | (static_cast<std::uint64_t>(sign) << 63));
}

// `into += value`, throwing TrainingError on overflow.
inline void AddFixed(FixedPoint& into, FixedPoint value, const char* what) {
  FixedPoint result;
  if (__builtin_add_overflow(into, value, &result)) [[unlikely]] ThrowOverflow(what);
  into = result;
}

// `into += value` modulo 2^128 (two's complement), returning the carry out of the signed range: +1
// when the exact sum is 2^128 above the result, -1 when 2^128 below, 0 otherwise. Additions of
// the same values in any order end with the same result and the same total carry, and the exact
// sum is in range exactly when that total is 0 (the sum is then the result): a reduction whose
// order is not fixed checks the range once, at its end, from the total (shards/reducer.h).
inline int AddFixedWrapping(FixedPoint& into, FixedPoint value) {
  FixedPoint result;
  const bool overflow = __builtin_add_overflow(into, value, &result);
  into = result;
  return overflow ? (value > 0 ? 1 : -1) : 0;
}

// A scalar exact sum (e.g. a log-likelihood total).
class ExactSum {
 public:
  void Add(double value, const char* what) { AddFixed(sum_, ToFixed(value, what), what); }
  void Add(const ExactSum& other, const char* what) { AddFixed(sum_, other.sum_, what); }
  double value() const { return FromFixed(sum_); }
  FixedPoint fixed() const { return sum_; }
  static ExactSum FromFixedValue(FixedPoint fixed) {
    ExactSum s;
    s.sum_ = fixed;
    return s;
  }
  bool operator==(const ExactSum&) const = default;

 private:
  FixedPoint sum_ = 0;
};

// Lower-case hex of the 128-bit two's complement value (32 digits), for JSON and messages.
std::string FixedToHex(FixedPoint fixed);
// Parses FixedToHex's output; returns false on malformed input.
bool FixedFromHex(const std::string& hex, FixedPoint& out);

}  // namespace pstrain
