// ParallelFor (common/parallel_for.h): a shared counter hands out indices to a few std::threads.
#include "common/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace pstrain {

unsigned CheckParallelism() { return std::clamp(std::thread::hardware_concurrency(), 1u, 8u); }

void ParallelFor(std::size_t n, unsigned threads, const std::function<void(std::size_t)>& body) {
  std::atomic<std::size_t> next{0};
  std::mutex failure_mutex;
  std::size_t failed_index = n;
  std::exception_ptr failure;
  auto run = [&] {
    for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) {
      try {
        body(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (i < failed_index) {
          failed_index = i;
          failure = std::current_exception();
        }
      }
    }
  };
  const std::size_t helpers = std::min<std::size_t>(std::max(threads, 1u), n == 0 ? 1 : n) - 1;
  std::vector<std::thread> pool;
  pool.reserve(helpers);
  for (std::size_t t = 0; t < helpers; ++t) {
    try {
      pool.emplace_back(run);
    } catch (const std::system_error&) {
      break;  // no more threads to be had: the ones started (and this one) do all the items
    }
  }
  run();
  for (std::thread& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace pstrain
