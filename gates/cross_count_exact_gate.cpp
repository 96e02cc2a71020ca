// Gate 3 (issue #5), cross-count exact: with the exact reduction (the default) every shard count
// writes the same model and reduced statistics after every pass, the same final model, and pass
// summaries that differ only in the fields recording the count (docs/contract.md, "Passes").
//
// Quick profile (the declaration): default corpus (93 utterances, 17 retried in pass 1),
// --jobs 1 (the reference), 2, 3, 4 and 7, passes 1 to 5.
// Full profile: benchmark corpus (400 utterances, 64 retried and 2 skipped in pass 1), the same
// shard counts, passes 1 to 10.
// Overrides (`audit gates run`): --shards runs every count of the list (at least 2 distinct) and
// compares each with the first (the reference); --passes and --corpus apply.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gate_fixture.h"
#include "gate_kit.h"

namespace pstrain::gates {
namespace {

namespace fs = std::filesystem;

TEST(Gate, CrossCountExact) {
  Gate gate({"cross-count-exact", {1, 2, 3, 4, 7}, 5, "exact reduction only; one corpus and one initial model per profile; shard counts up to 7 (the effective count is min(jobs, utterances)); pass.json fields requested_jobs, shard_count, training_fingerprint and fingerprints.pass record the count and are not compared; provenance.json is not compared"});
  const GateCorpus corpus = ProfileCorpus();
  const std::uint32_t passes = GatePasses(5, 10);
  const std::vector<std::uint32_t> counts = GateShardCounts({1, 2, 3, 4, 7}, ShardUse::kWholeList);
  gate.RecordRun(DescribeRun(corpus, counts, passes, ShardUse::kWholeList));
  const fs::path dir = GateScratch("cross-count-exact");
  std::map<std::uint32_t, fs::path> runs;
  for (const std::uint32_t jobs : counts) {
    runs[jobs] = dir / ("jobs-" + std::to_string(jobs));
    // Precondition: every run finishes.
    ASSERT_EQ(RunOk(TrainCommand(corpus, runs[jobs], "--jobs " + std::to_string(jobs) + " " + ExactlyPasses(passes))).exit_code, 0);
  }
  const std::uint32_t first = counts.front();
  const fs::path& reference = runs.at(first);
  const std::set<std::string> model_files = {"means", "variances", "mixture_weights", "transition_matrices", "mdef", "feat.params", "noisedict"};
  const std::set<std::string> accum_files = {"gauden_counts", "mixw_counts", "tmat_counts", "exact_counts"};
  for (const auto& [jobs, run] : runs) {
    SCOPED_TRACE("--jobs " + std::to_string(jobs) + " vs --jobs " + std::to_string(first));
    for (std::uint32_t pass = 1; pass <= passes; ++pass) {
      SCOPED_TRACE("pass " + std::to_string(pass));
      const fs::path pass_dir = PassDir(run, pass), reference_pass = PassDir(reference, pass);
      // Precondition: the comparisons below name every file of model/ and accum/ ("every model and
      // statistics file"), so a file the trainer adds later cannot go uncompared.
      ASSERT_EQ(FileNamesIn(pass_dir / "model"), model_files);
      ASSERT_EQ(FileNamesIn(pass_dir / "accum"), accum_files);
      gate.ExpectWithin("pass.json shard_count = min(jobs, utterances)", ShardCountOf(pass_dir),
                        static_cast<double>(std::min<std::size_t>(jobs, corpus.utterances)), 0.0, 0.0);
      if (jobs == first) continue;
      gate.ExpectProducedFilesIdentical(pass_dir / "model", reference_pass / "model", {"means", "variances", "mixture_weights", "transition_matrices"});
      gate.ExpectCopiedInputsIdentical(pass_dir / "model", reference_pass / "model", {"mdef", "feat.params", "noisedict"});
      gate.ExpectProducedFilesIdentical(pass_dir / "accum", reference_pass / "accum", {"gauden_counts", "mixw_counts", "tmat_counts", "exact_counts"});
      gate.ExpectJsonFieldsEqual(pass_dir / "pass.json", reference_pass / "pass.json",
                                 {"format", "pass", "reduction", "fingerprints.model", "fingerprints.config", "fingerprints.manifest", "totals",
                                  "utterance_ids", "processed_ids", "retried_ids", "skipped", "log_likelihood_gain_per_frame",
                                  "stop_decision", "reestimation"});
    }
    if (jobs == first) continue;
    // Precondition: no pass beyond the last one.
    ASSERT_FALSE(fs::exists(PassDir(run, passes + 1)));
    gate.ExpectProducedFilesIdentical(run / "model", reference / "model", {"means", "variances", "mixture_weights", "transition_matrices"});
    gate.ExpectCopiedInputsIdentical(run / "model", reference / "model", {"mdef", "feat.params", "noisedict"});
  }
}

}  // namespace
}  // namespace pstrain::gates
