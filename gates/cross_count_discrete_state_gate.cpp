// Gate 2 (issue #5), cross-count discrete state in float32 mode: with `--reduction float32` the
// floating parameters depend on how the shards group the float32 sums, but which utterances were
// processed, retried and skipped, the frame totals and the stop decision do not (docs/contract.md,
// "Reduction": frames add as integers, the log-likelihood as exact fixed point).
//
// Quick profile (the declaration): default corpus (93 utterances, 17 retried in pass 1), --jobs 1
// and --jobs 2, 3 passes. Full profile: benchmark corpus (400 utterances, 64 retried and 2 skipped
// in pass 1), --jobs 1 and --jobs 2, 8 passes.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>

#include "gate_fixture.h"
#include "gate_kit.h"

namespace pstrain::gates {
namespace {

namespace fs = std::filesystem;

TEST(Gate, CrossCountDiscreteState) {
  Gate gate({"cross-count-discrete-state", {1, 2}, 3, "float32 reduction: only the discrete state is compared; the floating parameters differ across shard counts and no tolerance is claimed for them; the total log-likelihood is compared in pass 1 only (later passes start from models that differ); from pass 2 on the outcomes come from those differing models, so their equality is observed on this corpus, not guaranteed"});
  const GateCorpus corpus = ProfileCorpus();
  const std::uint32_t passes = ProfileValue(3, 8);
  const fs::path dir = GateScratch("cross-count-discrete-state");
  const fs::path one = dir / "jobs-1", two = dir / "jobs-2";
  // Preconditions: both runs finish.
  ASSERT_EQ(RunOk(TrainCommand(corpus, one, "--jobs 1 --reduction float32 " + ExactlyPasses(passes))).exit_code, 0);
  ASSERT_EQ(RunOk(TrainCommand(corpus, two, "--jobs 2 --reduction float32 " + ExactlyPasses(passes))).exit_code, 0);

  for (std::uint32_t pass = 1; pass <= passes; ++pass) {
    SCOPED_TRACE("pass " + std::to_string(pass));
    const fs::path pass_one = one / "passes" / PassName(pass), pass_two = two / "passes" / PassName(pass);
    // Precondition: both runs really used the float32 reduction.
    ASSERT_EQ(JsonString(pass_one / "pass.json", "reduction"), "float32");
    ASSERT_EQ(JsonString(pass_two / "pass.json", "reduction"), "float32");
    gate.ExpectWithin("pass.json shard_count, --jobs 1", ShardCountOf(pass_one), 1, 0.0, 0.0);
    gate.ExpectWithin("pass.json shard_count, --jobs 2", ShardCountOf(pass_two), 2, 0.0, 0.0);
    gate.ExpectJsonFieldsEqual(pass_one / "pass.json", pass_two / "pass.json",
                               {"utterance_ids", "processed_ids", "retried_ids", "skipped", "totals.utterances", "totals.processed",
                                "totals.retried", "totals.skipped", "totals.total_frames", "stop_decision"});
    if (pass == 1) {
      // Same input model, exact log-likelihood sums: the first pass's total is the same bits.
      gate.ExpectJsonFieldsEqual(pass_one / "pass.json", pass_two / "pass.json", {"totals.total_log_likelihood_exact"});
    }
  }
}

}  // namespace
}  // namespace pstrain::gates
