// FixMallocThresholds: glibc's allocator kept from growing its mmap and trim thresholds, so that
// large blocks freed go back to the kernel instead of staying resident in the heap.
//
// By default glibc raises its mmap threshold to the size of each mapped block freed (up to 32 MiB)
// and its trim threshold to twice that. After a model's arrays and read buffers are freed (5.2 MB
// each for the means and variances of 2,102 senones x 16 Gaussians), later blocks below that size
// come from the heap, and up to twice that much freed heap stays resident: a 1-job pass of that
// model peaked at 81.8 MB where 71.5 MB were needed, a tied CD model of 602 senones at 25.1 MB
// instead of 20.8 (docs/performance.md, thirty-fourth round). Fixed, a block of at least
// kMmapThreshold is mapped on its own (unless the heap already has room for it) and unmapped when
// freed; the price is a fresh page fault for each page of such a block (about 3,000 more in a 1-job
// tied CD pass, well under 1 % of it).
#pragma once

#include <cstddef>

namespace pstrain {

inline constexpr std::size_t kMmapThreshold = std::size_t(512) << 10;

// Sets glibc's mmap threshold to kMmapThreshold, which also fixes the trim threshold at its
// default (mallopt: setting either stops both from moving). Returns false if glibc refused. For
// the start of main(), before the allocations it is meant for.
bool FixMallocThresholds();

}  // namespace pstrain
