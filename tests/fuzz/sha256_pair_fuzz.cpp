// Fuzz target: the SHA-256 of two messages at once (common/sha256_pair.h Sha256HexPair) against
// Crypto++'s one at a time (Sha256Hex). Not a parser: a differential check of the pair hasher that
// every worker runs on the feature files it trains on. The first input byte (and the second, for a
// longer cut) chooses where the rest is cut into the two messages; the digests must be equal.
#include <array>
#include <string>

#include "common/sha256.h"
#include "common/sha256_pair.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t cut_wish = std::size_t(data[0]) * 256 + data[1];
  const std::uint8_t* rest = data + 2;
  const std::size_t n = size - 2;
  const std::size_t cut = n == 0 ? 0 : cut_wish % (n + 1);
  const std::span<const std::uint8_t> first(rest, cut), second(rest + cut, n - cut);
  const std::array<std::string, 2> pair = pstrain::Sha256HexPair(first, second);
  pstrain::fuzz::Require(pair[0] == pstrain::Sha256Hex(first.data(), first.size()), "first digest differs from Sha256Hex");
  pstrain::fuzz::Require(pair[1] == pstrain::Sha256Hex(second.data(), second.size()), "second digest differs from Sha256Hex");
  // The same message twice, and the two swapped.
  const std::array<std::string, 2> same = pstrain::Sha256HexPair(second, second);
  pstrain::fuzz::Require(same[0] == pair[1] && same[1] == pair[1], "a message paired with itself");
  const std::array<std::string, 2> swapped = pstrain::Sha256HexPair(second, first);
  pstrain::fuzz::Require(swapped[0] == pair[1] && swapped[1] == pair[0], "the pair swapped");
  return 0;
}
