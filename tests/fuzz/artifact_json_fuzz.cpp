// Fuzz target: a shard's artifact.json (shards/artifact.h ParseArtifact); a parsed artifact must
// serialize to the same bytes (the parser's canonical-form promise).
#include "fuzz_target.h"
#include "shards/artifact.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = pstrain::fuzz::Text(data, size);
  pstrain::fuzz::ExpectOnlyInputErrors([&] {
    const pstrain::ShardArtifact artifact = pstrain::ParseArtifact(text, "artifact.json");
    pstrain::fuzz::Require(pstrain::SerializeArtifact(artifact) == text, "ParseArtifact accepted a non-canonical artifact.json");
  });
  return 0;
}
