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

// Rounds `value` to the nearest multiple of 2^-64 (ties to even). Throws TrainingError for NaN,
// infinity or |value| >= 2^63; `what` names the quantity in the message.
FixedPoint ToFixed(double value, const char* what);
// The nearest double to `fixed` * 2^-64.
double FromFixed(FixedPoint fixed);
// `into += value`, throwing TrainingError on overflow.
void AddFixed(FixedPoint& into, FixedPoint value, const char* what);

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
