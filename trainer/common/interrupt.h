// SIGINT/SIGTERM as a request to stop, for the coordinator: while an InterruptGuard lives, the
// signals set a flag instead of killing the process, so the run can stop its workers, promote
// nothing and say why. The utterance loop and both launchers' wait loops poll StopRequest().
#pragma once

#include <csignal>
#include <optional>
#include <string>

namespace pstrain {

// The last SIGINT/SIGTERM received while an InterruptGuard was installed, or 0. Guards may nest
// (Train, then the process launcher); a process runs one training, so the flag is never reset.
int InterruptSignal();

// Why the run must stop ("interrupted by signal N"), or nothing.
std::optional<std::string> StopRequest();

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

}  // namespace pstrain
