// A shard's exact_counts written at the end of its E-step (and the reduced one after a pass whose
// last shard's sums were not lent): the sums encoded piece by piece, hashed as they are encoded, and
// written, for the large benchmark model's shape (2,102 senones x 16 Gaussians x 39, 2-pass
// variances: 43 MB). Inside a DirectorySyncScope that is never synced, as a worker's files are
// (their fsyncs are the coordinator's), so the figure is the CPU's and the page cache's, not the
// disk's.
//
//   BM_ExactCountsWrite/piped:0   encode, hash and write(2) on one thread (WriteFileAtomicStreamed)
//   BM_ExactCountsWrite/piped:1   encode and hash on one, write(2) on another (WriteFileAtomicPiped,
//                                 what ExactAccumulators::WriteExactCounts does)
//
// bytes_per_second = the file's bytes; UseRealTime (two threads). Both write the same bytes (the
// digests are compared before timing).
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>

#include "accumulators/exact_accumulators.h"
#include "common/file_io.h"
#include "common/sha256.h"

namespace pstrain::bench {
namespace {

namespace fs = std::filesystem;

ExactAccumulators LargeModelSums() {
  using Block = ExactAccumulators::Block;
  const AccumulatorShape shape{2102, 16, 39, 2102, 3};
  ExactAccumulators sums(shape, true);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> value(-1.0e3, 1.0e3);
  const std::size_t n_dens = std::size_t{2102} * 16;
  for (std::size_t i = 0; i < n_dens; ++i) sums.AddValue(Block::kDnom, i, value(rng) + 1.0e3);
  for (std::size_t i = 0; i < n_dens * 39; ++i) sums.AddValue(Block::kMean, i, value(rng));
  for (std::size_t i = 0; i < n_dens * 39; ++i) sums.AddValue(Block::kVar, i, value(rng) * value(rng));
  return sums;
}

std::string Write(const ExactAccumulators& sums, const fs::path& dir, bool piped) {
  Sha256Stream digest;
  const auto produce = [&](const ByteSink& sink) {
    sums.EmitExactCounts([&](const void* data, std::size_t size) {
      sink(data, size);
      digest.Add(data, size);
    });
  };
  if (piped) WriteFileAtomicPiped(dir / "exact_counts", produce);
  else WriteFileAtomicStreamed(dir / "exact_counts", produce);
  return digest.HexDigest();
}

void BM_ExactCountsWrite(benchmark::State& state) {
  const bool piped = state.range(0) != 0;
  static const ExactAccumulators sums = LargeModelSums();
  const fs::path dir = fs::temp_directory_path() / ("pstrain-bench-exact-counts-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    DirectorySyncScope scope(dir);
    if (Write(sums, dir, piped) != Write(sums, dir, !piped)) throw std::runtime_error("the two ways wrote other bytes");
    for (auto _ : state) benchmark::DoNotOptimize(Write(sums, dir, piped));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * fs::file_size(dir / "exact_counts")));
  fs::remove_all(dir);
}
BENCHMARK(BM_ExactCountsWrite)->ArgName("piped")->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pstrain::bench
