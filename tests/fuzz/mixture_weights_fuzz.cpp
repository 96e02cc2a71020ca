// Fuzz target: a mixture_weights file (formats/param_files.h DecodeArray3DFile) and its value checks
// (model/model_checks.h CheckMixtureWeights).
#include "fuzz_target.h"
#include "formats/param_files.h"
#include "model/model_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pstrain::fuzz::ExpectOnlyInputErrors([&] {
    pstrain::CheckMixtureWeights(pstrain::DecodeArray3DFile(pstrain::fuzz::Bytes(data, size), "mixture_weights"), "mixture_weights");
  });
  return 0;
}
