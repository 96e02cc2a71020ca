// SHA-256 (Crypto++) of bytes, files and streams of pieces as lower-case hex.
#include "common/sha256.h"

#include <cryptopp/filters.h>
#include <cryptopp/hex.h>
#include <cryptopp/sha.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <memory>

#include "common/error.h"

namespace pstrain {

namespace {

std::string ToLowerHex(const CryptoPP::byte* digest, std::size_t size) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (std::size_t i = 0; i < size; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 0xF]);
  }
  return out;
}

}  // namespace

std::string Sha256Hex(const void* data, std::size_t size) {
  CryptoPP::SHA256 hash;
  CryptoPP::byte digest[CryptoPP::SHA256::DIGESTSIZE];
  hash.CalculateDigest(digest, static_cast<const CryptoPP::byte*>(data), size);
  return ToLowerHex(digest, sizeof(digest));
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
  return ToLowerHex(digest, sizeof(digest));
}

Sha256Behind::~Sha256Behind() { Stop(); }

void Sha256Behind::Add(const void* data, std::size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  while (size > 0) {
    std::unique_ptr<unsigned char[]>& block = blocks_[handed_ % kBlocks];
    if (!block) block.reset(new unsigned char[kBlock]);  // not zeroed: filled before it is read
    const std::size_t take = std::min(size, kBlock - filled_);
    std::memcpy(block.get() + filled_, bytes, take);
    filled_ += take;
    bytes += take;
    size -= take;
    if (filled_ == kBlock) HandOff();
  }
}

void Sha256Behind::HandOff() {
  std::unique_lock lock(mutex_);
  ++handed_;
  filled_ = 0;
  if (!thread_.joinable()) thread_ = std::thread([this] { HashBlocks(); });
  changed_.notify_all();
  // The next block to fill must have been hashed (the thread is at most kBlocks behind).
  changed_.wait(lock, [this] { return handed_ - hashed_ < kBlocks; });
}

void Sha256Behind::HashBlocks() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return hashed_ < handed_ || ending_; });
    if (hashed_ == handed_) return;  // ending, and nothing left
    const unsigned char* block = blocks_[hashed_ % kBlocks].get();
    lock.unlock();
    digest_.Add(block, kBlock);
    lock.lock();
    ++hashed_;
    changed_.notify_all();
  }
}

void Sha256Behind::Stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    ending_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

std::string Sha256Behind::HexDigest() {
  Stop();  // the thread hashes every block handed to it before it ends
  if (filled_ > 0) digest_.Add(blocks_[handed_ % kBlocks].get(), filled_);
  filled_ = 0;
  return digest_.HexDigest();
}

}  // namespace pstrain
