// Fuzz target: an exact_counts statistics file (accumulators/exact_accumulators.h
// DecodeExactCounts); its double view when it parses.
#include "fuzz_target.h"
#include "accumulators/exact_accumulators.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pstrain::fuzz::ExpectOnlyInputErrors([&] {
    pstrain::ExactAccumulators::DecodeExactCounts(pstrain::fuzz::Bytes(data, size), "exact_counts").ToAccumulators();
  });
  return 0;
}
