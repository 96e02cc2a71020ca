// FixMallocThresholds (common/malloc_thresholds.h): once it has run, a block above kMmapThreshold is
// mapped on its own even after a larger mapped block was freed, and unmapped when freed; by glibc's
// default the freed block would have raised the threshold past it, and the block would have come
// from the heap. Each probe runs in a fresh process (a death test's re-executed child), whose heap
// holds no free chunk that could serve the block (this test process's may). Under AddressSanitizer
// (the nightly's sanitized suite) malloc is the sanitizer's, which has no such thresholds: the fix
// is then refused, and says so.
#include "common/malloc_thresholds.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>
#include <cstring>

#if defined(__SANITIZE_ADDRESS__)
#define PSTRAIN_SANITIZER_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PSTRAIN_SANITIZER_MALLOC 1
#endif
#endif

namespace pstrain {
namespace {

// Exits 0 when a 12 MiB block, asked for after a 16 MiB one was freed, is a mapping of its own
// that goes when freed; 1 when it is not; 2 when glibc refused the fix.
[[noreturn]] void ProbeAndExit(bool fix) {
  if (fix && !FixMallocThresholds()) std::_Exit(2);
  void* large = std::malloc(std::size_t(16) << 20);
  if (large == nullptr) std::_Exit(3);
  std::memset(large, 1, 4096);
  std::free(large);  // by default: the mmap threshold becomes 16 MiB here
  const std::size_t mapped_before = mallinfo2().hblks;
  void* block = std::malloc(std::size_t(12) << 20);
  if (block == nullptr) std::_Exit(3);
  const bool mapped = mallinfo2().hblks == mapped_before + 1;
  std::free(block);
  const bool unmapped = mallinfo2().hblks == mapped_before;
  std::_Exit(mapped && unmapped ? 0 : 1);
}

TEST(FixMallocThresholds, ABlockAboveTheThresholdIsMappedAfterALargerOneWasFreed) {
#ifdef PSTRAIN_SANITIZER_MALLOC
  EXPECT_FALSE(FixMallocThresholds()) << "the sanitizer's malloc took a glibc threshold";
  return;
#endif
  // The children inherit the environment: glibc's own settings of its thresholds, which would fix
  // them in the default child too, are taken out of it.
  for (const char* name : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_", "GLIBC_TUNABLES"}) {
    ::unsetenv(name);
  }
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(ProbeAndExit(true), ::testing::ExitedWithCode(0), "") << "with the fix";
  EXPECT_EXIT(ProbeAndExit(false), ::testing::ExitedWithCode(1), "") << "glibc's default, which the probe must tell apart";
}

}  // namespace
}  // namespace pstrain
