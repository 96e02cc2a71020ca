// Multipron training (issue #4) on real speech: the default corpus, whose dictionary has 46
// alternate pronunciations (WORD(2)...), and an untied triphone model made by SphinxTrain's
// mk_mdef_gen from the base pronunciations only, so the alternates' triphones are missing and
// fall back to CI phones. Checks the activation sidecar, the survival prior (applied once, after
// reduction), independence of the shard count, sidecar rejection, and that the graph reduces to
// the linear path.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "accumulators/exact_accumulators.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "model/acoustic_model.h"
#include "shards/artifact.h"
#include "shards/fallback_sidecar.h"
#include "support/cd_model_util.h"
#include "support/shard_fixture.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

// A scratch directory with the CD model, per test (tests run in parallel processes).
struct MultipronSetup {
  explicit MultipronSetup(const std::string& name) : dir(FreshDir("multipron/" + name)), model(UntiedCdModel(dir)) {}

  fs::path Train(const std::string& run, std::uint32_t jobs, std::uint32_t passes, const std::string& extra = "--multipron",
                 const fs::path& dict = {}) const {
    const fs::path out = dir / run;
    const std::string p = std::to_string(passes);
    const CommandResult r = RunCommand(TrainCommandFrom(model, dict, corpus, out,
                                                        "--quiet --jobs " + std::to_string(jobs) + " --min-passes " + p +
                                                            " --max-passes " + p + " " + extra));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return out;
  }

  fs::path dir;
  fs::path model;
  CorpusFixture corpus = DefaultCorpus();
};

std::vector<std::uint32_t> ActivatedSenones(const fs::path& pass_dir) {
  std::vector<std::uint32_t> out;
  const json::object summary = ReadJson(pass_dir / "pass.json").as_object();
  for (const json::value& v : summary.at("multipron").at("activated_senones").as_array()) out.push_back(v.to_number<std::uint32_t>());
  return out;
}

TEST(Multipron, ShardCountsGiveIdenticalModelsAccountingAndActivation) {
  const MultipronSetup setup("shard-counts");
  const std::vector<std::uint32_t> job_counts = {1, 2, 4};
  std::vector<fs::path> runs;
  for (std::uint32_t jobs : job_counts) runs.push_back(setup.Train("jobs-" + std::to_string(jobs), jobs, 3));
  const fs::path linear = setup.Train("linear", 1, 1, "");

  for (std::size_t r = 0; r < runs.size(); ++r) {
    SCOPED_TRACE("--jobs " + std::to_string(job_counts[r]));
    for (std::uint32_t pass = 1; pass <= 3; ++pass) {
      SCOPED_TRACE("pass " + std::to_string(pass));
      const fs::path pass_dir = PassDir(runs[r], pass);
      const fs::path reference = PassDir(runs[0], pass);
      const auto accum = DeterministicDigests(pass_dir / "accum");
      EXPECT_EQ(accum.size(), 5u) << "bw files, exact_counts and the union of the sidecars";
      EXPECT_TRUE(accum.count(kFallbackSidecarFile));
      EXPECT_EQ(accum, DeterministicDigests(reference / "accum"));
      EXPECT_EQ(DeterministicDigests(pass_dir / "model"), DeterministicDigests(reference / "model"));
      const json::object summary = ReadJson(pass_dir / "pass.json").as_object();
      const json::object reference_summary = ReadJson(reference / "pass.json").as_object();
      for (const char* key : {"utterance_ids", "processed_ids", "retried_ids", "skipped", "totals", "stop_decision", "multipron",
                              "reestimation"}) {
        EXPECT_EQ(summary.at(key), reference_summary.at(key)) << key;
      }
      // Every shard wrote the sidecar, listed last in its payload.
      EXPECT_EQ(CountShardDirs(pass_dir), job_counts[r]);
      for (std::uint32_t shard = 0; shard < job_counts[r]; ++shard) {
        const fs::path shard_dir = pass_dir / ShardDirName(shard);
        EXPECT_TRUE(fs::is_regular_file(shard_dir / kFallbackSidecarFile)) << shard_dir;
        const ShardArtifact artifact = ParseArtifact(ReadFileText(shard_dir / "artifact.json"), "artifact.json");
        ASSERT_EQ(artifact.payload.size(), 5u);
        EXPECT_EQ(artifact.payload.back().name, kFallbackSidecarFile);
      }
    }
    auto model = DeterministicDigests(runs[r] / "model");
    auto reference_model = DeterministicDigests(runs[0] / "model");
    model.erase("provenance.json");
    reference_model.erase("provenance.json");
    EXPECT_EQ(model, reference_model);
  }
  // The case exercises what it says: fallback happened, utterances were retried, and the
  // alternates were really used (the statistics differ from the linear path's).
  const fs::path first = PassDir(runs[0], 1);
  EXPECT_GT(ActivatedSenones(first).size(), 10u);
  EXPECT_FALSE(ReadJson(first / "pass.json").at("retried_ids").as_array().empty());
  EXPECT_NE(DeterministicDigests(first / "accum").at("exact_counts"),
            DeterministicDigests(PassDir(linear, 1) / "accum").at("exact_counts"));

  // Four workers really ran at the same time: every one started before any one ended.
  std::string latest_start, earliest_end = "~";
  for (std::uint32_t shard = 0; shard < 4; ++shard) {
    const json::object telemetry = ReadJson(PassDir(runs[2], 1) / ShardDirName(shard) / "telemetry.json").as_object();
    latest_start = std::max(latest_start, std::string(telemetry.at("start").as_string()));
    earliest_end = std::min(earliest_end, std::string(telemetry.at("end").as_string()));
  }
  EXPECT_LT(latest_start, earliest_end) << "the four workers' lifetimes do not overlap";

  const CommandResult validate = RunCommand(Pstrain("validate " + ShellQuote(PassDir(runs[1], 2).string())));
  EXPECT_EQ(validate.exit_code, 0) << validate.output;
}

// Float32 reduction: the floating statistics may differ with the shard count, the discrete state
// may not, and neither may the union of the activation sidecars (a bitwise OR).
TEST(Multipron, Float32KeepsTheDiscreteStateAndTheActivationAcrossShardCounts) {
  const MultipronSetup setup("float32");
  const fs::path one = setup.Train("jobs-1", 1, 2, "--multipron --reduction float32");
  const fs::path three = setup.Train("jobs-3", 3, 2, "--multipron --reduction float32");
  for (const std::uint32_t pass : {1u, 2u}) {
    SCOPED_TRACE("pass " + std::to_string(pass));
    const json::object a = ReadJson(PassDir(one, pass) / "pass.json").as_object();
    const json::object b = ReadJson(PassDir(three, pass) / "pass.json").as_object();
    for (const char* key : {"utterance_ids", "processed_ids", "retried_ids", "skipped", "stop_decision", "multipron"}) {
      EXPECT_EQ(a.at(key), b.at(key)) << key;
    }
    EXPECT_EQ(a.at("totals").at("total_frames"), b.at("totals").at("total_frames"));
    EXPECT_EQ(DeterministicDigests(PassDir(one, pass) / "accum").at(kFallbackSidecarFile),
              DeterministicDigests(PassDir(three, pass) / "accum").at(kFallbackSidecarFile));
  }
  EXPECT_FALSE(ActivatedSenones(PassDir(one, 1)).empty());
}

TEST(Multipron, TwoRunsWithTwoWorkersWriteIdenticalBytes) {
  const MultipronSetup setup("fixed-count");
  const fs::path a = setup.Train("a", 2, 2);
  const fs::path b = setup.Train("b", 2, 2);
  const auto digests = DeterministicDigests(a);
  EXPECT_EQ(digests, DeterministicDigests(b));
  EXPECT_TRUE(digests.count(PassKey(1) + "/" + InShard(1, "fallback_senones")));
  EXPECT_TRUE(digests.count(PassKey(2) + "/" + InShard(0, "artifact.json")));
}

// Expected parameters of a senone from the reduced statistics and the previous model, computed
// here independently of the trainer: with the prior (activated) or plain maximum likelihood.
struct Expected {
  std::vector<float> means, variances, weights;
};
Expected ExpectedParameters(const Accumulators& acc, const ModelFiles& previous, std::uint32_t senone, bool activated) {
  Expected out;
  const std::uint32_t n_density = previous.means.n_density, veclen = previous.means.TotalVeclen();
  double weight_sum = 0.0;
  for (std::uint32_t k = 0; k < n_density; ++k) weight_sum += previous.mixture_weights.at(senone, 0, k);
  Accumulators copy = acc;
  for (std::uint32_t k = 0; k < n_density; ++k) {
    const double w = activated ? previous.mixture_weights.at(senone, 0, k) / weight_sum : 0.0;
    out.weights.push_back(static_cast<float>(copy.mixw(senone, k) + w));
    const double dnom = copy.dnom(senone, k) + w;
    for (std::uint32_t l = 0; l < veclen; ++l) {
      const std::size_t at = previous.means.Offset(senone, 0, k) + l;
      const double mu_prev = previous.means.data[at], var_prev = previous.variances.data[at];
      const double mean = (copy.mean(senone, k)[l] + w * mu_prev) / dnom;
      out.means.push_back(static_cast<float>(mean));
      const double var = (copy.var(senone, k)[l] + w * (var_prev + mu_prev * mu_prev)) / dnom - mean * mean;
      out.variances.push_back(var < 0.0 ? 0.0f : static_cast<float>(var));  // cancellation below 0 is written as 0
    }
  }
  return out;
}
Expected ActualParameters(const ModelFiles& model, std::uint32_t senone) {
  Expected out;
  for (std::uint32_t k = 0; k < model.means.n_density; ++k) {
    out.weights.push_back(model.mixture_weights.at(senone, 0, k));
    for (std::uint32_t l = 0; l < model.means.TotalVeclen(); ++l) {
      out.means.push_back(model.means.data[model.means.Offset(senone, 0, k) + l]);
      out.variances.push_back(model.variances.data[model.variances.Offset(senone, 0, k) + l]);
    }
  }
  return out;
}
double Occupancy(Accumulators& acc, std::uint32_t senone) {
  double total = 0.0;
  for (std::uint32_t k = 0; k < acc.shape().n_density; ++k) total += acc.dnom(senone, k);
  return total;
}

TEST(Multipron, SurvivalPriorOnObservedAndUnobservedActivatedStates) {
  const MultipronSetup setup("prior");
  // Two shards: a prior applied per shard would count twice and miss the expected values.
  const fs::path run = setup.Train("run", 2, 1);
  const fs::path pass_dir = PassDir(run, 1);
  const ModelFiles previous = ModelFiles::Load(setup.model.string());
  const ModelFiles trained = ModelFiles::Load((pass_dir / "model").string());
  Accumulators acc = ExactAccumulators::Read((pass_dir / "accum").string()).ToAccumulators();
  const std::vector<std::uint32_t> activated = ActivatedSenones(pass_dir);
  ASSERT_FALSE(activated.empty());
  std::vector<bool> is_activated(previous.mdef.n_tied_state(), false);
  for (std::uint32_t senone : activated) is_activated[senone] = true;
  std::uint32_t with_prior = 0, plain = 0;
  for (std::uint32_t senone = 0; senone < previous.mdef.n_tied_state(); ++senone) {
    if (Occupancy(acc, senone) == 0.0) continue;
    const Expected expected = ExpectedParameters(acc, previous, senone, is_activated[senone]);
    const Expected actual = ActualParameters(trained, senone);
    EXPECT_EQ(actual.means, expected.means) << "senone " << senone << (is_activated[senone] ? " (activated)" : "");
    EXPECT_EQ(actual.variances, expected.variances) << "senone " << senone;
    EXPECT_EQ(actual.weights, expected.weights) << "senone " << senone;
    ++(is_activated[senone] ? with_prior : plain);
  }
  EXPECT_EQ(with_prior, activated.size()) << "every activated state was observed in this corpus";
  EXPECT_GT(plain, 1000u);

  // Unobserved activated states: the same statistics with every state activated (a sidecar
  // written here), through `pstrain normalize`. States without counts keep every parameter bit.
  const fs::path all = setup.dir / "accum-all-activated";
  fs::copy(pass_dir / "accum", all);
  WriteFileAtomic(all / kFallbackSidecarFile, EncodeFallbackSidecar(std::vector<std::uint8_t>(previous.mdef.n_tied_state(), 1)));
  const CommandResult norm = RunCommand(Pstrain("normalize --accum " + ShellQuote(all.string()) + " --model-in " +
                                                ShellQuote(setup.model.string()) + " --out " + ShellQuote((setup.dir / "norm").string())));
  ASSERT_EQ(norm.exit_code, 0) << norm.output;
  const ModelFiles normalized = ModelFiles::Load((setup.dir / "norm").string());
  std::uint32_t unobserved = 0;
  for (std::uint32_t senone = 0; senone < previous.mdef.n_tied_state(); ++senone) {
    const Expected actual = ActualParameters(normalized, senone);
    if (Occupancy(acc, senone) == 0.0) {
      ++unobserved;
      const Expected before = ActualParameters(previous, senone);
      EXPECT_EQ(actual.means, before.means) << "senone " << senone;
      EXPECT_EQ(actual.variances, before.variances) << "senone " << senone;
      EXPECT_EQ(actual.weights, before.weights) << "senone " << senone;
    } else {
      const Expected expected = ExpectedParameters(acc, previous, senone, true);
      EXPECT_EQ(actual.means, expected.means) << "senone " << senone;
      EXPECT_EQ(actual.weights, expected.weights) << "senone " << senone;
    }
  }
  EXPECT_GT(unobserved, 10u) << "the case needs activated states without counts";
}

// Activation comes only from utterances that succeeded: the same utterances activate states when
// they align, and none (and add no counts) when every attempt fails (a beam of 1 keeps only the
// best state, and --retry-beams none allows no second try).
TEST(Multipron, FailedUtterancesActivateNothing) {
  const MultipronSetup setup("failed");
  const fs::path dir = CorpusDir();
  auto accumulate = [&](const std::string& name, const std::string& extra, int expected_exit) {
    const fs::path out = setup.dir / name;
    const CommandResult r = RunCommand(Pstrain(
        "accumulate --model " + ShellQuote(setup.model.string()) + " --manifest " + ShellQuote(setup.corpus.manifest.string()) +
        " --corpus-root " + ShellQuote(setup.corpus.corpus_root.string()) + " --dict " + ShellQuote((dir / "corpus.dic").string()) +
        " --filler " + ShellQuote((dir / "corpus.filler").string()) + " --out " + ShellQuote(out.string()) +
        " --multipron --jobs 2 --retry-beams none " + extra));
    EXPECT_EQ(r.exit_code, expected_exit) << r.output;
    return out;
  };
  auto activated = [](const fs::path& accum) {
    std::vector<std::uint8_t> flags;
    const ModelFiles model = ModelFiles::Load((accum.parent_path() / "cd-untied").string());
    EXPECT_FALSE(DecodeFallbackSidecar(ReadFileText(accum / kFallbackSidecarFile), model.mdef.n_tied_state(), flags).has_value());
    std::size_t count = 0;
    for (std::uint8_t flag : flags) count += flag;
    return count;
  };
  const fs::path aligned = accumulate("aligned", "", 0);
  // Exit 1: no utterance could be aligned; the statistics and sidecars are written all the same.
  const fs::path failed = accumulate("failed", "--abeam 1", 1);
  const json::object aligned_summary = ReadJson(aligned / "summary.json").as_object();
  const json::object failed_summary = ReadJson(failed / "summary.json").as_object();
  EXPECT_GT(aligned_summary.at("totals").at("processed").to_number<int>(), 50);
  EXPECT_GT(activated(aligned), 10u);
  EXPECT_EQ(failed_summary.at("totals").at("processed").to_number<int>(), 0) << json::serialize(failed_summary.at("totals"));
  EXPECT_EQ(failed_summary.at("totals").at("skipped").to_number<int>(), static_cast<int>(setup.corpus.utterances));
  EXPECT_EQ(activated(failed), 0u);
  const ExactAccumulators counts = ExactAccumulators::Read(failed.string());
  EXPECT_EQ(counts, ExactAccumulators(counts.shape(), counts.pass2var())) << "failed attempts added counts";
  // Each shard wrote its (all-zero) sidecar all the same.
  for (const std::string& shard : {ShardDirName(0), ShardDirName(1)}) EXPECT_TRUE(fs::is_regular_file(failed / "shards" / shard / kFallbackSidecarFile));
}

// Re-signs a shard artifact after its sidecar was changed, as a worker that wrote a bad sidecar
// would have: only the sidecar's own check can then reject it.
void Resign(const fs::path& shard_dir) {
  ShardArtifact artifact = ParseArtifact(ReadFileText(shard_dir / "artifact.json"), "artifact.json");
  for (PayloadFile& file : artifact.payload) {
    const fs::path path = shard_dir / file.name;
    file.size = fs::file_size(path);
    file.sha256 = Sha256OfFile(path);
  }
  artifact.payload_sha256 = PayloadDigest(artifact.payload);
  WriteFileAtomic(shard_dir / "artifact.json", SerializeArtifact(artifact));
}

TEST(Multipron, BrokenSidecarsAreRejectedWithTheirReasonBeforeReduction) {
  const MultipronSetup setup("sidecar");
  const fs::path run = setup.Train("run", 2, 1);
  const fs::path pass_dir = PassDir(run, 1);
  const std::string good = ReadFileText(pass_dir / ShardDirName(1) / kFallbackSidecarFile);
  struct Mutation {
    const char* name;
    const char* check;
    std::function<void(const fs::path& shard_dir)> apply;
  };
  auto write = [](const fs::path& shard_dir, const std::string& bytes, bool resign) {
    WriteFileAtomic(shard_dir / kFallbackSidecarFile, bytes);
    if (resign) Resign(shard_dir);
  };
  std::string wrong_header = good, byte_two = good;
  wrong_header[0] = 'X';
  byte_two.back() = '\2';
  const std::size_t count_end = good.find('\n', good.find('\n') + 1);
  const std::string wrong_count = std::string(kFallbackSidecarMagic) + "\n7\n" + good.substr(count_end + 1);
  const Mutation mutations[] = {
      {"missing", "missing", [](const fs::path& d) { fs::remove(d / kFallbackSidecarFile); }},
      {"not listed in the payload", "payload-names",
       [](const fs::path& d) {
         ShardArtifact artifact = ParseArtifact(ReadFileText(d / "artifact.json"), "artifact.json");
         artifact.payload.pop_back();
         artifact.payload_sha256 = PayloadDigest(artifact.payload);
         WriteFileAtomic(d / "artifact.json", SerializeArtifact(artifact));
       }},
      {"wrong header", "sidecar-header", [&](const fs::path& d) { write(d, wrong_header, true); }},
      {"wrong count", "sidecar-count", [&](const fs::path& d) { write(d, wrong_count, true); }},
      {"a byte 2", "sidecar-byte", [&](const fs::path& d) { write(d, byte_two, true); }},
      {"truncated", "sidecar-size", [&](const fs::path& d) { write(d, good.substr(0, good.size() - 1), true); }},
      {"modified, not re-signed", "payload-sha256", [&](const fs::path& d) { write(d, byte_two, false); }},
  };
  for (const Mutation& m : mutations) {
    SCOPED_TRACE(m.name);
    const fs::path copy = setup.dir / (std::string("mutated-") + m.check);
    fs::remove_all(copy);
    fs::copy(pass_dir, copy, fs::copy_options::recursive);
    m.apply(copy / ShardDirName(1));
    const CommandResult r = RunCommand(Pstrain("validate " + ShellQuote(copy.string())));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(std::string("check \"") + m.check + "\""), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("shard 1"), std::string::npos) << r.output;
  }
  const CommandResult intact = RunCommand(Pstrain("validate " + ShellQuote(pass_dir.string())));
  EXPECT_EQ(intact.exit_code, 0) << intact.output;
}

TEST(Multipron, WithOnePronunciationPerWordTheStatisticsAreTheLinearPaths) {
  const MultipronSetup setup("one-pronunciation");
  // The corpus dictionary without its alternates.
  std::ifstream in(CorpusDir() / "corpus.dic");
  std::ostringstream base;
  std::size_t dropped = 0;
  for (std::string line; std::getline(in, line);) {
    const std::string word = line.substr(0, line.find_first_of(" \t"));
    if (word.find('(') != std::string::npos) ++dropped;
    else base << line << "\n";
  }
  ASSERT_GT(dropped, 10u);
  const fs::path dict = setup.dir / "base.dic";
  WriteFileAtomic(dict, base.str());
  const fs::path linear = setup.Train("linear", 2, 1, "", dict);
  const fs::path multi = setup.Train("multi", 2, 1, "--multipron", dict);
  for (const std::string& shard : {ShardDirName(0), ShardDirName(1)}) {
    const auto a = DeterministicDigests(PassDir(linear, 1) / shard);
    const auto b = DeterministicDigests(PassDir(multi, 1) / shard);
    for (const char* file : kPayloadFiles) EXPECT_EQ(a.at(file), b.at(file)) << shard << "/" << file;
    EXPECT_EQ(a.at("worker.log"), b.at("worker.log")) << "same utterances, states, likelihoods";
    EXPECT_TRUE(b.count(kFallbackSidecarFile));
    EXPECT_FALSE(a.count(kFallbackSidecarFile)) << "the linear path's artifacts gain nothing";
  }
}

}  // namespace
}  // namespace pstrain::testing
