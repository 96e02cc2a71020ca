// Gate 5 (issue #5), provenance comparison: comparing the models of a --jobs 1 and a --jobs 2 run
// surfaces the effective shard count. The model files are identical (exact reduction); their
// provenance.json files differ exactly in the fields that record the count or how the shards ran
// (requested_jobs, effective_shard_count, launcher, training_fingerprint, and the embedded passes)
// and agree on every other field, the input fingerprints included.
//
// Quick profile (the declaration): default corpus (93 utterances), --jobs 1 and --jobs 2, 3 passes.
// Full profile: benchmark corpus (400 utterances), --jobs 1 and --jobs 2, 8 passes.
// Overrides (`audit gates run`): --shards compares the first two distinct counts of the list (the
// launcher differs only when one of them is 1: inline vs local); --passes and --corpus apply.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "common/file_io.h"
#include "gate_fixture.h"
#include "gate_kit.h"

namespace pstrain::gates {
namespace {

namespace fs = std::filesystem;

std::set<std::string> TopLevelKeys(const fs::path& file) {
  std::set<std::string> keys;
  const boost::json::value root = boost::json::parse(ReadFileText(file));
  for (const auto& member : root.as_object()) keys.emplace(member.key());
  return keys;
}

TEST(Gate, ProvenanceComparison) {
  Gate gate({"provenance-comparison", {1, 2}, 3, "one machine: host, binary and libraries are equal by construction here, not across machines; the embedded passes are compared as a whole (different) and through each passes/NNN/pass.json (equal but for the count fields)"});
  const GateCorpus corpus = ProfileCorpus();
  const std::uint32_t passes = GatePasses(3, 8);
  const std::vector<std::uint32_t> counts = GateShardCounts({1, 2}, ShardUse::kFirstTwoDistinct);
  gate.RecordRun(DescribeRun(corpus, counts, passes, ShardUse::kFirstTwoDistinct));
  const std::uint32_t jobs_one = counts.at(0), jobs_two = counts.at(1);
  const auto effective = [&](std::uint32_t jobs) { return static_cast<double>(std::min<std::size_t>(jobs, corpus.utterances)); };
  const fs::path dir = GateScratch("provenance-comparison");
  const fs::path one = dir / ("jobs-" + std::to_string(jobs_one)), two = dir / ("jobs-" + std::to_string(jobs_two));
  // Preconditions: both runs finish.
  ASSERT_EQ(RunOk(TrainCommand(corpus, one, "--jobs " + std::to_string(jobs_one) + " " + ExactlyPasses(passes))).exit_code, 0);
  ASSERT_EQ(RunOk(TrainCommand(corpus, two, "--jobs " + std::to_string(jobs_two) + " " + ExactlyPasses(passes))).exit_code, 0);
  // Precondition: the effective counts differ (a count above the corpus's utterances is cut to it).
  ASSERT_NE(effective(jobs_one), effective(jobs_two)) << "--jobs " << jobs_one << " and " << jobs_two << " both run "
                                                      << corpus.utterances << " shards on this corpus";
  const fs::path a = one / "model" / "provenance.json", b = two / "model" / "provenance.json";
  // Precondition: the fields compared below are all of provenance.json's fields, so "differs
  // exactly there" covers the whole file (a field added later must be added here).
  const std::set<std::string> expected_keys = {"format", "pstrain_version", "training_fingerprint", "requested_jobs", "effective_shard_count",
                                               "reduction", "launcher", "architecture", "compiler", "binary_sha256", "libraries", "host",
                                               "inputs", "stop_rule", "stop_decision", "model_files", "passes"};
  ASSERT_EQ(TopLevelKeys(a), expected_keys);
  ASSERT_EQ(TopLevelKeys(b), expected_keys);
  gate.ExpectWithin("provenance.json effective_shard_count, first count", JsonNumber(a, "effective_shard_count"), effective(jobs_one), 0.0, 0.0);
  gate.ExpectWithin("provenance.json effective_shard_count, second count", JsonNumber(b, "effective_shard_count"), effective(jobs_two), 0.0, 0.0);

  // Where the two differ: the count, and what depends on it.
  gate.ExpectProvenanceField(a, b, "effective_shard_count", FieldRelation::kDifferent);
  gate.ExpectProvenanceField(a, b, "requested_jobs", FieldRelation::kDifferent);
  if (effective(jobs_one) == 1 || effective(jobs_two) == 1) {
    gate.ExpectProvenanceField(a, b, "launcher", FieldRelation::kDifferent);  // inline vs local
  } else {
    gate.ExpectProvenanceField(a, b, "launcher", FieldRelation::kEqual);  // local and local
  }
  gate.ExpectProvenanceField(a, b, "training_fingerprint", FieldRelation::kDifferent);
  gate.ExpectProvenanceField(a, b, "passes", FieldRelation::kDifferent);
  // Where they agree: the inputs ...
  gate.ExpectProvenanceField(a, b, "inputs.manifest_fingerprint", FieldRelation::kEqual);
  gate.ExpectProvenanceField(a, b, "inputs.config_fingerprint", FieldRelation::kEqual);
  gate.ExpectProvenanceField(a, b, "inputs.input_model_fingerprint", FieldRelation::kEqual);
  gate.ExpectProvenanceField(a, b, "inputs.config", FieldRelation::kEqual);
  // ... the build and everything else.
  gate.ExpectProvenanceField(a, b, "format", FieldRelation::kEqual);
  gate.ExpectProvenanceField(a, b, "pstrain_version", FieldRelation::kEqual);
  gate.ExpectProvenanceField(a, b, "reduction", FieldRelation::kEqual);
  gate.ExpectProvenanceField(a, b, "architecture", FieldRelation::kEqual);
  gate.ExpectProvenanceField(a, b, "compiler", FieldRelation::kEqual);
  gate.ExpectProvenanceField(a, b, "binary_sha256", FieldRelation::kEqual);
  gate.ExpectProvenanceField(a, b, "libraries", FieldRelation::kEqual);
  gate.ExpectProvenanceField(a, b, "host", FieldRelation::kEqual);
  gate.ExpectProvenanceField(a, b, "stop_rule", FieldRelation::kEqual);
  gate.ExpectProvenanceField(a, b, "stop_decision", FieldRelation::kEqual);
  gate.ExpectProvenanceField(a, b, "model_files", FieldRelation::kEqual);

  // The model files themselves (exact reduction).
  gate.ExpectProducedFilesIdentical(one / "model", two / "model", {"means", "variances", "mixture_weights", "transition_matrices"});
  gate.ExpectCopiedInputsIdentical(one / "model", two / "model", {"mdef", "feat.params", "noisedict"});

  // The passes: equal but for the fields that record the count.
  for (std::uint32_t pass = 1; pass <= passes; ++pass) {
    SCOPED_TRACE("pass " + std::to_string(pass));
    gate.ExpectJsonFieldsEqual(PassDir(one, pass) / "pass.json", PassDir(two, pass) / "pass.json",
                               {"format", "pass", "reduction", "fingerprints.model", "fingerprints.config", "fingerprints.manifest", "totals",
                                "utterance_ids", "processed_ids", "retried_ids", "skipped", "log_likelihood_gain_per_frame",
                                "stop_decision", "reestimation"});
  }
}

}  // namespace
}  // namespace pstrain::gates
