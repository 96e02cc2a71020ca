// PieceHandoff: a ring of piece buffers between threads, guarded by one mutex. A thread that waits
// is woken only once a quarter of the buffers is ready for it (or at the end): two threads passing
// a 43 MB file in 64 KiB pieces otherwise each slept and woke for nearly every piece.
#include "common/piece_handoff.h"

#include <algorithm>
#include <string>

namespace pstrain {

PieceHandoff::PieceHandoff(std::size_t slots, std::size_t piece_bytes, std::size_t users)
    : slots_(slots == 0 ? 1 : slots),
      piece_bytes_(piece_bytes == 0 ? 1 : piece_bytes),
      batch_(std::max<std::size_t>(1, slots_ / 4)),
      users_(users == 0 ? 1 : users),
      buffers_(new std::uint8_t[slots_ * piece_bytes_]),
      sizes_(new std::size_t[slots_]()),
      done_(new std::uint64_t[users_]()),
      waiting_(new bool[users_]()) {}

std::uint64_t PieceHandoff::LeastDone() const { return *std::min_element(done_.get(), done_.get() + users_); }

std::uint8_t* PieceHandoff::NextBuffer() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!user_stopped_ && handed_ - LeastDone() >= slots_) {
    maker_waiting_ = true;
    maker_changed_.wait(lock, [&] { return user_stopped_ || handed_ - LeastDone() + batch_ <= slots_; });
    maker_waiting_ = false;
  }
  if (user_stopped_) return nullptr;
  return buffers_.get() + (handed_ % slots_) * piece_bytes_;
}

void PieceHandoff::Hand(std::size_t size) {
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    sizes_[handed_ % slots_] = size;
    ++handed_;
    for (std::size_t u = 0; u < users_; ++u) wake = wake || (waiting_[u] && handed_ - done_[u] >= batch_);
  }
  if (wake) users_changed_.notify_all();
}

void PieceHandoff::Finish(bool complete) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (maker_end_ == End::kNone) maker_end_ = complete ? End::kComplete : End::kMakerStopped;
  }
  users_changed_.notify_all();
}

std::optional<std::span<const std::uint8_t>> PieceHandoff::Take(std::size_t user, const char* what) {
  std::unique_lock<std::mutex> lock(mutex_);
  const std::size_t u = std::min(user, users_ - 1);
  if (done_[u] == handed_ && maker_end_ == End::kNone) {
    waiting_[u] = true;
    users_changed_.wait(lock, [&] { return handed_ - done_[u] >= batch_ || maker_end_ != End::kNone; });
    waiting_[u] = false;
  }
  // A stopped maker's pieces are not used: what they would make is not the whole.
  if (maker_end_ == End::kMakerStopped) throw PiecesStopped(std::string(what) + ": the pieces it is made of stopped being made");
  if (done_[u] == handed_) return std::nullopt;  // (complete, every piece taken)
  const std::size_t slot = done_[u] % slots_;
  return std::span<const std::uint8_t>(buffers_.get() + slot * piece_bytes_, sizes_[slot]);
}

void PieceHandoff::Done(std::size_t user) {
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_[std::min(user, users_ - 1)];
    wake = maker_waiting_ && handed_ - LeastDone() + batch_ <= slots_;
  }
  if (wake) maker_changed_.notify_all();
}

void PieceHandoff::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    user_stopped_ = true;
  }
  maker_changed_.notify_all();
}

void PieceHandoff::UseEvery(std::size_t user, const char* what, const std::function<void(std::span<const std::uint8_t>)>& use) {
  try {
    while (const std::optional<std::span<const std::uint8_t>> piece = Take(user, what)) {
      use(*piece);
      Done(user);
    }
  } catch (...) {
    Stop();
    throw;
  }
}

}  // namespace pstrain
