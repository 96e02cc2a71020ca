// SequentialFileReader: a regular file read front to back, optionally hashed as it is read.
//
// With hashing, every byte read from the file is also fed to SHA-256, and the digest is available
// once the whole file has been read: it is the digest of exactly the bytes the caller was handed,
// so comparing it with a recorded digest checks what was used, with no second read in which the
// file could differ. The hashing runs on one thread of its own, started with the reader, at
// most kBuffers blocks (of 256 KiB) behind the reading: a reader that also works on the bytes
// it reads (the reducer adding a shard's sums) pays for the slower of the two, not for both, and
// the faster one never waits for the other's every block.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "common/sha256.h"
#include "common/standby_thread.h"

namespace pstrain {

class SequentialFileReader {
 public:
  enum class Hashing { kNone, kSha256 };

  // Opens `path`, which must be a regular file (symbolic links followed; a FIFO or device is
  // refused without blocking). Throws InputError naming the file.
  SequentialFileReader(std::filesystem::path path, Hashing hashing);
  // Stops and joins the hashing thread, if one runs.
  ~SequentialFileReader();
  SequentialFileReader(const SequentialFileReader&) = delete;
  SequentialFileReader& operator=(const SequentialFileReader&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // The file's size when it was opened (fstat).
  std::uint64_t size_at_open() const { return size_at_open_; }

  // Copies the next n bytes of the file to `into`; returns how many there were (fewer than n only
  // at the end of the file). Throws InputError naming the file on a read error.
  std::size_t Read(void* into, std::size_t n);
  // Whether every byte of the file has been read (it reads ahead to find out).
  bool AtEnd();
  // The lower-case hex SHA-256 of the whole file, as read. Only with Hashing::kSha256, and only at
  // the end (AtEnd()); otherwise a TrainingError.
  std::string Sha256();

 private:
  static constexpr std::size_t kBlock = std::size_t{1} << 18;
  static constexpr std::size_t kBuffers = 4;
  // Reads the next block into the buffer the hashing thread is done with (waiting for it if need
  // be) and hands it to that thread; the blocks are hashed in the order they were read.
  void NextBlock();
  // The hashing thread: each block handed over, in order, until told to stop.
  void HashBlocks();
  // The current block's buffer (once a block was read), and its bytes (0 before the first).
  std::size_t CurrentSlot() const;
  std::size_t CurrentFilled() const;

  std::filesystem::path path_;
  Hashing hashing_;
  int fd_ = -1;
  std::uint64_t size_at_open_ = 0;
  std::unique_ptr<unsigned char[]> buffers_[kBuffers];
  std::size_t filled_[kBuffers] = {};
  std::uint64_t blocks_read_ = 0;  // blocks read so far; block b is in buffers_[b % kBuffers]
  std::size_t position_ = 0;       // in the current block, buffers_[(blocks_read_ - 1) % kBuffers]
  bool end_of_file_ = false;
  Sha256Stream digest_;
  // With the hashing thread's: how many blocks it has been handed and has hashed, and whether to stop.
  std::mutex mutex_;
  std::condition_variable changed_;
  std::uint64_t blocks_handed_ = 0;
  std::uint64_t blocks_hashed_ = 0;
  std::exception_ptr hash_error_;  // the hashing thread's, rethrown by the reading thread
  bool stop_ = false;
  // Started with the reader (common/standby_thread.h: a thread started at the first block waited,
  // on its creator's CPU, behind the reading), handed HashBlocks at the first block.
  std::optional<StandbyThread> hasher_;
};

}  // namespace pstrain
