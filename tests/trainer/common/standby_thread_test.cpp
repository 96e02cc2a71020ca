// StandbyThread (common/standby_thread.h): its one task runs on the thread started before, with its
// result or exception in the future; a thread never given a task ends with its owner; a second task
// is refused; the task runs with the whole affinity mask the thread was started with (Run narrows it
// only to wake the thread on another CPU).
#include "common/standby_thread.h"

#include <gtest/gtest.h>

#include <sched.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

namespace pstrain {
namespace {

TEST(StandbyThread, RunsItsTaskOnItsOwnThreadWithTheResultOrTheException) {
  StandbyThread thread;
  const std::thread::id caller = std::this_thread::get_id();
  std::future<std::thread::id> ran_on = thread.Run([] { return std::this_thread::get_id(); });
  EXPECT_NE(ran_on.get(), caller);
  EXPECT_THROW(thread.Run([] { return 1; }), std::logic_error) << "a second task";

  StandbyThread failing;
  std::future<int> failed = failing.Run([]() -> int { throw std::runtime_error("the task's error"); });
  try {
    failed.get();
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), "the task's error");
  }
}

TEST(StandbyThread, AThreadNeverGivenATaskEndsWithItsOwner) {
  const auto start = std::chrono::steady_clock::now();
  { StandbyThread unused; }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(StandbyThread, TheTaskRunsWithTheWholeMaskAndTheOwnerWaitsForIt) {
  cpu_set_t process;
  CPU_ZERO(&process);
  ASSERT_EQ(::sched_getaffinity(0, sizeof(process), &process), 0);
  bool done = false;
  cpu_set_t seen;
  CPU_ZERO(&seen);
  {
    StandbyThread thread;
    thread.Run([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // outlasts the owner's scope
      ::sched_getaffinity(0, sizeof(seen), &seen);
      done = true;
    });
  }
  EXPECT_TRUE(done) << "the owner ended before its thread's task";
  EXPECT_TRUE(CPU_EQUAL(&seen, &process)) << "the task ran with a narrowed affinity (" << CPU_COUNT(&seen) << " of " << CPU_COUNT(&process)
                                          << " CPUs)";
}

}  // namespace
}  // namespace pstrain
