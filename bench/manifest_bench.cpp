// Reading a manifest (Manifest::Parse: the checks of every entry, the fingerprint), what the
// coordinator and every worker do once per pass before their first utterance. The input is a
// synthetic manifest shaped like the benchmark corpus's (scripts/prepare-bench-corpus.sh): ids
// "train_0001_v1", paths "feat/train_0001_v1.mfc", 64-digit digests, transcripts of 7 to 12
// words of 2 to 9 letters between <s> and </s>, about 148 bytes a line.
//
//   BM_ManifestParse/entries:N   one Parse of an N-entry manifest per iteration
//
// bytes_processed = the manifest's size. Before timing, Serialize of the result is checked to give
// the bytes back.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <random>
#include <string>

#include "manifest/manifest.h"

namespace pstrain::bench {
namespace {

std::string SyntheticManifest(std::size_t n) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> n_words(7, 12), word_length(2, 9), letter('A', 'Z'), hex(0, 15);
  std::string bytes = "pstrain-manifest 1 utterances=" + std::to_string(n) + "\n";
  for (std::size_t i = 1; i <= n; ++i) {
    char id[32];
    std::snprintf(id, sizeof id, "train_%04zu_v%zu", i, (i - 1) % 6 + 1);
    bytes += id;
    bytes += "\tfeat/";
    bytes += id;
    bytes += ".mfc\t";
    for (int k = 0; k < 64; ++k) bytes += "0123456789abcdef"[hex(rng)];
    bytes += "\t<s>";
    for (int w = n_words(rng); w > 0; --w) {
      bytes += ' ';
      for (int c = word_length(rng); c > 0; --c) bytes += static_cast<char>(letter(rng));
    }
    bytes += " </s>\n";
  }
  return bytes;
}

void BM_ManifestParse(benchmark::State& state) {
  const std::string bytes = SyntheticManifest(static_cast<std::size_t>(state.range(0)));
  if (Manifest::Parse(bytes, "synthetic").Serialize() != bytes) {
    state.SkipWithError("the parsed manifest does not serialize to its bytes");
    return;
  }
  for (auto _ : state) {
    Manifest manifest = Manifest::Parse(bytes, "synthetic");
    benchmark::DoNotOptimize(manifest);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes.size()));
}
BENCHMARK(BM_ManifestParse)->ArgName("entries")->Arg(2000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace pstrain::bench
