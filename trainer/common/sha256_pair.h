// SHA-256 of two messages at once, with the same digests as Sha256Hex. On an x86-64 CPU with the
// SHA extensions a message's 64 rounds a block are a chain of dependent instructions, each waiting
// for the one before: one message leaves the core's SHA unit idle half the time, and two compressed
// side by side run at about twice the bytes a second (docs/performance.md, thirty-fifth round).
// Elsewhere the two are hashed one after the other (Crypto++, as Sha256Hex).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace pstrain {

// Lower-case hex digests of `first` and `second`, in that order.
std::array<std::string, 2> Sha256HexPair(std::span<const std::uint8_t> first, std::span<const std::uint8_t> second);

// Whether Sha256HexPair compresses the two messages side by side on this CPU (x86-64 with SHA and
// SSSE3), or hashes them one after the other.
bool Sha256PairSideBySide();

// The SHA-256 of two messages given piece by piece, the same number of bytes of each at a time (two
// files of one size, one read and one written, at the same offsets): the digests of two streams on
// the one thread that has both, compressed side by side as Sha256HexPair's.
class Sha256PairStream {
 public:
  // kFastest: side by side where Sha256PairSideBySide(), else one after the other; kOneAfterTheOther:
  // two Crypto++ streams on any CPU (the other path, for its tests).
  enum class Path { kFastest, kOneAfterTheOther };
  explicit Sha256PairStream(Path path = Path::kFastest);
  ~Sha256PairStream();
  Sha256PairStream(const Sha256PairStream&) = delete;
  Sha256PairStream& operator=(const Sha256PairStream&) = delete;
  // The next `size` bytes of the first message and of the second.
  void Add(const void* first, const void* second, std::size_t size);
  // Lower-case hex digests of everything added, the first message's then the second's; the stream
  // starts again empty.
  std::array<std::string, 2> HexDigests();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace pstrain
