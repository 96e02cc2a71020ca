// SHA-256 of two messages at once, with the same digests as Sha256Hex. On an x86-64 CPU with the
// SHA extensions a message's 64 rounds a block are a chain of dependent instructions, each waiting
// for the one before: one message leaves the core's SHA unit idle half the time, and two compressed
// side by side run at about twice the bytes a second (docs/performance.md, thirty-fifth round).
// Elsewhere the two are hashed one after the other (Crypto++, as Sha256Hex).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace pstrain {

// Lower-case hex digests of `first` and `second`, in that order.
std::array<std::string, 2> Sha256HexPair(std::span<const std::uint8_t> first, std::span<const std::uint8_t> second);

// Whether Sha256HexPair compresses the two messages side by side on this CPU (x86-64 with SHA and
// SSSE3), or hashes them one after the other.
bool Sha256PairSideBySide();

}  // namespace pstrain
