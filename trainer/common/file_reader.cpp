// SequentialFileReader: blocks read in order into a ring, hashed in order by one thread of its own.
#include "common/file_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "common/file_io.h"

namespace pstrain {

SequentialFileReader::SequentialFileReader(std::filesystem::path path, Hashing hashing)
    : path_(std::move(path)), hashing_(hashing) {
  struct stat status {};
  fd_ = OpenRegularFile(path_, /*no_follow=*/false, status);
  size_at_open_ = static_cast<std::uint64_t>(status.st_size);
  if (hashing_ == Hashing::kSha256) {
    try {
      hasher_.emplace();
    } catch (...) {
      ::close(fd_);
      throw;
    }
  }
}

SequentialFileReader::~SequentialFileReader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  hasher_.reset();  // joins it (HashBlocks returns on stop_)
  if (fd_ >= 0) ::close(fd_);
}

void SequentialFileReader::HashBlocks() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stop_ || blocks_hashed_ < blocks_handed_; });
    if (stop_) return;
    const std::size_t slot = static_cast<std::size_t>(blocks_hashed_ % kBuffers);
    lock.unlock();
    try {
      digest_.Add(buffers_[slot].get(), filled_[slot]);
    } catch (...) {
      lock.lock();
      hash_error_ = std::current_exception();  // the reading thread rethrows it where it waits
      changed_.notify_all();
      return;
    }
    lock.lock();
    ++blocks_hashed_;
    changed_.notify_all();
  }
}

void SequentialFileReader::NextBlock() {
  const std::uint64_t block = blocks_read_;
  const std::size_t slot = static_cast<std::size_t>(block % kBuffers);
  if (hashing_ == Hashing::kSha256 && block >= kBuffers) {
    // The slot's last block (block - kBuffers) must be hashed before it is read over.
    if (hasher_) hasher_->Widen();
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this, block] { return blocks_hashed_ + kBuffers > block || hash_error_; });
    if (hash_error_) std::rethrow_exception(hash_error_);
  }
  if (!buffers_[slot]) buffers_[slot].reset(new unsigned char[kBlock]);  // not zeroed: read over
  const std::size_t filled = ReadUpTo(fd_, buffers_[slot].get(), kBlock, path_);
  if (filled < kBlock) end_of_file_ = true;
  if (filled == 0) return;  // nothing more: the current block stays the last one
  filled_[slot] = filled;
  blocks_read_ = block + 1;
  position_ = 0;
  if (hashing_ == Hashing::kSha256) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      blocks_handed_ = blocks_read_;
    }
    if (block != 0) {
      changed_.notify_all();
    } else {
      try {
        hasher_->Run([this] { HashBlocks(); });
      } catch (...) {
        // No thread will hash what was handed: every later wait, and Sha256(), rethrows this.
        std::lock_guard<std::mutex> lock(mutex_);
        hash_error_ = std::current_exception();
        throw;
      }
    }
  }
}

std::size_t SequentialFileReader::CurrentSlot() const { return static_cast<std::size_t>((blocks_read_ - 1) % kBuffers); }

std::size_t SequentialFileReader::CurrentFilled() const { return blocks_read_ == 0 ? 0 : filled_[CurrentSlot()]; }

std::size_t SequentialFileReader::Read(void* into, std::size_t n) {
  unsigned char* out = static_cast<unsigned char*>(into);
  std::size_t done = 0;
  while (done < n) {
    if (position_ == CurrentFilled()) {
      if (end_of_file_) break;
      NextBlock();
      continue;
    }
    const std::size_t take = std::min(n - done, CurrentFilled() - position_);
    std::memcpy(out + done, buffers_[CurrentSlot()].get() + position_, take);
    position_ += take;
    done += take;
  }
  return done;
}

bool SequentialFileReader::AtEnd() {
  while (position_ == CurrentFilled() && !end_of_file_) NextBlock();
  return position_ == CurrentFilled();
}

std::string SequentialFileReader::Sha256() {
  if (hashing_ != Hashing::kSha256) throw TrainingError(path_.string() + ": the reader was opened without hashing");
  if (!AtEnd()) throw TrainingError(path_.string() + ": the digest was asked for before the whole file was read");
  if (hasher_) hasher_->Widen();
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return blocks_hashed_ == blocks_handed_ || hash_error_; });
  if (hash_error_) std::rethrow_exception(hash_error_);
  return digest_.HexDigest();
}

}  // namespace pstrain
