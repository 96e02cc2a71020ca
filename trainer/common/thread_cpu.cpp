// ThisThreadCpu, ProcessCpu, WaitedChildrenCpu: getrusage in seconds; CpuSince, CpuDifference: the
// difference of two readings; CpuSum: their sum.
#include "common/thread_cpu.h"

#include <sys/resource.h>

namespace pstrain {

namespace {

ThreadCpuSeconds Usage(int who) {
  rusage usage{};
  if (::getrusage(who, &usage) != 0) return {};
  return {double(usage.ru_utime.tv_sec) + double(usage.ru_utime.tv_usec) * 1e-6,
          double(usage.ru_stime.tv_sec) + double(usage.ru_stime.tv_usec) * 1e-6};
}

}  // namespace

ThreadCpuSeconds ThisThreadCpu() { return Usage(RUSAGE_THREAD); }
ThreadCpuSeconds ProcessCpu() { return Usage(RUSAGE_SELF); }
ThreadCpuSeconds WaitedChildrenCpu() { return Usage(RUSAGE_CHILDREN); }

ThreadCpuSeconds CpuDifference(const ThreadCpuSeconds& now, const ThreadCpuSeconds& before) {
  if (!before.known() || !now.known()) return {};
  return {now.user - before.user, now.system - before.system};
}

ThreadCpuSeconds CpuSince(const ThreadCpuSeconds& before) { return CpuDifference(ThisThreadCpu(), before); }

ThreadCpuSeconds CpuSum(const ThreadCpuSeconds& a, const ThreadCpuSeconds& b) {
  if (!a.known() || !b.known()) return {};
  return {a.user + b.user, a.system + b.system};
}

}  // namespace pstrain
