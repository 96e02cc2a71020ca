// Fuzz target: a Sphinx .mfc feature file of 13 cepstra per frame (formats/mfc_file.h ParseMfc).
#include "fuzz_target.h"
#include "formats/mfc_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pstrain::fuzz::ExpectOnlyInputErrors([&] { pstrain::ParseMfc(pstrain::fuzz::Bytes(data, size), "utt.mfc", 13); });
  return 0;
}
