// Fuzz target: a SphinxTrain transcription file (formats/control_file.h ParseTranscriptFile).
#include "fuzz_target.h"
#include "formats/control_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pstrain::fuzz::ExpectOnlyInputErrors([&] { pstrain::ParseTranscriptFile(pstrain::fuzz::Text(data, size), "train.transcription"); });
  return 0;
}
