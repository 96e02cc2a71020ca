// StandbyThread (common/standby_thread.h): its one task runs on the thread started before, with its
// result or exception in the future; a thread never given a task ends with its owner; a second task
// is refused; the task runs with the whole affinity mask the thread was started with (Run narrows it
// only to wake the thread on another CPU). RunOnStandby without a thread runs the task all the same.
#include "common/standby_thread.h"

#include <gtest/gtest.h>

#include <sched.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

namespace pstrain {
namespace {

TEST(StandbyThread, RunsItsTaskOnItsOwnThreadWithTheResultOrTheException) {
  StandbyThread thread;
  const std::thread::id caller = std::this_thread::get_id();
  StandbyFuture<std::thread::id> ran_on = thread.Run([] { return std::this_thread::get_id(); });
  EXPECT_NE(ran_on.get(), caller);
  EXPECT_THROW(thread.Run([] { return 1; }), std::logic_error) << "a second task";

  StandbyThread failing;
  StandbyFuture<int> failed = failing.Run([]() -> int { throw std::runtime_error("the task's error"); });
  EXPECT_TRUE(failed.valid());
  try {
    failed.get();
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), "the task's error");
  }
  EXPECT_FALSE(failed.valid()) << "get() takes the result";
  EXPECT_FALSE(StandbyFuture<int>().valid());
}

TEST(StandbyThread, RunOnStandbyUsesTheThreadOrElseStdAsync) {
  std::optional<StandbyThread> none;
  StandbyFuture<int> without = RunOnStandby(none, [] { return 7; });
  without.wait();
  EXPECT_EQ(without.get(), 7);
  StandbyFuture<void> failing = RunOnStandby(none, [] { throw std::runtime_error("no thread"); });
  EXPECT_THROW(failing.get(), std::runtime_error);

  std::optional<StandbyThread> one(std::in_place);
  const std::thread::id caller = std::this_thread::get_id();
  StandbyFuture<std::thread::id> with = RunOnStandby(one, [] { return std::this_thread::get_id(); });
  EXPECT_NE(with.get(), caller);
  EXPECT_THROW(RunOnStandby(one, [] { return 1; }), std::logic_error) << "the thread's second task";
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
