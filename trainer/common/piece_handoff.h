// PieceHandoff: pieces of bytes made on one thread and used on others (each piece hashed by one and
// written to a file by another), a few at a time in fixed buffers: the maker waits only when every
// buffer is still in use, a user only when no piece is ready for it, and a side that waits is woken
// once a quarter of the buffers is ready for it (or at the end), not for every piece. Either side
// may stop (an error), and the other learns it at its next step instead of waiting for ever.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>

#include "common/error.h"

namespace pstrain {

// What a user's Take throws once the maker has stopped part-way.
class PiecesStopped : public TrainingError {
 public:
  explicit PiecesStopped(const std::string& message) : TrainingError(message) {}
};

class PieceHandoff {
 public:
  // `slots` buffers of `piece_bytes` each, for `users` users that each take every piece (all at
  // least 1).
  PieceHandoff(std::size_t slots, std::size_t piece_bytes, std::size_t users = 1);
  PieceHandoff(const PieceHandoff&) = delete;
  PieceHandoff& operator=(const PieceHandoff&) = delete;

  // The maker's side, in this order for each piece: the next piece's buffer (piece_bytes long),
  // once every user is done with the piece `slots` before it; nullptr once a user has stopped.
  std::uint8_t* NextBuffer();
  // The piece in the buffer NextBuffer gave is `size` bytes (at most piece_bytes) and ready.
  void Hand(std::size_t size);
  // No more pieces: every one handed (`complete`), or the maker stopped part-way.
  void Finish(bool complete);

  // A user's side (`user` in [0, users)): the next piece's bytes, once handed; nullopt once the
  // maker finished complete and every piece was taken; throws PiecesStopped (`what` and "stopped")
  // if the maker stopped.
  std::optional<std::span<const std::uint8_t>> Take(std::size_t user, const char* what);
  // Done with the piece Take returned last: its buffer is the maker's again once every user is.
  void Done(std::size_t user);
  // A user stops taking (an error): NextBuffer returns nullptr from then on.
  void Stop();
  // A whole user's side: `use` called on every piece in order (Take, then Done), until the maker
  // finished complete. Whatever Take or `use` throws stops the handoff first (Stop: the maker never
  // waits for a user that has ended), then propagates.
  void UseEvery(std::size_t user, const char* what, const std::function<void(std::span<const std::uint8_t>)>& use);

 private:
  std::uint64_t LeastDone() const;  // (under mutex_) the pieces every user is done with

  const std::size_t slots_, piece_bytes_;
  const std::size_t batch_;  // a waiting side is woken once this many pieces or buffers are ready
  const std::size_t users_;
  std::unique_ptr<std::uint8_t[]> buffers_;
  std::unique_ptr<std::size_t[]> sizes_;
  std::mutex mutex_;
  std::condition_variable maker_changed_, users_changed_;
  std::uint64_t handed_ = 0;                // pieces handed by the maker
  std::unique_ptr<std::uint64_t[]> done_;   // pieces each user is done with
  std::unique_ptr<bool[]> waiting_;         // each user waiting in Take
  bool maker_waiting_ = false;
  enum class End { kNone, kComplete, kMakerStopped } maker_end_ = End::kNone;
  bool user_stopped_ = false;
};

}  // namespace pstrain
