#include "accumulators/exact_sum.h"

#include <cmath>

#include "common/error.h"

namespace pstrain {

namespace {

constexpr double kTwoTo64 = 18446744073709551616.0;   // 2^64
constexpr double kTwoTo127 = 1.7014118346046923e38;   // 2^127

}  // namespace

FixedPoint ToFixed(double value, const char* what) {
  if (!std::isfinite(value)) throw TrainingError(std::string(what) + ": value is not finite (" + std::to_string(value) + ")");
  // Scaling by a power of two is exact; rint rounds to nearest, ties to even (default mode).
  const double scaled = std::rint(value * kTwoTo64);
  if (!(std::fabs(scaled) < kTwoTo127)) {
    throw TrainingError(std::string(what) + ": value " + std::to_string(value) + " is outside the exact accumulator's range (|x| < 2^63)");
  }
  // Exact conversion without libgcc's slow double -> 128-bit routine: |scaled| is an integer with at
  // most 53 significant bits, so its high and low 64-bit halves are doubles computed exactly.
  const double magnitude = std::fabs(scaled);
  const double high = std::floor(magnitude / kTwoTo64);
  const double low = magnitude - high * kTwoTo64;  // exact: the low bits of magnitude's mantissa
  const UnsignedFixedPoint bits =
      (static_cast<UnsignedFixedPoint>(static_cast<std::uint64_t>(high)) << 64) | static_cast<std::uint64_t>(low);
  const FixedPoint fixed = static_cast<FixedPoint>(bits);
  return scaled < 0 ? -fixed : fixed;
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
