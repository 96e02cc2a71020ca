// The kernel table of each instruction-set level, and the active one.
#include "numerics/vector_kernels.h"

#include "common/error.h"
#include "numerics/kernel_entries.h"

namespace pstrain::numerics {

const VectorKernels& KernelsFor(IsaLevel level) {
  static const VectorKernels kScalar{IsaLevel::kScalar, &scalar::ExpShifted, &scalar::LogArray, &scalar::AccumulateFrames, &scalar::GroupedDistances, &scalar::Grouped8Distances, &scalar::PairDistances, &scalar::AddFixed, &scalar::AddSplit};
#if defined(__x86_64__)
  static const VectorKernels kSse2{IsaLevel::kSse2, &sse2::ExpShifted, &sse2::LogArray, &sse2::AccumulateFrames, &sse2::GroupedDistances, &sse2::Grouped8Distances, &sse2::PairDistances, &sse2::AddFixed, &sse2::AddSplit};
  static const VectorKernels kAvx2{IsaLevel::kAvx2, &avx2::ExpShifted, &avx2::LogArray, &avx2::AccumulateFrames, &avx2::GroupedDistances, &avx2::Grouped8Distances, &avx2::PairDistances, &avx2::AddFixed, &avx2::AddSplit};
  // avx512: avx2's distance kernels but for groups of 8 (kernels_avx512.cpp says why).
  static const VectorKernels kAvx512{IsaLevel::kAvx512, &avx512::ExpShifted, &avx512::LogArray, &avx512::AccumulateFrames, &avx2::GroupedDistances, &avx512::Grouped8Distances, &avx2::PairDistances, &avx512::AddFixed, &avx512::AddSplit};
#elif defined(__aarch64__)
  static const VectorKernels kNeon{IsaLevel::kNeon, &neon::ExpShifted, &neon::LogArray, &neon::AccumulateFrames, &neon::GroupedDistances, &neon::Grouped8Distances, &neon::PairDistances, &neon::AddFixed, &neon::AddSplit};
#endif
  switch (level) {
    case IsaLevel::kScalar: return kScalar;
#if defined(__x86_64__)
    case IsaLevel::kSse2: return kSse2;
    case IsaLevel::kAvx2: return kAvx2;
    case IsaLevel::kAvx512: return kAvx512;
#elif defined(__aarch64__)
    case IsaLevel::kNeon: return kNeon;
#endif
    default: break;
  }
  throw InputError("instruction-set level " + std::string(IsaName(level)) + " is not built for this architecture");
}

const VectorKernels& ActiveKernels() {
  static const VectorKernels& kernels = KernelsFor(ActiveIsaLevel());
  return kernels;
}

}  // namespace pstrain::numerics
