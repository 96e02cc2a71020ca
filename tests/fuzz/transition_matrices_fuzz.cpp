// Fuzz target: a transition_matrices file (formats/param_files.h DecodeArray3DFile) and its value
// checks (model/model_checks.h CheckTransitionMatrices).
#include "fuzz_target.h"
#include "formats/param_files.h"
#include "model/model_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pstrain::fuzz::ExpectOnlyInputErrors([&] {
    pstrain::CheckTransitionMatrices(pstrain::DecodeArray3DFile(pstrain::fuzz::Bytes(data, size), "transition_matrices"),
                                     "transition_matrices");
  });
  return 0;
}
