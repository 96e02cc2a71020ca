// The CPU time of the calling thread (getrusage RUSAGE_THREAD), for telemetry: a shard's own thread
// and the thread that reads ahead for it measure themselves the same way.
#pragma once

namespace pstrain {

struct ThreadCpuSeconds {
  double user = -1.0;    // seconds; -1 when the platform cannot say
  double system = -1.0;
  bool known() const { return user >= 0.0 && system >= 0.0; }
};

ThreadCpuSeconds ThisThreadCpu();
// The CPU time the calling thread used since `before` (an earlier ThisThreadCpu of the same thread),
// unknown if either reading is.
ThreadCpuSeconds CpuSince(const ThreadCpuSeconds& before);

}  // namespace pstrain
