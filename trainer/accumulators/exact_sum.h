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

// The nearest double to `fixed` * 2^-64.
double FromFixed(FixedPoint fixed);

// `into += value`, throwing TrainingError on overflow.
inline void AddFixed(FixedPoint& into, FixedPoint value, const char* what) {
  FixedPoint result;
  if (__builtin_add_overflow(into, value, &result)) [[unlikely]] ThrowOverflow(what);
  into = result;
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
