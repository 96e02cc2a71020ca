// SequentialFileReader: a regular file read front to back, optionally hashed as it is read.
//
// With hashing, every byte read from the file is also fed to SHA-256, and the digest is available
// once the whole file has been read: it is the digest of exactly the bytes the caller was handed,
// so comparing it with a recorded digest checks what was used, with no second read in which the
// file could differ. The hashing runs on a second thread, at most one block (1 MiB) behind the
// reading: a reader that also works on the bytes it reads (the reducer adding a shard's sums) pays
// for the slower of the two, not for both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <future>
#include <memory>
#include <string>

#include "common/sha256.h"

namespace pstrain {

class SequentialFileReader {
 public:
  enum class Hashing { kNone, kSha256 };

  // Opens `path`, which must be a regular file (symbolic links followed; a FIFO or device is
  // refused without blocking). Throws InputError naming the file.
  SequentialFileReader(std::filesystem::path path, Hashing hashing);
  // Waits for the hashing thread, if one still runs.
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
  static constexpr std::size_t kBlock = std::size_t{1} << 20;
  // Reads the next block into the buffer not being handed out, and starts hashing it once the
  // previous block's hashing has finished (so blocks are hashed in order, one at a time).
  void NextBlock();

  std::filesystem::path path_;
  Hashing hashing_;
  int fd_ = -1;
  std::uint64_t size_at_open_ = 0;
  std::unique_ptr<unsigned char[]> buffers_[2];
  std::size_t filled_[2] = {0, 0};
  int current_ = 0;
  std::size_t position_ = 0;  // in buffers_[current_]
  bool end_of_file_ = false;
  Sha256Stream digest_;
  std::future<void> hashing_done_;  // the hashing of buffers_[current_] (invalid when none runs)
};

}  // namespace pstrain
