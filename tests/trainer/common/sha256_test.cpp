// SHA-256 (common/sha256.h): the FIPS 180-2 examples, and Sha256Stream giving the digest of the
// whole however the bytes are cut into pieces, and starting again empty after each digest.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "common/sha256.h"

namespace pstrain {
namespace {

TEST(Sha256, TheFipsExamples) {
  EXPECT_EQ(Sha256Hex(std::string_view("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex(std::string_view("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string_view("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, AStreamGivesTheDigestOfTheWholeWhateverThePieces) {
  std::mt19937 rng(5);
  std::string bytes(200000, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  const std::string whole = Sha256Hex(bytes);
  Sha256Stream stream;
  for (std::size_t cut : {std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{65536}, bytes.size()}) {
    for (std::size_t at = 0; at < bytes.size(); at += cut) stream.Add(bytes.data() + at, std::min(cut, bytes.size() - at));
    EXPECT_EQ(stream.HexDigest(), whole) << "pieces of " << cut;  // and the stream is empty again
  }
  EXPECT_EQ(stream.HexDigest(), Sha256Hex(std::string_view("")));
  stream.Add("ab", 2);
  stream.Add("c", 1);
  EXPECT_EQ(stream.HexDigest(), Sha256Hex(std::string_view("abc")));
}

}  // namespace
}  // namespace pstrain
