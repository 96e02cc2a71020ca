// SHA-256 of two messages at once: FIPS 180-4's compression with the x86 SHA extensions, the two
// messages' blocks in lockstep, and Crypto++ one after the other where the CPU lacks them.
#include "common/sha256_pair.h"

#include <algorithm>
#include <cstring>

#include "common/sha256.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace pstrain {

#if defined(__x86_64__)
namespace {

// FIPS 180-4 section 4.2.2: the round constants.
alignas(16) constexpr std::uint32_t kRoundConstants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
// Section 5.3.3: the initial hash value H0 .. H7.
constexpr std::uint32_t kInitialHash[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                           0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

// A message's hash state as SHA256RNDS2 takes it: the working variables in two registers, lanes
// 3..0 holding A, B, E, F and C, D, G, H.
struct ShaState {
  __m128i abef;
  __m128i cdgh;
};

__attribute__((target("sha,ssse3"))) ShaState InitialState() {
  const std::uint32_t* h = kInitialHash;
  return {_mm_set_epi32(static_cast<int>(h[0]), static_cast<int>(h[1]), static_cast<int>(h[4]), static_cast<int>(h[5])),
          _mm_set_epi32(static_cast<int>(h[2]), static_cast<int>(h[3]), static_cast<int>(h[6]), static_cast<int>(h[7]))};
}

// The digest of a final state: H0 .. H7, big-endian, as lower-case hex.
__attribute__((target("sha,ssse3"))) std::string HexOf(const ShaState& state) {
  std::uint32_t abef[4], cdgh[4];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(abef), state.abef);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(cdgh), state.cdgh);
  const std::uint32_t h[8] = {abef[3], abef[2], cdgh[3], cdgh[2], abef[1], abef[0], cdgh[1], cdgh[0]};
  std::uint8_t digest[32];
  for (int i = 0; i < 32; ++i) digest[i] = static_cast<std::uint8_t>(h[i / 4] >> (24 - 8 * (i % 4)));
  return DigestHex(digest, sizeof digest);
}

// n consecutive 64-byte blocks of each of kLanes messages (lane k's at blocks[k]) added to
// state[k]. Each lane is section 6.2.2's computation: the message schedule four words at a time
// (SHA256MSG1 and SHA256MSG2: W[t-16] + sigma0(W[t-15]), + W[t-7], + sigma1(W[t-2])), and two
// rounds per SHA256RNDS2. The lanes share nothing; interleaved, their rounds overlap.
template <int kLanes>
__attribute__((target("sha,ssse3"))) void CompressBlocks(ShaState* state, const std::uint8_t* const* blocks, std::size_t n) {
  const __m128i big_endian = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  const std::uint8_t* at[kLanes];
  for (int k = 0; k < kLanes; ++k) at[k] = blocks[k];
  for (std::size_t b = 0; b < n; ++b) {
    __m128i abef[kLanes], cdgh[kLanes];
    __m128i w[kLanes][4];  // W[4j .. 4j+3] in w[.][j % 4], the last four groups
    for (int k = 0; k < kLanes; ++k) {
      abef[k] = state[k].abef;
      cdgh[k] = state[k].cdgh;
    }
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) {
      const __m128i round_constants = _mm_load_si128(reinterpret_cast<const __m128i*>(kRoundConstants + 4 * j));
#pragma GCC unroll 2
      for (int k = 0; k < kLanes; ++k) {
        __m128i words;
        if (j < 4) {
          words = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at[k] + 16 * j)), big_endian);
        } else {
          // w[j % 4] holds W[4j-16 ..], w[(j+1) % 4] W[4j-12 ..], w[(j+2) % 4] W[4j-8 ..], w[(j+3) % 4] W[4j-4 ..].
          const __m128i minus7 = _mm_alignr_epi8(w[k][(j + 3) % 4], w[k][(j + 2) % 4], 4);  // W[4j-7 .. 4j-4]
          const __m128i partial = _mm_add_epi32(_mm_sha256msg1_epu32(w[k][j % 4], w[k][(j + 1) % 4]), minus7);
          words = _mm_sha256msg2_epu32(partial, w[k][(j + 3) % 4]);
        }
        w[k][j % 4] = words;
        __m128i schedule = _mm_add_epi32(words, round_constants);
        cdgh[k] = _mm_sha256rnds2_epu32(cdgh[k], abef[k], schedule);
        schedule = _mm_shuffle_epi32(schedule, 0x0E);
        abef[k] = _mm_sha256rnds2_epu32(abef[k], cdgh[k], schedule);
      }
    }
    for (int k = 0; k < kLanes; ++k) {
      state[k].abef = _mm_add_epi32(state[k].abef, abef[k]);
      state[k].cdgh = _mm_add_epi32(state[k].cdgh, cdgh[k]);
      at[k] += 64;
    }
  }
}

// A message as blocks: its whole 64-byte blocks where they are, then section 5.1.1's padding
// (the last bytes, 0x80, zeros, the length in bits, big-endian) in one or two blocks of its own.
class PaddedMessage {
 public:
  explicit PaddedMessage(std::span<const std::uint8_t> bytes) {
    const std::size_t whole = bytes.size() / 64, rest = bytes.size() % 64;
    part_[0] = {bytes.data(), whole};
    if (rest > 0) std::memcpy(tail_, bytes.data() + 64 * whole, rest);
    tail_[rest] = 0x80;
    const std::size_t tail_blocks = rest < 56 ? 1 : 2;
    const std::uint64_t bits = static_cast<std::uint64_t>(bytes.size()) * 8;
    for (int i = 0; i < 8; ++i) tail_[64 * tail_blocks - 1 - i] = static_cast<std::uint8_t>(bits >> (8 * i));
    part_[1] = {tail_, tail_blocks};
    Skip();
  }
  PaddedMessage(const PaddedMessage&) = delete;  // part_ may point into tail_
  PaddedMessage& operator=(const PaddedMessage&) = delete;
  bool Done() const { return part_at_ == 2; }
  const std::uint8_t* Next() const { return part_[part_at_].first; }
  std::size_t Left() const { return part_[part_at_].second; }  // in the current part
  void Advance(std::size_t n) {
    part_[part_at_].first += 64 * n;
    part_[part_at_].second -= n;
    Skip();
  }

 private:
  void Skip() {
    while (part_at_ < 2 && part_[part_at_].second == 0) ++part_at_;
  }
  std::pair<const std::uint8_t*, std::size_t> part_[2];
  int part_at_ = 0;
  std::uint8_t tail_[128] = {};
};

std::array<std::string, 2> SideBySide(std::span<const std::uint8_t> first, std::span<const std::uint8_t> second) {
  PaddedMessage message[2] = {PaddedMessage(first), PaddedMessage(second)};
  ShaState state[2] = {InitialState(), InitialState()};
  while (!message[0].Done() && !message[1].Done()) {
    const std::size_t n = std::min(message[0].Left(), message[1].Left());
    const std::uint8_t* blocks[2] = {message[0].Next(), message[1].Next()};
    CompressBlocks<2>(state, blocks, n);
    message[0].Advance(n);
    message[1].Advance(n);
  }
  for (int k = 0; k < 2; ++k) {
    while (!message[k].Done()) {
      const std::size_t n = message[k].Left();
      const std::uint8_t* blocks[1] = {message[k].Next()};
      CompressBlocks<1>(&state[k], blocks, n);
      message[k].Advance(n);
    }
  }
  return {HexOf(state[0]), HexOf(state[1])};
}

// Two messages of equal lengths as they come: the bytes of an unfinished block (the same number
// of each) held until the next ones complete it.
class SideBySideStream {
 public:
  SideBySideStream() { Reset(); }
  void Add(const std::uint8_t* first, const std::uint8_t* second, std::size_t size) {
    total_ += size;
    if (held_ > 0) {
      const std::size_t n = std::min(size, 64 - held_);
      std::memcpy(block_[0] + held_, first, n);
      std::memcpy(block_[1] + held_, second, n);
      held_ += n;
      first += n;
      second += n;
      size -= n;
      if (held_ < 64) return;
      const std::uint8_t* blocks[2] = {block_[0], block_[1]};
      CompressBlocks<2>(state_, blocks, 1);
      held_ = 0;
    }
    if (size >= 64) {
      const std::uint8_t* blocks[2] = {first, second};
      CompressBlocks<2>(state_, blocks, size / 64);
      first += size / 64 * 64;
      second += size / 64 * 64;
      size %= 64;
    }
    std::memcpy(block_[0], first, size);
    std::memcpy(block_[1], second, size);
    held_ = size;
  }
  // Section 5.1.1's padding of both (the same length: the same one or two blocks), then the digests.
  std::array<std::string, 2> Finish() {
    const std::uint64_t bits = total_ * 8;
    std::uint8_t tail[2][128] = {};
    const std::size_t tail_blocks = held_ < 56 ? 1 : 2;
    for (int k = 0; k < 2; ++k) {
      std::memcpy(tail[k], block_[k], held_);
      tail[k][held_] = 0x80;
      for (int i = 0; i < 8; ++i) tail[k][64 * tail_blocks - 1 - i] = static_cast<std::uint8_t>(bits >> (8 * i));
    }
    const std::uint8_t* blocks[2] = {tail[0], tail[1]};
    CompressBlocks<2>(state_, blocks, tail_blocks);
    std::array<std::string, 2> digests = {HexOf(state_[0]), HexOf(state_[1])};
    Reset();
    return digests;
  }

 private:
  void Reset() {
    state_[0] = state_[1] = InitialState();
    held_ = 0;
    total_ = 0;
  }
  ShaState state_[2];
  std::uint8_t block_[2][64];
  std::size_t held_ = 0;
  std::uint64_t total_ = 0;
};

}  // namespace

// CPUID itself (leaf 1 ECX for SSSE3, leaf 7 EBX for SHA): clang 14, which builds the fuzzers,
// has no "sha" for __builtin_cpu_supports.
bool Sha256PairSideBySide() {
  static const bool side_by_side = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || (ecx & bit_SSSE3) == 0) return false;
    if (__get_cpuid_max(0, nullptr) < 7) return false;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    return (ebx & bit_SHA) != 0;
  }();
  return side_by_side;
}

std::array<std::string, 2> Sha256HexPair(std::span<const std::uint8_t> first, std::span<const std::uint8_t> second) {
  if (Sha256PairSideBySide()) return SideBySide(first, second);
  return {Sha256Hex(first.data(), first.size()), Sha256Hex(second.data(), second.size())};
}

#else

bool Sha256PairSideBySide() { return false; }

std::array<std::string, 2> Sha256HexPair(std::span<const std::uint8_t> first, std::span<const std::uint8_t> second) {
  return {Sha256Hex(first.data(), first.size()), Sha256Hex(second.data(), second.size())};
}

#endif

// Side by side where Sha256PairSideBySide, else two Sha256Streams (Crypto++).
struct Sha256PairStream::State {
#if defined(__x86_64__)
  std::unique_ptr<SideBySideStream> side_by_side;
#endif
  std::unique_ptr<Sha256Stream> apart[2];
};

Sha256PairStream::Sha256PairStream(Path path) : state_(std::make_unique<State>()) {
#if defined(__x86_64__)
  if (path == Path::kFastest && Sha256PairSideBySide()) {
    state_->side_by_side = std::make_unique<SideBySideStream>();
    return;
  }
#endif
  for (std::unique_ptr<Sha256Stream>& stream : state_->apart) stream = std::make_unique<Sha256Stream>();
}

Sha256PairStream::~Sha256PairStream() = default;

void Sha256PairStream::Add(const void* first, const void* second, std::size_t size) {
#if defined(__x86_64__)
  if (state_->side_by_side) {
    state_->side_by_side->Add(static_cast<const std::uint8_t*>(first), static_cast<const std::uint8_t*>(second), size);
    return;
  }
#endif
  state_->apart[0]->Add(first, size);
  state_->apart[1]->Add(second, size);
}

std::array<std::string, 2> Sha256PairStream::HexDigests() {
#if defined(__x86_64__)
  if (state_->side_by_side) return state_->side_by_side->Finish();
#endif
  return {state_->apart[0]->HexDigest(), state_->apart[1]->HexDigest()};
}

}  // namespace pstrain
