// ThisThreadCpu: getrusage(RUSAGE_THREAD) in seconds; CpuSince: the difference of two.
#include "common/thread_cpu.h"

#include <sys/resource.h>

namespace pstrain {

ThreadCpuSeconds ThisThreadCpu() {
  rusage usage{};
  if (::getrusage(RUSAGE_THREAD, &usage) != 0) return {};
  return {double(usage.ru_utime.tv_sec) + double(usage.ru_utime.tv_usec) * 1e-6,
          double(usage.ru_stime.tv_sec) + double(usage.ru_stime.tv_usec) * 1e-6};
}

ThreadCpuSeconds CpuSince(const ThreadCpuSeconds& before) {
  const ThreadCpuSeconds now = ThisThreadCpu();
  if (!before.known() || !now.known()) return {};
  return {now.user - before.user, now.system - before.system};
}

}  // namespace pstrain
