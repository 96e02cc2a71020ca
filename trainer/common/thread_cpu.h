// CPU times for telemetry (getrusage): of the calling thread (RUSAGE_THREAD: a shard's own thread
// and the threads that read ahead and add statistics for it measure themselves the same way), of
// the whole process, and of the child processes it has waited for (a pass's worker processes).
#pragma once

namespace pstrain {

struct ThreadCpuSeconds {
  double user = -1.0;    // seconds; -1 when the platform cannot say
  double system = -1.0;
  bool known() const { return user >= 0.0 && system >= 0.0; }
};

ThreadCpuSeconds ThisThreadCpu();
// Every thread of this process so far (RUSAGE_SELF).
ThreadCpuSeconds ProcessCpu();
// The terminated children this process has waited for, and theirs (RUSAGE_CHILDREN).
ThreadCpuSeconds WaitedChildrenCpu();
// now - before, unknown if either is.
ThreadCpuSeconds CpuDifference(const ThreadCpuSeconds& now, const ThreadCpuSeconds& before);
// a + b (two threads' times together), unknown if either is.
ThreadCpuSeconds CpuSum(const ThreadCpuSeconds& a, const ThreadCpuSeconds& b);
// The CPU time the calling thread used since `before` (an earlier ThisThreadCpu of the same thread),
// unknown if either reading is.
ThreadCpuSeconds CpuSince(const ThreadCpuSeconds& before);

}  // namespace pstrain
