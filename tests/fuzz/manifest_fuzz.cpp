// Fuzz target: a pstrain corpus manifest (manifest/manifest.h Manifest::Parse); serialized and
// fingerprinted when it parses.
#include "fuzz_target.h"
#include "manifest/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pstrain::fuzz::ExpectOnlyInputErrors([&] {
    const pstrain::Manifest manifest = pstrain::Manifest::Parse(pstrain::fuzz::Text(data, size), "corpus.manifest");
    manifest.Serialize();
    manifest.Fingerprint();
  });
  return 0;
}
