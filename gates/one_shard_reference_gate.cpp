// Gate 4 (issue #5), one-shard reference: `pstrain accumulate --jobs 1` (one shard through the
// artifact, validation and reduction path) writes the same statistics, byte for byte, as the
// in-process serial E-step (RunCorpusPass) written with ExactAccumulators::Write, and reports the
// same outcomes.
//
// Quick profile (the declaration): default corpus (93 utterances, 17 retried), one E-step.
// Full profile: benchmark corpus (400 utterances, 64 retried, 2 skipped), one E-step.
// Overrides (`audit gates run`): --corpus applies; --shards and --passes are ignored (one shard
// and one E-step by definition) and the run record says so.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <sstream>
#include <string>

#include "accumulators/exact_accumulators.h"
#include "accumulators/exact_sum.h"
#include "common/file_io.h"
#include "formats/dictionary.h"
#include "gate_fixture.h"
#include "gate_kit.h"
#include "support/test_util.h"
#include "manifest/manifest.h"
#include "provenance/fingerprints.h"
#include "estep/corpus_pass.h"

namespace pstrain::gates {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

// The serial pass's outcomes in the layout of accumulate's summary.json (the fields compared).
void WriteSerialSummary(const CorpusPassResult& serial, const fs::path& file) {
  json::array processed, retried, skipped;
  for (const UtteranceOutcome& outcome : serial.outcomes) {
    if (outcome.kind != OutcomeKind::kSkipped) processed.emplace_back(outcome.utt_id);
    if (outcome.attempts > 1) retried.emplace_back(outcome.utt_id);
    if (outcome.kind == OutcomeKind::kSkipped) {
      json::object item;
      item["id"] = outcome.utt_id;
      item["reason"] = outcome.reason;
      skipped.emplace_back(std::move(item));
    }
  }
  json::object totals;
  totals["total_frames"] = serial.total_frames;
  totals["total_log_likelihood_exact"] = FixedToHex(serial.total_log_likelihood.fixed());
  json::object summary;
  summary["totals"] = std::move(totals);
  summary["processed_ids"] = std::move(processed);
  summary["retried_ids"] = std::move(retried);
  summary["skipped"] = std::move(skipped);
  WriteFileAtomic(file, json::serialize(summary) + "\n");
}

TEST(Gate, OneShardReference) {
  Gate gate({"one-shard-reference", {1}, 1, "one E-step from the shipped initial model with the CLI's default options; the in-process reference shares the E-step code with the shards, so a defect in that code is not caught here (the peer-agreement gate compares with SphinxTrain's bw)"});
  const GateCorpus corpus = ProfileCorpus();
  gate.RecordRun(DescribeRun(corpus, GateShardCounts({1}, ShardUse::kFixed), 1, ShardUse::kFixed,
                             "one E-step by definition"));
  const fs::path dir = GateScratch("one-shard-reference");

  // The in-process serial pass over the whole manifest.
  const ModelFiles model = ModelFiles::Load(pstrain::testing::An4Model().string());
  const Manifest manifest = Manifest::Load(corpus.manifest);
  Dictionary dictionary = Dictionary::Load(corpus.dict().string(), false);
  dictionary.Merge(Dictionary::Load(corpus.filler().string(), true));
  AccumulateOptions options;          // the CLI's defaults (docs/cli.md) ...
  options.fb.beams = {1e-90, 1e-10};  // ... use SphinxTrain's script beams, not bw's built-in ones
  std::ostringstream serial_log;
  const CorpusPassResult serial = RunCorpusPass(model, manifest, 0, manifest.size(), corpus.dir, dictionary, options, &serial_log);
  const fs::path serial_dir = dir / "serial";
  serial.accumulators.Write(serial_dir.string());
  WriteSerialSummary(serial, serial_dir / "summary.json");

  const fs::path out = dir / "accumulate-jobs-1";
  // Precondition: the one-shard accumulate finishes.
  ASSERT_EQ(RunOk(AccumulateCommand(corpus, out, "--jobs 1")).exit_code, 0);
  // Precondition: both sides used the same options (the artifact's configuration fingerprint is
  // the reference's), or the comparison would mean nothing.
  ASSERT_EQ(JsonString(out / "shards" / ShardDirName(0) / "artifact.json", "fingerprints.config"),
            ConfigFingerprint(options, ReductionMode::kExact, DictionaryFingerprint(corpus.dict().string(), corpus.filler().string())));
  gate.ExpectWithin("summary.json shard_count", JsonNumber(out / "summary.json", "shard_count"), 1, 0.0, 0.0);
  gate.ExpectProducedFilesIdentical(out, serial_dir, {"gauden_counts", "mixw_counts", "tmat_counts", "exact_counts"});
  gate.ExpectJsonFieldsEqual(out / "summary.json", serial_dir / "summary.json",
                             {"processed_ids", "retried_ids", "skipped", "totals.total_frames", "totals.total_log_likelihood_exact"});
  // The shard's per-utterance log is the serial pass's log (written as a file to compare bytes).
  WriteFileAtomic(serial_dir / "worker.log", serial_log.str());
  gate.ExpectProducedFilesIdentical(out / "shards" / ShardDirName(0), serial_dir, {"worker.log"});
}

}  // namespace
}  // namespace pstrain::gates
