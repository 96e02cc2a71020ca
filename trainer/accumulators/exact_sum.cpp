// Exact, order-independent summation of doubles through fixed-point integers.
#include "accumulators/exact_sum.h"

#include <cmath>
#include <cstdint>

#include "common/error.h"

namespace pstrain {

void ThrowNotConvertible(double value, const char* what) {
  if (!std::isfinite(value)) throw TrainingError(std::string(what) + ": value is not finite (" + std::to_string(value) + ")");
  throw TrainingError(std::string(what) + ": value " + std::to_string(value) + " is outside the exact accumulator's range (|x| < 2^63)");
}

void ThrowOverflow(const char* what) {
  throw TrainingError(std::string(what) + ": exact accumulator overflow (sum leaves the range |x| < 2^63)");
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
