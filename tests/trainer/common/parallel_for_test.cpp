// ParallelFor: every index exactly once, the lowest failing index's exception, any thread count.
#include "common/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace pstrain {
namespace {

TEST(ParallelForTest, CallsEveryIndexExactlyOnceOnEveryThreadCount) {
  for (unsigned threads : {0u, 1u, 2u, 3u, 8u, 64u}) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + ", n " + std::to_string(n));
      std::vector<std::atomic<int>> calls(n);
      ParallelFor(n, threads, [&](std::size_t i) { calls[i].fetch_add(1); });
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(calls[i].load(), 1) << "index " << i;
    }
  }
}

TEST(ParallelForTest, UsesMoreThanOneThreadWhenAsked) {
  std::mutex mutex;
  std::set<std::thread::id> ids;
  std::atomic<int> started{0};
  std::atomic<int> met{0};
  ParallelFor(2, 2, [&](std::size_t) {
    {
      const std::lock_guard<std::mutex> lock(mutex);
      ids.insert(std::this_thread::get_id());
    }
    // Each call waits (up to 10 s) for the other to start: only concurrent calls both see 2.
    started.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    if (started.load() == 2) met.fetch_add(1);
  });
  EXPECT_EQ(ids.size(), 2u);
  EXPECT_EQ(met.load(), 2);
}

TEST(ParallelForTest, RethrowsTheLowestFailingIndexAfterEveryCallHasFinished) {
  for (unsigned threads : {1u, 4u}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    std::atomic<int> finished{0};
    try {
      ParallelFor(200, threads, [&](std::size_t i) {
        finished.fetch_add(1);
        if (i == 150 || i == 37 || i == 99) throw std::runtime_error("item " + std::to_string(i));
      });
      ADD_FAILURE() << "nothing was thrown";
    } catch (const std::runtime_error& error) {
      EXPECT_STREQ(error.what(), "item 37");
    }
    EXPECT_EQ(finished.load(), 200);
  }
}

}  // namespace
}  // namespace pstrain
