// SequentialFileReader: blocks read in order, each hashed on a second thread while the next is used.
#include "common/file_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "common/file_io.h"

namespace pstrain {

SequentialFileReader::SequentialFileReader(std::filesystem::path path, Hashing hashing)
    : path_(std::move(path)), hashing_(hashing) {
  struct stat status {};
  fd_ = OpenRegularFile(path_, /*no_follow=*/false, status);
  size_at_open_ = static_cast<std::uint64_t>(status.st_size);
}

SequentialFileReader::~SequentialFileReader() {
  if (hashing_done_.valid()) hashing_done_.wait();
  if (fd_ >= 0) ::close(fd_);
}

void SequentialFileReader::NextBlock() {
  const int next = 1 - current_;
  // buffers_[next] was last hashed before buffers_[current_]'s hashing started: free to refill.
  if (!buffers_[next]) buffers_[next].reset(new unsigned char[kBlock]);  // not zeroed: read over
  std::size_t filled = 0;
  while (filled < kBlock) {
    const ssize_t n = ::read(fd_, buffers_[next].get() + filled, kBlock - filled);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw FileError(path_.string(), std::string("read error: ") + std::strerror(errno));
    }
    if (n == 0) {
      end_of_file_ = true;
      break;
    }
    filled += static_cast<std::size_t>(n);
  }
  filled_[next] = filled;
  if (hashing_ == Hashing::kSha256) {
    if (hashing_done_.valid()) hashing_done_.get();
    if (filled > 0) {
      const unsigned char* data = buffers_[next].get();
      hashing_done_ = std::async(std::launch::async, [this, data, filled] { digest_.Add(data, filled); });
    }
  }
  current_ = next;
  position_ = 0;
}

std::size_t SequentialFileReader::Read(void* into, std::size_t n) {
  unsigned char* out = static_cast<unsigned char*>(into);
  std::size_t done = 0;
  while (done < n) {
    if (position_ == filled_[current_]) {
      if (end_of_file_) break;
      NextBlock();
      continue;
    }
    const std::size_t take = std::min(n - done, filled_[current_] - position_);
    std::memcpy(out + done, buffers_[current_].get() + position_, take);
    position_ += take;
    done += take;
  }
  return done;
}

bool SequentialFileReader::AtEnd() {
  while (position_ == filled_[current_] && !end_of_file_) NextBlock();
  return position_ == filled_[current_];
}

std::string SequentialFileReader::Sha256() {
  if (hashing_ != Hashing::kSha256) throw TrainingError(path_.string() + ": the reader was opened without hashing");
  if (!AtEnd()) throw TrainingError(path_.string() + ": the digest was asked for before the whole file was read");
  if (hashing_done_.valid()) hashing_done_.get();
  return digest_.HexDigest();
}

}  // namespace pstrain
