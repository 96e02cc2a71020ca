// The CI-fallback activation sidecar of a multipron shard (`fallback_senones`, docs/multipron.md):
//
//   PSTRAIN_FALLBACK_SENONES_V1\n
//   <tied-state count, decimal>\n
//   one byte per tied state: 0, or 1 when a CI fallback put the state into the graph of an
//   utterance that succeeded
//
// Every multipron shard writes it, even when all bytes are 0; it is a payload file (its digest
// enters payload_sha256). Non-multipron shards have none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pstrain {

inline constexpr const char* kFallbackSidecarFile = "fallback_senones";
inline constexpr const char* kFallbackSidecarMagic = "PSTRAIN_FALLBACK_SENONES_V1";

std::string EncodeFallbackSidecar(const std::vector<std::uint8_t>& flags);

struct SidecarProblem {
  std::string check;   // sidecar-header, sidecar-count, sidecar-byte, sidecar-size
  std::string detail;
};

// Checks `bytes` against the format and the model's tied-state count; on success fills `flags`.
std::optional<SidecarProblem> DecodeFallbackSidecar(const std::string& bytes, std::uint32_t n_tied_states,
                                                    std::vector<std::uint8_t>& flags);

}  // namespace pstrain
