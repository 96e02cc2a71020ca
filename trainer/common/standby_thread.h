// StandbyThread: a thread started before the one task it will run, waiting for it.
//
// A helper thread handed work at a busy moment may wait milliseconds before it runs: the kernel can
// queue it behind its waker on the waker's CPU while another CPU idles (`perf sched timehist` of a
// pass's serial tail on a 2-vCPU VM: 3.7 ms of scheduling delay beside 3.4 ms of idle on the other
// CPU; an idle vCPU may look preempted to the guest). So the thread is started early, e.g. when the
// pass starts, and Run wakes it with the waker's current CPU taken out of its affinity: it must
// then start on another CPU. Once running it takes back the whole mask it was started with; and a
// waker about to wait for it calls Widen() first (its own CPU is then free, and the thread must not
// be kept off it, e.g. behind a busy worker on the other CPU). The future Run returns does that in
// its own wait() and get(); a waker that waits for the task some other way (a condition variable
// the task signals) calls Widen() itself.
#pragma once

#include <sched.h>

#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>

namespace pstrain {

class StandbyThread;

// The future of a task run by a StandbyThread (or, without one, by RunOnStandby's std::async):
// std::future's, except that wait() and get() first give the thread back the CPU Run took from it
// (StandbyThread::Widen), as the waiting thread's CPU is about to be free. Its destructor does not
// wait. The StandbyThread must outlive every wait() and get().
template <typename T>
class StandbyFuture {
 public:
  StandbyFuture() = default;
  StandbyFuture(std::future<T> future, StandbyThread* thread) : future_(std::move(future)), thread_(thread) {}
  bool valid() const noexcept { return future_.valid(); }
  void wait() const;
  T get();

 private:
  std::future<T> future_;
  StandbyThread* thread_ = nullptr;  // none: std::async's thread, or deferred
};

class StandbyThread {
 public:
  // Starts the thread (std::system_error if it cannot be started).
  StandbyThread();
  // Lets a thread that was never given a task end, and joins the thread: a task given to it has
  // then finished. Declare a StandbyThread after what its task uses, so that it ends first (or
  // wait for the task's future before those end).
  ~StandbyThread();
  StandbyThread(const StandbyThread&) = delete;
  StandbyThread& operator=(const StandbyThread&) = delete;

  // Runs `task` on the thread (at most one task per StandbyThread; a second is a std::logic_error).
  // The future holds its result or exception; unlike std::async's, its destructor does not wait
  // (the StandbyThread's does).
  template <typename Task>
  StandbyFuture<std::invoke_result_t<Task>> Run(Task&& task) {
    auto packaged = std::make_shared<std::packaged_task<std::invoke_result_t<Task>()>>(std::forward<Task>(task));
    std::future<std::invoke_result_t<Task>> result = packaged->get_future();
    Hand([packaged] { (*packaged)(); });
    return {std::move(result), this};
  }

  // Gives the thread back every CPU it was started with, if Run took one away and the task has not
  // started yet. StandbyFuture's wait() and get() call it; call it before waiting for the task (or
  // for anything the task does) in any other way.
  void Widen();

 private:
  void Hand(std::function<void()> task);
  void Wait();

  cpu_set_t allowed_;               // the starting thread's affinity
  bool allowed_known_ = false;
  bool narrowed_ = false;           // Hand took the waker's CPU out of the thread's affinity
  std::mutex mutex_;
  std::condition_variable handed_;
  std::function<void()> task_;
  bool given_ = false;
  bool released_ = false;
  std::thread thread_;
};

template <typename T>
void StandbyFuture<T>::wait() const {
  if (thread_) thread_->Widen();
  future_.wait();
}

template <typename T>
T StandbyFuture<T>::get() {
  if (thread_) thread_->Widen();
  return future_.get();
}

// `task` on `thread` if there is one (e.g. none could be started), else on a thread of std::async's
// (deferred to the first wait() or get() if that cannot start one either: use it only for a task
// that does not need to run while its waker waits for something else).
template <typename Task>
StandbyFuture<std::invoke_result_t<Task>> RunOnStandby(std::optional<StandbyThread>& thread, Task&& task) {
  if (thread) return thread->Run(std::forward<Task>(task));
  return {std::async(std::launch::async | std::launch::deferred, std::forward<Task>(task)), nullptr};
}

}  // namespace pstrain
