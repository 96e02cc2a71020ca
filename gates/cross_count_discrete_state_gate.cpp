// Gate 2 (issue #5), cross-count discrete state in float32 mode: with `--reduction float32` the
// floating parameters depend on how the shards group the float32 sums, but which utterances were
// processed, retried and skipped, the frame totals and the stop decision do not (docs/contract.md,
// "Reduction": frames add as integers, the log-likelihood as exact fixed point).
//
// Quick profile (the declaration): default corpus (93 utterances, 17 retried in pass 1), --jobs 1
// and --jobs 2, 3 passes. Full profile: benchmark corpus (400 utterances, 64 retried and 2 skipped
// in pass 1), --jobs 1 and --jobs 2, 8 passes.
// Overrides (`audit gates run`): --shards runs every count of the list (at least 2 distinct) and
// compares each with the first; --passes and --corpus apply.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gate_fixture.h"
#include "gate_kit.h"
#include "coordinator/pass_file.h"

namespace pstrain::gates {
namespace {

namespace fs = std::filesystem;

TEST(Gate, CrossCountDiscreteState) {
  Gate gate({"cross-count-discrete-state", {1, 2}, 3, "float32 reduction: only the discrete state is compared; the floating parameters differ across shard counts and no tolerance is claimed for them; the total log-likelihood is compared in pass 1 only (later passes start from models that differ); from pass 2 on the outcomes come from those differing models, so their equality is observed on this corpus, not guaranteed"});
  const GateCorpus corpus = ProfileCorpus();
  const std::uint32_t passes = GatePasses(3, 8);
  const std::vector<std::uint32_t> counts = GateShardCounts({1, 2}, ShardUse::kWholeList);
  gate.RecordRun(DescribeRun(corpus, counts, passes, ShardUse::kWholeList));
  const fs::path dir = GateScratch("cross-count-discrete-state");
  std::map<std::uint32_t, fs::path> runs;
  for (const std::uint32_t jobs : counts) {
    runs[jobs] = dir / ("jobs-" + std::to_string(jobs));
    // Preconditions: every run finishes.
    ASSERT_EQ(RunOk(TrainCommand(corpus, runs[jobs], "--jobs " + std::to_string(jobs) + " --reduction float32 " + ExactlyPasses(passes))).exit_code, 0);
  }
  const std::uint32_t first = counts.front();
  for (const std::uint32_t jobs : counts) {
    SCOPED_TRACE("--jobs " + std::to_string(jobs) + " vs --jobs " + std::to_string(first));
    for (std::uint32_t pass = 1; pass <= passes; ++pass) {
      SCOPED_TRACE("pass " + std::to_string(pass));
      const fs::path pass_one = runs.at(first) / "passes" / PassName(pass), pass_two = runs.at(jobs) / "passes" / PassName(pass);
      // Precondition: the run really used the float32 reduction.
      ASSERT_EQ(ReadPassFile(pass_two / kPassFileName).reduction, "float32");
      gate.ExpectWithin("pass.json shard_count = min(jobs, utterances)", ShardCountOf(pass_two),
                        static_cast<double>(std::min<std::size_t>(jobs, corpus.utterances)), 0.0, 0.0);
      if (jobs == first) continue;
      gate.ExpectJsonFieldsEqual(pass_one / "pass.json", pass_two / "pass.json",
                                 {"utterance_ids", "processed_ids", "retried_ids", "skipped", "totals.utterances", "totals.processed",
                                  "totals.retried", "totals.skipped", "totals.total_frames", "stop_decision"});
      if (pass == 1) {
        // Same input model, exact log-likelihood sums: the first pass's total is the same bits.
        gate.ExpectJsonFieldsEqual(pass_one / "pass.json", pass_two / "pass.json", {"totals.total_log_likelihood_exact"});
      }
    }
  }
}

}  // namespace
}  // namespace pstrain::gates
