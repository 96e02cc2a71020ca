// Gate 1 (issue #5), fixed-count reproducibility: two complete runs with the same shard count write
// byte-identical models (after every pass and at the end), reduced statistics, pass summaries and
// shard artifacts, and copy the same input files into every model directory.
//
// Quick profile (the declaration): default corpus (93 utterances), --jobs 2, 3 passes.
// Full profile: benchmark corpus (400 utterances, retries and skips in pass 1), --jobs 2, 8 passes.
// Overrides (`audit gates run`): --shards runs each count of the list twice and compares the two
// runs of each count; --passes and --corpus apply.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "gate_fixture.h"
#include "gate_kit.h"

namespace pstrain::gates {
namespace {

namespace fs = std::filesystem;

TEST(Gate, FixedCountReproducibility) {
  Gate gate({"fixed-count-reproducibility", {2}, 3, "two runs one after the other on one machine with one build; telemetry.json and worker.stderr (PIDs, times, worker output) are not compared; nothing across machines, architectures, compilers or library versions"});
  const GateCorpus corpus = ProfileCorpus();
  const std::uint32_t passes = GatePasses(3, 8);
  const std::vector<std::uint32_t> counts = GateShardCounts({2}, ShardUse::kEach);
  gate.RecordRun(DescribeRun(corpus, counts, passes, ShardUse::kEach));
  const fs::path dir = GateScratch("fixed-count-reproducibility");
  for (const std::uint32_t jobs : counts) {
    SCOPED_TRACE("--jobs " + std::to_string(jobs));
    // The declared count 2 keeps its directories a/ and b/; other counts get jobs-N/a and jobs-N/b.
    const fs::path base = jobs == 2 ? dir : dir / ("jobs-" + std::to_string(jobs));
    const fs::path a = base / "a", b = base / "b";
    const std::string options = "--jobs " + std::to_string(jobs) + " " + ExactlyPasses(passes);
    // Preconditions: both runs finish.
    ASSERT_EQ(RunOk(TrainCommand(corpus, a, options)).exit_code, 0);
    ASSERT_EQ(RunOk(TrainCommand(corpus, b, options)).exit_code, 0);
    // The effective count is min(jobs, utterances).
    const std::uint32_t shards = static_cast<std::uint32_t>(std::min<std::size_t>(jobs, corpus.utterances));

    for (std::uint32_t pass = 1; pass <= passes; ++pass) {
      SCOPED_TRACE("pass " + std::to_string(pass));
      const fs::path pass_a = PassDir(a, pass), pass_b = PassDir(b, pass);
      gate.ExpectWithin("pass.json shard_count, run a", ShardCountOf(pass_a), shards, 0.0, 0.0);
      gate.ExpectWithin("pass.json shard_count, run b", ShardCountOf(pass_b), shards, 0.0, 0.0);
      gate.ExpectProducedFilesIdentical(pass_a / "model", pass_b / "model", {"means", "variances", "mixture_weights", "transition_matrices"});
      gate.ExpectCopiedInputsIdentical(pass_a / "model", pass_b / "model", {"mdef", "feat.params", "noisedict"});
      gate.ExpectProducedFilesIdentical(pass_a / "accum", pass_b / "accum", {"gauden_counts", "mixw_counts", "tmat_counts", "exact_counts"});
      gate.ExpectProducedFilesIdentical(pass_a, pass_b, {"pass.json"});
      for (std::uint32_t shard = 0; shard < shards; ++shard) {
        gate.ExpectProducedFilesIdentical(pass_a / ShardDirName(shard), pass_b / ShardDirName(shard),
                                          {"artifact.json", "gauden_counts", "mixw_counts", "tmat_counts", "exact_counts", "worker.log"});
      }
    }
    gate.ExpectProducedFilesIdentical(a / "model", b / "model", {"means", "variances", "mixture_weights", "transition_matrices", "provenance.json"});
    gate.ExpectCopiedInputsIdentical(a / "model", b / "model", {"mdef", "feat.params", "noisedict"});
  }
}

}  // namespace
}  // namespace pstrain::gates
