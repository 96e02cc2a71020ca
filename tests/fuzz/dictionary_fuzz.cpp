// Fuzz target: a pronunciation dictionary, as the main and as the filler dictionary
// (formats/dictionary.h Dictionary::Parse).
#include "fuzz_target.h"
#include "formats/dictionary.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = pstrain::fuzz::Text(data, size);
  pstrain::fuzz::ExpectOnlyInputErrors([&] { pstrain::Dictionary::Parse(text, "dict", false); });
  pstrain::fuzz::ExpectOnlyInputErrors([&] { pstrain::Dictionary::Parse(text, "fillerdict", true); });
  return 0;
}
