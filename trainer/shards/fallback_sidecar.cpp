// Encoding and decoding the CI-fallback activation sidecar of a multipron shard.
#include "shards/fallback_sidecar.h"

namespace pstrain {

std::string EncodeFallbackSidecar(const std::vector<std::uint8_t>& flags) {
  std::string out = std::string(kFallbackSidecarMagic) + "\n" + std::to_string(flags.size()) + "\n";
  for (std::uint8_t flag : flags) out.push_back(flag ? '\1' : '\0');
  return out;
}

std::optional<SidecarProblem> DecodeFallbackSidecar(const std::string& bytes, std::uint32_t n_tied_states,
                                                    std::vector<std::uint8_t>& flags) {
  const std::string magic = std::string(kFallbackSidecarMagic) + "\n";
  if (bytes.compare(0, magic.size(), magic) != 0) {
    return SidecarProblem{"sidecar-header", "does not start with the line " + std::string(kFallbackSidecarMagic)};
  }
  const std::size_t newline = bytes.find('\n', magic.size());
  const std::string count_text = bytes.substr(magic.size(), newline == std::string::npos ? 0 : newline - magic.size());
  const bool canonical = !count_text.empty() && count_text.size() <= 10 &&
                         count_text.find_first_not_of("0123456789") == std::string::npos &&
                         (count_text == "0" || count_text[0] != '0');
  if (newline == std::string::npos || !canonical) {
    return SidecarProblem{"sidecar-header", "the second line is not a decimal tied-state count"};
  }
  const std::uint64_t count = std::stoull(count_text);
  if (count != n_tied_states) {
    return SidecarProblem{"sidecar-count", "records " + count_text + " tied states, the model has " + std::to_string(n_tied_states)};
  }
  const std::size_t body = newline + 1;
  if (bytes.size() - body != count) {
    return SidecarProblem{"sidecar-size", std::to_string(bytes.size() - body) + " flag bytes after the header, expected " + count_text};
  }
  flags.assign(count, 0);
  for (std::size_t i = 0; i < count; ++i) {
    const unsigned char byte = static_cast<unsigned char>(bytes[body + i]);
    if (byte > 1) return SidecarProblem{"sidecar-byte", "tied state " + std::to_string(i) + " has byte " + std::to_string(byte) + " (only 0 and 1 are allowed)"};
    flags[i] = byte;
  }
  return std::nullopt;
}

}  // namespace pstrain
