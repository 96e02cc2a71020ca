// StandbyThread: a thread started before the one task it will run, waiting for it.
//
// A helper thread handed work at a busy moment may wait milliseconds before it runs: the kernel can
// queue it behind its waker on the waker's CPU while another CPU idles (`perf sched timehist` of a
// pass's serial tail on a 2-vCPU VM: 3.7 ms of scheduling delay beside 3.4 ms of idle on the other
// CPU; an idle vCPU may look preempted to the guest). So the thread is started early, e.g. when the
// pass starts, and Run wakes it with the waker's current CPU taken out of its affinity: it must
// then start on another CPU. Once running it takes back the whole mask it was started with; and a
// waker about to wait for it calls Widen() first (its own CPU is then free, and the thread must not
// be kept off it, e.g. behind a busy worker on the other CPU).
#pragma once

#include <sched.h>

#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>

namespace pstrain {

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
  // Gives the thread back every CPU it was started with, if Run took one away and the task has not
  // started yet: call it before waiting for the task (or for anything the task does).
  void Widen();

  template <typename Task>
  std::future<std::invoke_result_t<Task>> Run(Task&& task) {
    auto packaged = std::make_shared<std::packaged_task<std::invoke_result_t<Task>()>>(std::forward<Task>(task));
    std::future<std::invoke_result_t<Task>> result = packaged->get_future();
    Hand([packaged] { (*packaged)(); });
    return result;
  }

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

}  // namespace pstrain
