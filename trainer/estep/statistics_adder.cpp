// StatisticsAdder: the sums added in utterance order, on a second thread for large utterances.
#include "estep/statistics_adder.h"

#include <ostream>
#include <system_error>
#include <utility>

namespace pstrain {

StatisticsAdder::StatisticsAdder(ExactAccumulators& sums, std::ostream* log, bool background, std::size_t thread_min_values,
                                 std::function<void()> before_thread_add)
    : sums_(sums), log_(log), thread_min_values_(thread_min_values), before_thread_add_(std::move(before_thread_add)) {
  if (!background) return;
  try {
    thread_ = std::thread([this] { Run(); });
  } catch (const std::system_error&) {
    // No thread to be had: every add happens in the caller's thread, as without one.
  }
}

StatisticsAdder::~StatisticsAdder() { Stop(); }

void StatisticsAdder::Stop() {
  if (!thread_.joinable()) return;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  work_.notify_one();
  thread_.join();
}

// Adds what it is handed, one utterance at a time; a failed add ends nothing here (the caller
// raises it), but every later one is refused by the caller's Wait first.
void StatisticsAdder::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    work_.wait(lock, [&] { return job_ != nullptr || stop_; });
    if (job_ == nullptr) break;  // stop_, nothing left
    const UtteranceStats* job = job_;
    lock.unlock();
    std::exception_ptr error;
    try {
      if (before_thread_add_) before_thread_add_();
      job->AddTo(sums_);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error && !failure_) failure_ = error;
    job_ = nullptr;
    if (caller_waiting_) done_.notify_one();
  }
  thread_cpu_ = ThisThreadCpu();
}

void StatisticsAdder::Add(const UtteranceStats& stats) {
  Wait();
  if (!thread_.joinable() || stats.MaxValues() < thread_min_values_) {
    try {
      stats.AddTo(sums_);
    } catch (...) {
      caller_failure_ = std::current_exception();
      throw;
    }
    return;
  }
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    job_ = &stats;
  }
  work_.notify_one();
  handed_ = true;
}

void StatisticsAdder::Log(const std::string& line) {
  if (log_ == nullptr) return;
  if (handed_) SettleIfDone();
  if (caller_failure_) return;  // after a failed add, as after its lines
  if (handed_) {
    pending_.push_back(line);
  } else {
    WriteLine(line);
  }
}

void StatisticsAdder::WriteLine(const std::string& line) {
  *log_ << line << "\n" << std::flush;  // a killed process leaves its log up to the last add it saw done
}

void StatisticsAdder::SettleIfDone() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (job_ != nullptr) return;
  }
  SettleDone();
}

void StatisticsAdder::SettleDone() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!caller_failure_) caller_failure_ = failure_;
  }
  handed_ = false;
  if (!caller_failure_) {
    for (const std::string& line : pending_) WriteLine(line);
  }
  pending_.clear();
}

std::exception_ptr StatisticsAdder::Settle() {
  if (caller_failure_ || !handed_) return caller_failure_;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (job_ != nullptr) {
      caller_waiting_ = true;
      done_.wait(lock, [&] { return job_ == nullptr; });
      caller_waiting_ = false;
    }
  }
  SettleDone();
  return caller_failure_;
}

void StatisticsAdder::Wait() {
  if (std::exception_ptr failure = Settle()) std::rethrow_exception(failure);
}

ThreadCpuSeconds StatisticsAdder::Finish() {
  Wait();
  if (!thread_.joinable()) return {0.0, 0.0};
  Stop();
  const std::lock_guard<std::mutex> lock(mutex_);
  return thread_cpu_;
}

}  // namespace pstrain
