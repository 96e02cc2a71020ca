// Fuzz target: a means file (formats/param_files.h DecodeGaussianFile) and its value checks
// (model/model_checks.h CheckMeans).
#include "fuzz_target.h"
#include "formats/param_files.h"
#include "model/model_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pstrain::fuzz::ExpectOnlyInputErrors([&] {
    pstrain::CheckMeans(pstrain::DecodeGaussianFile(pstrain::fuzz::Bytes(data, size), "means"), "means");
  });
  return 0;
}
