// Fuzz target: a variances file (formats/param_files.h DecodeGaussianFile) and its value checks
// (model/model_checks.h CheckVariances).
#include "fuzz_target.h"
#include "formats/param_files.h"
#include "model/model_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pstrain::fuzz::ExpectOnlyInputErrors([&] {
    pstrain::CheckVariances(pstrain::DecodeGaussianFile(pstrain::fuzz::Bytes(data, size), "variances"), "variances");
  });
  return 0;
}
