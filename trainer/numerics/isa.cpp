// Instruction-set level detection (CPU features) and the PSTRAIN_ISA override.
#include "numerics/isa.h"

#include <cstdlib>
#include <mutex>

#include "common/error.h"

namespace pstrain::numerics {

std::string_view IsaName(IsaLevel level) {
  switch (level) {
    case IsaLevel::kScalar: return "scalar";
    case IsaLevel::kSse2: return "sse2";
    case IsaLevel::kAvx2: return "avx2";
    case IsaLevel::kAvx512: return "avx512";
    case IsaLevel::kNeon: return "neon";
  }
  return "unknown";
}

std::vector<IsaLevel> BuildIsaLevels() {
#if defined(__x86_64__)
  return {IsaLevel::kScalar, IsaLevel::kSse2, IsaLevel::kAvx2, IsaLevel::kAvx512};
#elif defined(__aarch64__)
  return {IsaLevel::kScalar, IsaLevel::kNeon};
#else
  return {IsaLevel::kScalar};
#endif
}

std::vector<IsaLevel> X86IsaLevels(X86Features features) {
  std::vector<IsaLevel> levels{IsaLevel::kScalar, IsaLevel::kSse2};  // sse2: part of x86-64 itself
  if (features.avx2) levels.push_back(IsaLevel::kAvx2);
  // Every AVX-512 CPU has AVX2 too, but a virtual machine may mask one flag alone.
  if (features.avx2 && features.avx512f) levels.push_back(IsaLevel::kAvx512);
  return levels;
}

std::vector<IsaLevel> SupportedIsaLevels() {
#if defined(__x86_64__)
  // libgcc's detection also checks that the operating system saves the AVX / AVX-512 state.
  __builtin_cpu_init();
  return X86IsaLevels({__builtin_cpu_supports("avx2") != 0, __builtin_cpu_supports("avx512f") != 0});
#elif defined(__aarch64__)
  return {IsaLevel::kScalar, IsaLevel::kNeon};  // Advanced SIMD is part of ARMv8-A
#else
  return {IsaLevel::kScalar};
#endif
}

std::string SupportedIsaNames() {
  std::string names;
  for (const IsaLevel level : SupportedIsaLevels()) {
    if (!names.empty()) names += ", ";
    names += IsaName(level);
  }
  return names;
}

namespace {

IsaLevel ChooseIsaLevel() {
  const std::vector<IsaLevel> supported = SupportedIsaLevels();
  const char* forced = std::getenv("PSTRAIN_ISA");
  if (forced == nullptr || *forced == '\0') return supported.back();
  const std::string_view name(forced);
  for (const IsaLevel level : BuildIsaLevels()) {
    if (IsaName(level) != name) continue;
    for (const IsaLevel have : supported) {
      if (have == level) return level;
    }
    throw InputError("PSTRAIN_ISA=" + std::string(name) + ": this CPU does not support " + std::string(name) +
                     " (supported here: " + SupportedIsaNames() + ")");
  }
  std::string known;
  for (const IsaLevel level : BuildIsaLevels()) known += (known.empty() ? "" : ", ") + std::string(IsaName(level));
  throw InputError("PSTRAIN_ISA=" + std::string(name) + ": unknown instruction-set level (this build knows " + known + ")");
}

}  // namespace

IsaLevel ActiveIsaLevel() {
  // Decided once per process; a bad PSTRAIN_ISA throws on every call.
  static std::once_flag once;
  static IsaLevel level = IsaLevel::kScalar;
  static std::string error;
  std::call_once(once, [] {
    try {
      level = ChooseIsaLevel();
    } catch (const InputError& e) {
      error = e.what();
    }
  });
  if (!error.empty()) throw InputError(error);
  return level;
}

}  // namespace pstrain::numerics
