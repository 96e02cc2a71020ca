// SHA-256 of feature files, what every worker does once per utterance (the pass's check of the
// corpus against the manifest): pairs of messages the size of the benchmark corpus's feature files
// (about 17 KB: 340 frames of 13 float32), hashed one after the other (Sha256Hex, Crypto++) or side
// by side (Sha256HexPair).
//
//   BM_Sha256OneAtATime/bytes:N   two Sha256Hex calls of N bytes each per iteration
//   BM_Sha256Pair/bytes:N         one Sha256HexPair call of two N-byte messages per iteration
//
// bytes_processed = both messages. BM_Sha256Pair's label says whether this CPU compressed the two
// side by side; before timing its digests are checked against Sha256Hex's.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/sha256.h"
#include "common/sha256_pair.h"

namespace pstrain::bench {
namespace {

std::vector<std::uint8_t> RandomBytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> bytes(n);
  for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>(rng());
  return bytes;
}

void BM_Sha256OneAtATime(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<std::uint8_t> a = RandomBytes(n, 1), b = RandomBytes(n, 2);
  for (auto _ : state) {
    benchmark::DoNotOptimize(Sha256Hex(a.data(), a.size()));
    benchmark::DoNotOptimize(Sha256Hex(b.data(), b.size()));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2 * n));
}

void BM_Sha256Pair(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<std::uint8_t> a = RandomBytes(n, 1), b = RandomBytes(n, 2);
  const std::array<std::string, 2> digests = Sha256HexPair(a, b);
  if (digests[0] != Sha256Hex(a.data(), a.size()) || digests[1] != Sha256Hex(b.data(), b.size())) {
    state.SkipWithError("Sha256HexPair and Sha256Hex differ");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(Sha256HexPair(a, b));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2 * n));
  state.SetLabel(Sha256PairSideBySide() ? "side by side" : "one after the other");
}

BENCHMARK(BM_Sha256OneAtATime)->ArgName("bytes")->Arg(17000)->Arg(1 << 20);
BENCHMARK(BM_Sha256Pair)->ArgName("bytes")->Arg(17000)->Arg(1 << 20);

}  // namespace
}  // namespace pstrain::bench
