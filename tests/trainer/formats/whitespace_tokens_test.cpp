// Tests for the mdef's tokenizer (trainer/formats/whitespace_tokens.h) against `std::istream >>`.
#include "formats/whitespace_tokens.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace pstrain {
namespace {

// What `in >> token` reads from `line`, token after token (the classic locale).
std::vector<std::string> StreamTokens(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> tokens;
  for (std::string token; in >> token;) tokens.push_back(token);
  return tokens;
}

std::vector<std::string> Split(const std::string& line) {
  std::vector<std::string_view> views;
  SplitWhitespace(line, views);
  return {views.begin(), views.end()};
}

TEST(WhitespaceTokensTest, SplitsAtEveryWhitespaceByteOnly) {
  EXPECT_EQ(Split(""), std::vector<std::string>{});
  EXPECT_EQ(Split(" \t\n\v\f\r "), std::vector<std::string>{});
  EXPECT_EQ(Split("   AA   -   - -    n/a    0      0      1      2 N"),
            (std::vector<std::string>{"AA", "-", "-", "-", "n/a", "0", "0", "1", "2", "N"}));
  EXPECT_EQ(Split("a\tb\vc\fd\re\nf g"), (std::vector<std::string>{"a", "b", "c", "d", "e", "f", "g"}));
  // Bytes next to the whitespace codes, NUL and bytes with the high bit set (whose low seven bits
  // are a whitespace code) belong to tokens.
  const std::string odd = std::string("x\x08y\x0ez\x1f") + '\0' + "w\x89v\xa0u\x8d";
  EXPECT_EQ(Split(odd), std::vector<std::string>{odd});
}

// Every length around the 8-byte words and the 64-byte windows, tokens that cross both, and lines
// of random bytes (mostly whitespace and letters, any byte now and then).
TEST(WhitespaceTokensTest, AgreesWithTheStreamOnRandomLines) {
  std::mt19937 rng(26);
  const std::string common = " \t\n\v\f\rab";
  std::uniform_int_distribution<int> any_byte(0, 255), pick(0, static_cast<int>(common.size()) - 1), kind(0, 9);
  for (std::size_t length = 0; length <= 200; ++length) {
    for (int round = 0; round < 40; ++round) {
      std::string line;
      for (std::size_t i = 0; i < length; ++i) {
        line += kind(rng) == 0 ? static_cast<char>(any_byte(rng)) : common[static_cast<std::size_t>(pick(rng))];
      }
      ASSERT_EQ(Split(line), StreamTokens(line)) << "length " << length << ", round " << round;
    }
  }
  // One token filling whole windows, and a line that is all whitespace, at each length.
  for (std::size_t length = 1; length <= 200; ++length) {
    const std::string token(length, 'q');
    ASSERT_EQ(Split(token), std::vector<std::string>{token});
    ASSERT_EQ(Split(" " + token + "\t"), std::vector<std::string>{token});
    ASSERT_EQ(Split(std::string(length, '\v')), std::vector<std::string>{});
  }
}

// Each of the 256 byte values at each of the eight places of a word, between letters: whitespace
// exactly where the stream skips, and a view of a longer buffer never reads past its end.
TEST(WhitespaceTokensTest, EveryByteValueAtEveryPlaceOfAWord) {
  for (int value = 0; value < 256; ++value) {
    for (std::size_t place = 0; place < 8; ++place) {
      std::string line = "abcdefghijklmnop";
      line[place + 4] = static_cast<char>(value);
      ASSERT_EQ(Split(line), StreamTokens(line)) << "byte " << value << " at " << place + 4;
      const std::string buffer = line + " tail";
      std::vector<std::string_view> views;
      SplitWhitespace(std::string_view(buffer).substr(0, line.size()), views);
      ASSERT_EQ(std::vector<std::string>(views.begin(), views.end()), StreamTokens(line)) << "byte " << value;
    }
  }
}

// The views point into the line (the mdef keeps them only while parsing it).
TEST(WhitespaceTokensTest, ViewsPointIntoTheLine) {
  const std::string line = "  base  left\tright";
  std::vector<std::string_view> views;
  SplitWhitespace(line, views);
  ASSERT_EQ(views.size(), 3u);
  EXPECT_EQ(views[0].data(), line.data() + 2);
  EXPECT_EQ(views[2].data(), line.data() + 13);
  EXPECT_EQ(views[2].size(), 5u);
}

}  // namespace
}  // namespace pstrain
