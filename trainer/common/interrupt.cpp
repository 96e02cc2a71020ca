// SIGINT/SIGTERM as a request to stop: the InterruptGuard's signal handlers and flag.
#include "common/interrupt.h"

#include <atomic>

namespace pstrain {

namespace {

std::atomic<int> g_interrupt_signal{0};

void OnInterrupt(int signal_number) { g_interrupt_signal.store(signal_number); }

}  // namespace

int InterruptSignal() { return g_interrupt_signal.load(); }

std::optional<std::string> StopRequest() {
  if (const int signal_number = InterruptSignal()) return "interrupted by signal " + std::to_string(signal_number);
  return std::nullopt;
}

InterruptGuard::InterruptGuard() {
  struct sigaction action {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &old_int_);
  sigaction(SIGTERM, &action, &old_term_);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

}  // namespace pstrain
