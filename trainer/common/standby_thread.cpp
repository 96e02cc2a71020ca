// StandbyThread: started early, waits for its one task, runs it, ends.
#include "common/standby_thread.h"

#include <pthread.h>

#include <stdexcept>

namespace pstrain {

StandbyThread::StandbyThread() {
  CPU_ZERO(&allowed_);
  allowed_known_ = ::sched_getaffinity(0, sizeof(allowed_), &allowed_) == 0;
  thread_ = std::thread([this] { Wait(); });
}

StandbyThread::~StandbyThread() {
  Widen();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    released_ = true;
  }
  handed_.notify_one();
  thread_.join();
}

void StandbyThread::Hand(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (given_) throw std::logic_error("StandbyThread: a second task");
    task_ = std::move(task);
    given_ = true;
    // Not on this CPU (this thread is busy): the thread takes its mask back once it runs.
    const int cpu = ::sched_getcpu();
    if (allowed_known_ && cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &allowed_) && CPU_COUNT(&allowed_) > 1) {
      cpu_set_t others = allowed_;
      CPU_CLR(cpu, &others);
      narrowed_ = ::pthread_setaffinity_np(thread_.native_handle(), sizeof(others), &others) == 0;
    }
  }
  handed_.notify_one();
}

void StandbyThread::Widen() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!narrowed_) return;
  ::pthread_setaffinity_np(thread_.native_handle(), sizeof(allowed_), &allowed_);
  narrowed_ = false;
}

void StandbyThread::Wait() {
  std::function<void()> task;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    handed_.wait(lock, [this] { return given_ || released_; });
    if (!given_) return;
    task = std::move(task_);
    if (narrowed_) ::pthread_setaffinity_np(::pthread_self(), sizeof(allowed_), &allowed_);
    narrowed_ = false;
  }
  task();  // (a packaged_task: its exception goes to the future)
}

}  // namespace pstrain
