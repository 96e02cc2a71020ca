// SIMD instruction-set levels of the vector kernels, and the one this process uses.
//
// Levels (lowest first): x86-64: scalar, sse2 (the x86-64 baseline), avx2, avx512; aarch64:
// scalar, neon. Every level computes bit-identical results (numerics/elementary_lanes.inc); the
// level only changes speed. The best level the CPU supports is used unless PSTRAIN_ISA names one:
// a level this CPU or build lacks is an input error (exit 2) that names it. The level is written to
// telemetry (never to a deterministic file or a fingerprint).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pstrain::numerics {

enum class IsaLevel { kScalar, kSse2, kAvx2, kAvx512, kNeon };

std::string_view IsaName(IsaLevel level);

// Every level known to this build's architecture, lowest first (whether or not the CPU has it).
std::vector<IsaLevel> BuildIsaLevels();
// The levels this CPU (and operating system) supports, lowest first.
std::vector<IsaLevel> SupportedIsaLevels();
// The x86-64 levels of a CPU with these features (SupportedIsaLevels asks libgcc for this CPU's):
// scalar and sse2 always, avx2 with AVX2, avx512 with AVX-512F and AVX2 both (its code uses AVX2
// instructions too: GCC's -mavx512f implies them, and its distance kernels are avx2's).
struct X86Features {
  bool avx2 = false;
  bool avx512f = false;
};
std::vector<IsaLevel> X86IsaLevels(X86Features features);
// "scalar, sse2, avx2": for messages.
std::string SupportedIsaNames();

// The level chosen for this process: $PSTRAIN_ISA if set (checked), else the best supported.
// Decided once; throws InputError on an unknown or unsupported PSTRAIN_ISA.
IsaLevel ActiveIsaLevel();

}  // namespace pstrain::numerics
