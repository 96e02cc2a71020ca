// Fuzz target: a multipron shard's fallback_senones sidecar (shards/fallback_sidecar.h
// DecodeFallbackSidecar), checked against 0 tied states and against the count its second line claims
// (so that valid files reach the per-byte checks).
#include "fuzz_target.h"
#include <cstdlib>
#include "shards/fallback_sidecar.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = pstrain::fuzz::Text(data, size);
  std::uint32_t claimed = 0;
  if (const std::size_t eol = text.find('\n'); eol != std::string::npos) {
    const unsigned long long n = std::strtoull(text.c_str() + eol + 1, nullptr, 10);
    claimed = n > 0xFFFFFFFFull ? 0xFFFFFFFFu : static_cast<std::uint32_t>(n);
  }
  for (const std::uint32_t n_tied_states : {0u, claimed}) {
    pstrain::fuzz::ExpectOnlyInputErrors([&] {
      std::vector<std::uint8_t> flags;
      const auto problem = pstrain::DecodeFallbackSidecar(text, n_tied_states, flags);
      pstrain::fuzz::Require(problem.has_value() || flags.size() == n_tied_states, "a decoded sidecar has the wrong number of flags");
    });
  }
  return 0;
}
