// Gate 9 (issue #5), peer agreement: one shard's statistics agree with SphinxTrain's own
// `/usr/lib/sphinxtrain/bw` on the same model, corpus and options. This is the gate that catches a
// defect our serial and sharded paths would share (every other gate compares pstrain with itself).
// The approach and tolerances are those of tests/trainer/cli/peer_agreement_integration_test.cpp:
// the same utterances succeed, the same total frames, the total log-likelihood within 1e-5
// relative, and every accumulator element of every density with dnom >= 1 (and every transition row
// with occupancy >= 1) within 1e-4*|bw| + 1e-5*count; the gate records the largest ratio of an
// element's difference to its allowance, which must be at most 1.
//
// Quick profile (the declaration): default corpus (93 utterances), context-independent an4 model,
// -topn 1, one-pass variance, --jobs 1, one E-step, no retries (bw has none).
// Full profile: the same on the benchmark corpus (400 utterances).
// Overrides (`audit gates run`): --corpus applies (bw's control file and transcripts are then
// written from the manifest: each feature path must end in .mfc); --shards and --passes are ignored
// (one shard, one E-step by definition) and the run record says so.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include "accumulators/accumulators.h"
#include "common/file_io.h"
#include "formats/param_files.h"
#include "gate_fixture.h"
#include "gate_kit.h"
#include "manifest/manifest.h"
#include "support/peer_compare_util.h"
#include "support/test_util.h"

namespace pstrain::gates {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using pstrain::testing::CommandResult;
using pstrain::testing::RunCommand;
using pstrain::testing::ShellQuote;


// What bw's stdout says: the utterances with a complete `utt>` line (in control-file order) and
// the `overall> stats` totals.
using BwRun = pstrain::testing::BwLog;

// bw's inputs: the corpus's own train.fileids/train.transcription with -cepdir DIR/feat, or for a
// corpus override (a manifest only) a control file and transcripts written from the manifest with
// -cepdir CORPUS_ROOT; `ids` maps bw's utterance names (control-file paths) to manifest ids.
struct BwInputs {
  fs::path fileids, transcription, cepdir;
  std::map<std::string, std::string> ids;
};

BwInputs WriteBwInputs(const GateCorpus& corpus, const fs::path& dir) {
  BwInputs inputs;
  if (corpus.name != "override") {
    inputs.fileids = corpus.dir / "train.fileids";
    inputs.transcription = corpus.dir / "train.transcription";
    inputs.cepdir = corpus.dir / "feat";
    return inputs;
  }
  std::string fileids, transcription;
  const Manifest manifest = Manifest::Load(corpus.manifest);
  for (const ManifestEntry& entry : manifest.entries()) {
    const std::string& path = entry.feature_path;
    if (path.size() <= 4 || path.compare(path.size() - 4, 4, ".mfc") != 0) {
      throw std::runtime_error("PSTRAIN_GATE_CORPUS: " + corpus.manifest.string() + ": utterance " + entry.utt_id + "'s feature path " + path +
                               " does not end in .mfc (bw's -cepext)");
    }
    const std::string control = path.substr(0, path.size() - 4);
    inputs.ids[control] = entry.utt_id;
    fileids += control + "\n";
    std::string words;
    for (const std::string& w : entry.words) words += (words.empty() ? "" : " ") + w;
    transcription += words + " (" + fs::path(control).filename().string() + ")\n";
  }
  fs::create_directories(dir);
  inputs.fileids = dir / "train.fileids";
  inputs.transcription = dir / "train.transcription";
  inputs.cepdir = corpus.dir;
  WriteFileAtomic(inputs.fileids, fileids);
  WriteFileAtomic(inputs.transcription, transcription);
  return inputs;
}

BwRun RunBw(const GateCorpus& corpus, const fs::path& model, const fs::path& accum_dir) {
  fs::create_directories(accum_dir);
  const fs::path log = accum_dir.parent_path() / "bw.log";
  const BwInputs inputs = WriteBwInputs(corpus, accum_dir.parent_path() / "inputs");
  const auto q = [](const fs::path& p) { return ShellQuote(p.string()); };
  const std::string command =
      "timeout 900 " + std::string(pstrain::testing::kBw) + " -moddeffn " + q(model / "mdef") + " -ts2cbfn .cont. -meanfn " +
      q(model / "means") + " -varfn " + q(model / "variances") + " -mixwfn " + q(model / "mixture_weights") + " -tmatfn " +
      q(model / "transition_matrices") + " -dictfn " + q(corpus.dict()) + " -fdictfn " + q(corpus.filler()) + " -ctlfn " +
      q(inputs.fileids) + " -lsnfn " + q(inputs.transcription) + " -cepdir " + q(inputs.cepdir) +
      " -cepext mfc -feat 1s_c_d_dd -ceplen 13 -agc none -cmn batch -varnorm no -mwfloor 1e-8 -varfloor 1e-4 -tpfloor 1e-4"
      " -abeam 1e-90 -bbeam 1e-10 -timing no -topn 1 -2passvar no -accumdir " +
      q(accum_dir) + " > " + q(log) + " 2>/dev/null";
  const CommandResult r = RunCommand(command);
  EXPECT_EQ(r.exit_code, 0) << "precondition: " << command << "\n" << r.output;
  BwRun bw = pstrain::testing::ParseBwLog(log);
  if (!inputs.ids.empty()) {
    for (std::string& id : bw.succeeded) {
      if (const auto it = inputs.ids.find(id); it != inputs.ids.end()) id = it->second;
    }
  }
  return bw;
}

// bw's outcome in the layout of accumulate's summary.json (the fields compared).
void WriteBwSummary(const BwRun& bw, const fs::path& file) {
  json::array processed;
  for (const std::string& id : bw.succeeded) processed.emplace_back(id);
  json::object totals;
  totals["total_frames"] = bw.frames;
  json::object summary;
  summary["processed_ids"] = std::move(processed);
  summary["totals"] = std::move(totals);
  WriteFileAtomic(file, json::serialize(summary) + "\n");
}


TEST(Gate, PeerAgreement) {
  Gate gate({"peer-agreement", {1}, 1, "one E-step from one context-independent model with -topn 1 and one-pass variance, no retries; within tolerances (total log-likelihood 1e-5 relative, elements 1e-4*|bw| + 1e-5*count), not bit for bit: bw accumulates in float32; densities with dnom < 1 and transition rows with occupancy < 1 are not compared"});
  // Precondition: the peer is installed (scripts/bootstrap.sh installs Debian's sphinxtrain).
  ASSERT_TRUE(fs::exists(pstrain::testing::kBw)) << pstrain::testing::kBw << " is missing";
  const GateCorpus corpus = ProfileCorpus();
  gate.RecordRun(DescribeRun(corpus, GateShardCounts({1}, ShardUse::kFixed), 1, ShardUse::kFixed, "one E-step by definition"));
  const fs::path dir = GateScratch("peer-agreement");
  const fs::path model = pstrain::testing::An4Model();

  const BwRun bw = RunBw(corpus, model, dir / "bw" / "accum");
  // Precondition: bw ran and reported its totals.
  ASSERT_GT(bw.frames, 0u) << "no overall> line in " << (dir / "bw" / "bw.log");
  WriteBwSummary(bw, dir / "bw" / "summary.json");

  const fs::path ours = dir / "ours";
  // Precondition: one shard, with bw's options (what bw has no equivalent for: no retries).
  ASSERT_EQ(RunOk(GatePstrain(
                      "accumulate --model " + ShellQuote(model.string()) + " --manifest " + ShellQuote(corpus.manifest.string()) +
                      " --corpus-root " + ShellQuote(corpus.dir.string()) + " --dict " + ShellQuote(corpus.dict().string()) +
                      " --filler " + ShellQuote(corpus.filler().string()) + " --out " + ShellQuote(ours.string()) +
                      " --jobs 1 --cmn batch --topn 1 --abeam 1e-90 --bbeam 1e-10 --varfloor 1e-4 --mwfloor 1e-8 --tpfloor 1e-4"
                      " --retry-beams none --2passvar no"))
                .exit_code,
            0);
  gate.ExpectWithin("summary.json shard_count", JsonNumber(ours / "summary.json", "shard_count"), 1, 0.0, 0.0);
  gate.ExpectJsonFieldsEqual(ours / "summary.json", dir / "bw" / "summary.json", {"processed_ids", "totals.total_frames"});
  gate.ExpectWithin("total log-likelihood vs bw (relative)", JsonNumber(ours / "summary.json", "totals.total_log_likelihood"),
                    bw.total_log_likelihood, 1e-5, 0.0);

  const pstrain::testing::PeerComparison worst = pstrain::testing::CompareWithBw(ours, dir / "bw" / "accum");
  // Precondition: the comparison is not vacuous.
  EXPECT_TRUE(worst.shapes_match) << worst.worst_where;
  EXPECT_GT(worst.densities, 50u) << "too few densities with counts to compare";
  EXPECT_GT(worst.tmat_rows, 10u) << "too few transition rows with counts to compare";
  std::cout << "[peer] " << bw.succeeded.size() << " utterances, " << bw.frames << " frames; compared " << worst.elements
            << " elements of " << worst.densities << " densities and " << worst.tmat_rows << " transition rows; worst " << worst.worst_where
            << " (" << worst.worst_ratio * 100.0 << "% of the allowed difference)\n";
  gate.ExpectWithin("largest accumulator-element violation ratio vs bw (|diff| / (1e-4*|bw| + 1e-5*count), at most 1)", worst.worst_ratio, 0.0,
                    0.0, 1.0);
}

}  // namespace
}  // namespace pstrain::gates
