// FixMallocThresholds: one mallopt call.
#include "common/malloc_thresholds.h"

#include <malloc.h>

namespace pstrain {

bool FixMallocThresholds() { return ::mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMmapThreshold)) == 1; }

}  // namespace pstrain
