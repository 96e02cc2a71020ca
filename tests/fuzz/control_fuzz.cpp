// Fuzz target: a SphinxTrain control (fileids) file (formats/control_file.h ParseControlFile).
#include "fuzz_target.h"
#include "formats/control_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pstrain::fuzz::ExpectOnlyInputErrors([&] { pstrain::ParseControlFile(pstrain::fuzz::Text(data, size), "train.fileids"); });
  return 0;
}
