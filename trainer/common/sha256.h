// SHA-256 (Crypto++) as lower-case hex, for fingerprints and payload digests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace pstrain {

std::string Sha256Hex(std::string_view bytes);
// A digest's bytes as lower-case hex, two digits a byte (the form every digest here is given in).
std::string DigestHex(const std::uint8_t* digest, std::size_t size);
std::string Sha256Hex(const void* data, std::size_t size);
// Streams the file; throws InputError naming the file when it cannot be read.
std::string Sha256OfFile(const std::filesystem::path& path);

// The SHA-256 of bytes given piece by piece: the digest of a file as it is written, without
// reading it back.
class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;
  void Add(const void* data, std::size_t size);
  // Lower-case hex of everything added; the stream starts again empty.
  std::string HexDigest();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace pstrain
