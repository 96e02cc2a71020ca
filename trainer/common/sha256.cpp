// SHA-256 (Crypto++) of bytes, files and streams of pieces as lower-case hex.
#include "common/sha256.h"

#include <cryptopp/filters.h>
#include <cryptopp/hex.h>
#include <cryptopp/sha.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <memory>

#include "common/error.h"

namespace pstrain {

std::string DigestHex(const std::uint8_t* digest, std::size_t size) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (std::size_t i = 0; i < size; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 0xF]);
  }
  return out;
}

std::string Sha256Hex(const void* data, std::size_t size) {
  CryptoPP::SHA256 hash;
  CryptoPP::byte digest[CryptoPP::SHA256::DIGESTSIZE];
  hash.CalculateDigest(digest, static_cast<const CryptoPP::byte*>(data), size);
  return DigestHex(digest, sizeof(digest));
}

std::string Sha256Hex(std::string_view bytes) { return Sha256Hex(bytes.data(), bytes.size()); }

std::string Sha256OfFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path.string(), "cannot open for reading");
  Sha256Stream hash;
  // Not zeroed: a feature file is a few KiB, and zeroing 64 KiB for each cost more than its read.
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  const std::unique_ptr<char[]> buffer(new char[kChunk]);
  while (in) {
    in.read(buffer.get(), static_cast<std::streamsize>(kChunk));
    std::streamsize got = in.gcount();
    if (got > 0) hash.Add(buffer.get(), static_cast<std::size_t>(got));
  }
  if (in.bad()) throw FileError(path.string(), "read error while hashing");
  return hash.HexDigest();
}

struct Sha256Stream::State {
  CryptoPP::SHA256 hash;
};

Sha256Stream::Sha256Stream() : state_(std::make_unique<State>()) {}
Sha256Stream::~Sha256Stream() = default;

void Sha256Stream::Add(const void* data, std::size_t size) {
  state_->hash.Update(static_cast<const CryptoPP::byte*>(data), size);
}

std::string Sha256Stream::HexDigest() {
  CryptoPP::byte digest[CryptoPP::SHA256::DIGESTSIZE];
  state_->hash.Final(digest);
  return DigestHex(digest, sizeof(digest));
}

}  // namespace pstrain
