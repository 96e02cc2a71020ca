// ParallelFor: independent work items (hashing files, say) spread over a few threads, with every
// result kept in its item's slot so that what the caller does with them stays in item order.
#pragma once

#include <cstddef>
#include <functional>

namespace pstrain {

// Threads for work that has the machine to itself, or nearly (the coordinator's checks before it
// starts workers, re-estimation in a pass's tail): the machine's hardware threads, at most 8, at
// least 1.
unsigned CheckParallelism();

// Calls body(i) once for every i in [0, n), on up to `threads` threads (the calling one among
// them), and returns when every call has returned. If calls throw, the exception of the lowest
// such i is rethrown after all have finished; the others are dropped. body must be safe to call
// concurrently for different i.
void ParallelFor(std::size_t n, unsigned threads, const std::function<void(std::size_t)>& body);

}  // namespace pstrain
