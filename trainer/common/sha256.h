// SHA-256 (Crypto++) as lower-case hex, for fingerprints and payload digests.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace pstrain {

std::string Sha256Hex(std::string_view bytes);
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

// A Sha256Stream whose hashing runs on a second thread, a few blocks behind what was added: a
// writer that hashes the bytes it produces (exact_counts, several megabytes for a tied model) pays
// for the slower of producing and hashing, not for both. Add copies the bytes into a block of
// kBlock bytes; a full block is handed to the thread, and Add waits only when kBlocks of them are
// still unhashed. A stream that ends inside its first block starts no thread: it is hashed on the
// caller's thread by HexDigest.
class Sha256Behind {
 public:
  static constexpr std::size_t kBlock = std::size_t{1} << 18;
  static constexpr std::size_t kBlocks = 4;

  Sha256Behind() = default;
  // Waits for the thread, if one runs (it hashes the blocks handed to it, at most kBlocks, first).
  ~Sha256Behind();
  Sha256Behind(const Sha256Behind&) = delete;
  Sha256Behind& operator=(const Sha256Behind&) = delete;

  void Add(const void* data, std::size_t size);
  // Lower-case hex of everything added, once the thread has hashed every full block. Once only.
  std::string HexDigest();

 private:
  void HandOff();  // the filling block is full: hand it to the thread
  void HashBlocks();  // the thread
  void Stop();

  std::unique_ptr<unsigned char[]> blocks_[kBlocks];
  std::size_t filled_ = 0;  // bytes in the block being filled, blocks_[handed_ % kBlocks]
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t handed_ = 0, hashed_ = 0;  // full blocks handed to the thread, and hashed by it
  bool ending_ = false;
  std::thread thread_;  // started by the first full block
  Sha256Stream digest_;  // the thread's until it is joined
};

}  // namespace pstrain
