// Fuzz target: a model's feat.params (formats/feat_params.h FeatParams::Parse,
// CheckFeatParamsSupported).
#include "fuzz_target.h"
#include "formats/feat_params.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pstrain::fuzz::ExpectOnlyInputErrors([&] {
    const pstrain::FeatParams params = pstrain::FeatParams::Parse(pstrain::fuzz::Text(data, size), "feat.params");
    params.Serialize();
    pstrain::CheckFeatParamsSupported(params, "feat.params");
  });
  return 0;
}
