// SHA-256 of two messages at once (common/sha256_pair.h): the FIPS 180-2 examples, and the same
// digests as Sha256Hex for every pairing of lengths around the padding's edges (55, 56, 63, 64
// bytes: one or two padding blocks) and of unequal lengths (one message's blocks run on alone), on
// whichever path this CPU takes; and that path is the side-by-side one exactly when the CPU has the
// SHA extensions.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/sha256.h"
#include "common/sha256_pair.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace pstrain {
namespace {

std::span<const std::uint8_t> Bytes(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

TEST(Sha256Pair, TheFipsExamples) {
  const std::string abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  const std::string two_blocks = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
  const std::string empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  const std::string_view long_text = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  EXPECT_EQ(Sha256HexPair(Bytes("abc"), Bytes(long_text)), (std::array<std::string, 2>{abc, two_blocks}));
  EXPECT_EQ(Sha256HexPair(Bytes(long_text), Bytes("")), (std::array<std::string, 2>{two_blocks, empty}));
  EXPECT_EQ(Sha256HexPair(Bytes(""), Bytes("abc")), (std::array<std::string, 2>{empty, abc}));
}

TEST(Sha256Pair, EveryPairingOfLengthsGivesSha256HexsDigests) {
  const std::vector<std::size_t> lengths = {0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4096, 17013, 70001};
  std::mt19937 rng(12);
  std::vector<std::vector<std::uint8_t>> messages;
  std::vector<std::string> want;
  for (std::size_t length : lengths) {
    std::vector<std::uint8_t> bytes(length);
    for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>(rng());
    want.push_back(Sha256Hex(bytes.data(), bytes.size()));
    messages.push_back(std::move(bytes));
  }
  for (std::size_t i = 0; i < messages.size(); ++i) {
    for (std::size_t j = 0; j < messages.size(); ++j) {
      const std::array<std::string, 2> got = Sha256HexPair(messages[i], messages[j]);
      EXPECT_EQ(got[0], want[i]) << "first of " << lengths[i] << " and " << lengths[j] << " bytes";
      EXPECT_EQ(got[1], want[j]) << "second of " << lengths[i] << " and " << lengths[j] << " bytes";
    }
  }
}

TEST(Sha256Pair, TwoMessagesOfTheSameBytesButOneGetTheirOwnDigests) {
  std::vector<std::uint8_t> a(5000, 0x5a), b = a;
  b[4321] ^= 1;
  const std::array<std::string, 2> got = Sha256HexPair(a, b);
  EXPECT_EQ(got[0], Sha256Hex(a.data(), a.size()));
  EXPECT_EQ(got[1], Sha256Hex(b.data(), b.size()));
  EXPECT_NE(got[0], got[1]);
}

// Two messages of one length given in pieces of every kind of size (a header of 48 bytes, 64 KiB
// pieces, single bytes, pieces that end inside a block or on its edge): Sha256Hex's digests, and the
// stream starts again empty after each pair of digests; on either path (one after the other is what
// a CPU without the SHA extensions takes, aarch64 among them).
void ExpectStreamDigestsOfPiecesOfAnySize(Sha256PairStream::Path path) {
  std::mt19937 rng(34);
  Sha256PairStream stream(path);
  for (std::size_t length : {std::size_t{0}, std::size_t{1}, std::size_t{55}, std::size_t{56}, std::size_t{63}, std::size_t{64},
                             std::size_t{65}, std::size_t{119}, std::size_t{120}, std::size_t{48 + 3 * 65536}, std::size_t{100003}}) {
    std::vector<std::uint8_t> a(length), b(length);
    for (std::uint8_t& x : a) x = static_cast<std::uint8_t>(rng());
    for (std::uint8_t& x : b) x = static_cast<std::uint8_t>(rng());
    for (int split = 0; split < 4; ++split) {
      std::size_t at = 0;
      while (at < length) {
        std::size_t n = 0;
        switch (split) {
          case 0: n = length; break;                                               // whole
          case 1: n = at == 0 ? std::min<std::size_t>(48, length) : 65536; break;  // a header, then 64 KiB pieces
          case 2: n = 1 + rng() % 200; break;                                      // small pieces across block edges
          case 3: n = 1 + rng() % 70000; break;                                    // large ones
        }
        n = std::min(n, length - at);
        stream.Add(a.data() + at, b.data() + at, n);
        at += n;
      }
      const std::array<std::string, 2> got = stream.HexDigests();
      EXPECT_EQ(got[0], Sha256Hex(a.data(), a.size())) << length << " bytes, split " << split;
      EXPECT_EQ(got[1], Sha256Hex(b.data(), b.size())) << length << " bytes, split " << split;
    }
  }
}

TEST(Sha256Pair, AStreamGivenPiecesOfAnySizeGivesSha256HexsDigests) {
  ExpectStreamDigestsOfPiecesOfAnySize(Sha256PairStream::Path::kFastest);
}

TEST(Sha256Pair, AStreamOneAfterTheOtherGivesTheSameDigests) {
  ExpectStreamDigestsOfPiecesOfAnySize(Sha256PairStream::Path::kOneAfterTheOther);
}

TEST(Sha256Pair, SideBySideExactlyWhenTheCpuHasTheShaExtensions) {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  ASSERT_TRUE(__get_cpuid(1, &eax, &ebx, &ecx, &edx));
  const bool ssse3 = (ecx & bit_SSSE3) != 0;
  bool sha = false;
  if (__get_cpuid_max(0, nullptr) >= 7) {
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    sha = (ebx & bit_SHA) != 0;
  }
  EXPECT_EQ(Sha256PairSideBySide(), sha && ssse3);
#else
  EXPECT_FALSE(Sha256PairSideBySide());
#endif
}

}  // namespace
}  // namespace pstrain
