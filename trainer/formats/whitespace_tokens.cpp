// SplitWhitespace: a whitespace mask of up to 64 bytes at a time, and the tokens between its runs.
#include "formats/whitespace_tokens.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

namespace pstrain {

namespace {

static_assert(std::endian::native == std::endian::little, "the masks number the bytes of a word from its low end");

constexpr std::uint64_t kOnes = 0x0101010101010101ull;
constexpr std::uint64_t kHigh = 0x8080808080808080ull;

// The high bit of each byte of `word` that is whitespace; every other bit 0. Exact for every byte
// value: no sum below carries out of its byte (each adds at most 0x7f to a value of at most 0x7f).
std::uint64_t WhitespaceHighBits(std::uint64_t word) {
  const std::uint64_t low7 = word & ~kHigh;
  // ' ': the bytes of word ^ 0x20... that are zero.
  const std::uint64_t x = word ^ (0x20 * kOnes);
  const std::uint64_t is_blank = ~(((x & ~kHigh) + ~kHigh) | x) & kHigh;
  // '\t' .. '\r' (9 .. 13): low seven bits >= 9 and not >= 14, with the high bit clear.
  const std::uint64_t at_least_9 = low7 + (0x80 - 0x09) * kOnes;
  const std::uint64_t at_least_14 = low7 + (0x80 - 0x0e) * kOnes;
  const std::uint64_t is_control = at_least_9 & ~at_least_14 & ~word & kHigh;
  return is_blank | is_control;
}

// Bit i set where byte i of `word` is whitespace (the eight high bits gathered into one byte: no
// two partial products of the multiplication overlap).
std::uint64_t WhitespaceBits(std::uint64_t word) { return ((WhitespaceHighBits(word) >> 7) * 0x0102040810204080ull) >> 56; }

}  // namespace

void SplitWhitespace(std::string_view line, std::vector<std::string_view>& tokens) {
  tokens.clear();
  const char* const bytes = line.data();
  const std::size_t size = line.size();
  bool open = false;      // a token runs into this window from the one before
  std::size_t start = 0;  // the open token's first byte
  for (std::size_t base = 0; base < size; base += 64) {
    const std::size_t length = std::min<std::size_t>(64, size - base);
    // Bit i: byte base + i is whitespace; the bits past the line count as whitespace.
    std::uint64_t space = length == 64 ? 0 : ~std::uint64_t(0) << length;
    std::size_t i = 0;
    for (; i + 8 <= length; i += 8) {
      std::uint64_t word;
      std::memcpy(&word, bytes + base + i, 8);
      space |= WhitespaceBits(word) << i;
    }
    if (i < length) {
      std::uint64_t word = 0;
      std::memcpy(&word, bytes + base + i, length - i);
      space |= (WhitespaceBits(word) & ((std::uint64_t(1) << (length - i)) - 1)) << i;
    }
    // A token starts at a byte that is not whitespace after one that is (or the line's start), and
    // ends at whitespace after a byte that is not: starts and ends alternate, a start first unless
    // a token is open.
    const std::uint64_t before = space << 1 | (open ? 0 : 1);
    std::uint64_t starts = ~space & before;
    std::uint64_t ends = space & ~before;
    if (open) {
      if (ends == 0) continue;  // the whole window is inside the open token
      tokens.emplace_back(bytes + start, base + std::countr_zero(ends) - start);
      ends &= ends - 1;
      open = false;
    }
    for (; starts != 0; starts &= starts - 1) {
      const std::size_t first = base + std::countr_zero(starts);
      if (ends == 0) {
        open = true;
        start = first;
        break;
      }
      tokens.emplace_back(bytes + first, base + std::countr_zero(ends) - first);
      ends &= ends - 1;
    }
  }
  if (open) tokens.emplace_back(bytes + start, size - start);
}

}  // namespace pstrain
