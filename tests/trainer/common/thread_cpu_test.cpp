// ThisThreadCpu (common/thread_cpu.h): the calling thread's CPU time, which grows with work done on
// that thread and not with another thread's; CpuSince: the time since an earlier reading; CpuSum:
// two threads' times together.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "common/thread_cpu.h"

namespace pstrain {
namespace {

// Spins on this thread for about `ms` milliseconds of wall time.
void Spin(int ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  volatile unsigned sink = 0;
  while (std::chrono::steady_clock::now() < until) sink = sink + 1;
}

TEST(ThreadCpu, GrowsWithThisThreadsWorkOnly) {
  const ThreadCpuSeconds before = ThisThreadCpu();
  ASSERT_TRUE(before.known());
  std::thread other([] { Spin(200); });
  other.join();
  const ThreadCpuSeconds after_other = ThisThreadCpu();
  EXPECT_LT(after_other.user + after_other.system - before.user - before.system, 0.1)
      << "another thread's 200 ms counted as this thread's";
  Spin(200);
  const ThreadCpuSeconds after = ThisThreadCpu();
  EXPECT_GT(after.user + after.system - after_other.user - after_other.system, 0.05);
}

TEST(ThreadCpu, CpuSinceIsTheWorkSinceTheReading) {
  const ThreadCpuSeconds before = ThisThreadCpu();
  ASSERT_TRUE(before.known());
  Spin(200);
  const ThreadCpuSeconds spent = CpuSince(before);
  ASSERT_TRUE(spent.known());
  EXPECT_GT(spent.user + spent.system, 0.05);
  EXPECT_LT(spent.user + spent.system, 2.0);
  EXPECT_FALSE(CpuSince(ThreadCpuSeconds{}).known());  // an unknown reading gives an unknown time
}

TEST(ThreadCpu, CpuSumAddsUserAndSystemAndIsUnknownWithAnUnknownPart) {
  const ThreadCpuSeconds sum = CpuSum({0.25, 0.5}, {1.0, 2.0});
  ASSERT_TRUE(sum.known());
  EXPECT_EQ(sum.user, 1.25);
  EXPECT_EQ(sum.system, 2.5);
  EXPECT_FALSE(CpuSum(ThreadCpuSeconds{}, {1.0, 2.0}).known());
  EXPECT_FALSE(CpuSum({1.0, 2.0}, ThreadCpuSeconds{}).known());
  const ThreadCpuSeconds none = CpuSum({0.0, 0.0}, {0.0, 0.0});  // threads that never ran
  EXPECT_TRUE(none.known());
  EXPECT_EQ(none.user + none.system, 0.0);
}

}  // namespace
}  // namespace pstrain
