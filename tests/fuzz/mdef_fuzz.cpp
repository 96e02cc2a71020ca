// Fuzz target: the model definition (formats/mdef.h Mdef::Parse); serialized again when it parses.
#include "fuzz_target.h"
#include "formats/mdef.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pstrain::fuzz::ExpectOnlyInputErrors([&] { pstrain::Mdef::Parse(pstrain::fuzz::Text(data, size), "mdef").Serialize(); });
  return 0;
}
