// Fuzz target: a C++ gate source as audit scope reads it (auditor/scope_extractor.h
// ExtractFileScope, the public extraction entry point: re-point this file when the extractor's front
// end changes).
#include "fuzz_target.h"
#include "scope/scope_extractor.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pstrain::fuzz::ExpectOnlyInputErrors([&] { pstrain::audit::ExtractFileScope("gates/fuzz_gate.cpp", pstrain::fuzz::Text(data, size)); });
  return 0;
}
