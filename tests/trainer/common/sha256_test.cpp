// SHA-256 (common/sha256.h): the FIPS 180-2 examples, Sha256Stream giving the digest of the whole
// however the bytes are cut into pieces and starting again empty after each digest, and
// Sha256Behind (hashed on a thread of its own) giving the same digests across its block edges.
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

TEST(Sha256Behind, GivesTheDigestOfTheWholeAcrossItsBlocks) {
  constexpr std::size_t kBlock = Sha256Behind::kBlock;
  std::mt19937 rng(7);
  std::string bytes((Sha256Behind::kBlocks + 3) * kBlock + 4321, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  // Lengths on each side of the block edges, the first block (no thread) and more blocks than
  // the thread may lag behind by (the writer waits for it).
  for (std::size_t length : {std::size_t{0}, std::size_t{3}, kBlock - 1, kBlock, kBlock + 1, 2 * kBlock,
                             Sha256Behind::kBlocks * kBlock, Sha256Behind::kBlocks * kBlock + 1, bytes.size()}) {
    const std::string_view part(bytes.data(), length);
    const std::string whole = Sha256Hex(part);
    for (std::size_t cut : {std::size_t{1000}, std::size_t{65536}, kBlock + 17, length + 1}) {
      if (cut == 1000 && length > 2 * kBlock) continue;  // (slow, and the edges are covered below)
      Sha256Behind stream;
      for (std::size_t at = 0; at < length; at += cut) stream.Add(part.data() + at, std::min(cut, length - at));
      EXPECT_EQ(stream.HexDigest(), whole) << length << " bytes in pieces of " << cut;
    }
  }
  Sha256Behind abc;
  abc.Add("ab", 2);
  abc.Add("c", 1);
  EXPECT_EQ(abc.HexDigest(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Behind, EndsWithoutADigestWhileItsThreadHashes) {
  // An exception between Add and HexDigest destroys the stream with blocks still handed to its
  // thread: the destructor must join it, not hang or leave it reading freed blocks (ASan's run).
  std::string bytes(3 * Sha256Behind::kBlock + 5, 'x');
  for (int round = 0; round < 20; ++round) {
    Sha256Behind stream;
    stream.Add(bytes.data(), bytes.size());
  }
}

}  // namespace
}  // namespace pstrain
