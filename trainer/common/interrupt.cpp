// SIGINT/SIGTERM as a request to stop: the InterruptGuard's signal handlers and flag, and the
// process's own stop requests.
#include "common/interrupt.h"

#include <atomic>
#include <mutex>

namespace pstrain {

namespace {

std::atomic<int> g_interrupt_signal{0};

void OnInterrupt(int signal_number) { g_interrupt_signal.store(signal_number); }

// Set (once) under the mutex; the flag lets pollers skip the lock while no stop was requested.
std::atomic<bool> g_stop_requested{false};
std::mutex g_stop_mutex;
std::string g_stop_reason;

}  // namespace

int InterruptSignal() { return g_interrupt_signal.load(); }

void RequestStop(const std::string& reason) {
  const std::lock_guard<std::mutex> lock(g_stop_mutex);
  if (g_stop_requested.load()) return;
  g_stop_reason = reason;
  g_stop_requested.store(true);
}

std::optional<std::string> StopRequest() {
  if (const int signal_number = InterruptSignal()) return "interrupted by signal " + std::to_string(signal_number);
  if (!g_stop_requested.load()) return std::nullopt;
  const std::lock_guard<std::mutex> lock(g_stop_mutex);
  return g_stop_reason;
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
