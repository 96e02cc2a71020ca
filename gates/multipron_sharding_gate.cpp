// Gate 6 (issue #5), multipron sharding: training over every pronunciation (`--multipron`) with 4
// workers really runs 4 worker processes at once, and gives the same bytes as 1 worker: models,
// reduced statistics with the union of the activation sidecars, and each pass's discrete state,
// activated states and re-estimation report.
//
// The model is an untied triphone model made by SphinxTrain's mk_mdef_gen from the default
// corpus's base pronunciations (tests/support/cd_model_util.h), so alternates fall back to CI
// phones and the survival prior is exercised.
// Quick profile (the declaration): default corpus, --jobs 1 and 4, exact reduction, 3 passes.
// Full profile: benchmark corpus, 5 passes.
// Overrides (`audit gates run`): --shards runs every count of the list (at least 2 distinct) and
// compares each with the first; the workers of every count above 1 must all be alive at once;
// --passes and --corpus apply (the model is still made from the default corpus's dictionary, so an
// override corpus must use its words).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gate_fixture.h"
#include "gate_kit.h"
#include "shards/shard_telemetry.h"
#include "support/cd_model_util.h"

namespace pstrain::gates {
namespace {

namespace fs = std::filesystem;

std::string TrainFrom(const fs::path& model, const GateCorpus& corpus, const fs::path& run, const std::string& extra) {
  return GatePstrain("train --model " + pstrain::testing::ShellQuote(model.string()) + " --manifest " +
                                   pstrain::testing::ShellQuote(corpus.manifest.string()) + " --corpus-root " +
                                   pstrain::testing::ShellQuote(corpus.dir.string()) + " --dict " +
                                   pstrain::testing::ShellQuote(corpus.dict().string()) + " --filler " +
                                   pstrain::testing::ShellQuote(corpus.filler().string()) + " --out " +
                                   pstrain::testing::ShellQuote(run.string()) + " " + extra);
}

TEST(Gate, MultipronSharding) {
  Gate gate({"multipron-sharding", {1, 4}, 3, "one corpus, one model family (an untied triphone model from the corpus's base pronunciations), exact reduction only; worker overlap is read from telemetry timestamps at millisecond resolution on one machine; the float32 mode and the agreement of multipron statistics with a peer are not checked"});
  const GateCorpus corpus = ProfileCorpus();
  const std::uint32_t passes = GatePasses(3, 5);
  const std::vector<std::uint32_t> counts = GateShardCounts({1, 4}, ShardUse::kWholeList);
  gate.RecordRun(DescribeRun(corpus, counts, passes, ShardUse::kWholeList));
  const fs::path dir = GateScratch("multipron-sharding");
  const fs::path model = pstrain::testing::UntiedCdModel(dir);
  std::map<std::uint32_t, fs::path> runs;
  for (const std::uint32_t jobs : counts) {
    runs[jobs] = dir / ("jobs-" + std::to_string(jobs));
    // Preconditions: every run finishes.
    ASSERT_EQ(RunOk(TrainFrom(model, corpus, runs[jobs], "--multipron --jobs " + std::to_string(jobs) + " " + ExactlyPasses(passes))).exit_code, 0);
  }
  const std::uint32_t first = counts.front();
  const fs::path one = runs.at(first);
  for (const std::uint32_t jobs : counts) {
    if (jobs == first) continue;
    SCOPED_TRACE("--jobs " + std::to_string(jobs) + " vs --jobs " + std::to_string(first));
    const fs::path four = runs.at(jobs);
    const std::uint32_t shards = static_cast<std::uint32_t>(std::min<std::size_t>(jobs, corpus.utterances));
    for (std::uint32_t pass = 1; pass <= passes; ++pass) {
      SCOPED_TRACE("pass " + std::to_string(pass));
      const fs::path pass_one = PassDir(one, pass), pass_four = PassDir(four, pass);
      gate.ExpectWithin("pass.json shard_count = min(jobs, utterances)", ShardCountOf(pass_four), shards, 0.0, 0.0);
      gate.ExpectProducedFilesIdentical(pass_one / "model", pass_four / "model", {"means", "variances", "mixture_weights", "transition_matrices"});
      gate.ExpectProducedFilesIdentical(pass_one / "accum", pass_four / "accum",
                                        {"gauden_counts", "mixw_counts", "tmat_counts", "exact_counts", "fallback_senones"});
      gate.ExpectJsonFieldsEqual(pass_one / "pass.json", pass_four / "pass.json",
                                 {"processed_ids", "retried_ids", "skipped", "totals.total_frames", "totals.total_log_likelihood_exact",
                                  "stop_decision", "multipron.activated_senones", "multipron.survival_prior_states", "reestimation"});
      if (shards < 2) continue;
      // The workers' lifetimes overlap: all were alive when the last one started.
      std::string latest_start;
      for (std::uint32_t shard = 0; shard < shards; ++shard) {
        latest_start = std::max(latest_start, ReadShardTelemetry(pass_four / ShardDirName(shard) / kShardTelemetryFile).start);
      }
      double alive = 0;
      for (std::uint32_t shard = 0; shard < shards; ++shard) {
        if (ReadShardTelemetry(pass_four / ShardDirName(shard) / kShardTelemetryFile).end > latest_start) ++alive;
      }
      gate.ExpectWithin("workers alive when the last one started (all of them)", alive, shards, 0.0, 0.0);
    }
    gate.ExpectProducedFilesIdentical(one / "model", four / "model", {"means", "variances", "mixture_weights", "transition_matrices"});
  }
}

}  // namespace
}  // namespace pstrain::gates
