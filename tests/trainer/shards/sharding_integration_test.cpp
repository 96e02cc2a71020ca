// Sharded training through the real `pstrain` binary (docs/contract.md, "Reduction" and
// "Partition"): a fixed shard count is reproducible byte for byte; in exact mode every shard count
// and every completion order gives the same bytes, and one shard equals the in-process serial pass;
// in float32 mode only the discrete state is shard-count independent; and the local launcher really
// runs its workers side by side.
//
// telemetry.json and worker.stderr are excluded from every byte comparison (they record PIDs, times
// and a worker's own output by design).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "accumulators/exact_accumulators.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "formats/dictionary.h"
#include "formats/param_files.h"
#include "support/shard_fixture.h"
#include "support/test_util.h"
#include "manifest/manifest.h"
#include "provenance/fingerprints.h"
#include "estep/corpus_pass.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

fs::path ScratchDir(const std::string& name) { return FreshDir("sharding/" + name); }

// Runs `command`; fails the current test (with the output) unless it exits 0.
CommandResult RunOk(const std::string& command) {
  CommandResult r = RunCommand(command);
  EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.output;
  return r;
}

// pass.json without the fields that record the shard count (docs/contract.md, "Passes").
json::object WithoutShardCountFields(json::object pass) {
  pass.erase("requested_jobs");
  pass.erase("shard_count");
  pass.erase("training_fingerprint");
  pass.at("fingerprints").as_object().erase("pass");
  return pass;
}

// provenance.json without the fields that record the shard count or how the shards ran.
json::object ProvenanceWithoutShardCountFields(json::object provenance) {
  provenance.erase("requested_jobs");
  provenance.erase("effective_shard_count");
  provenance.erase("training_fingerprint");
  provenance.erase("launcher");  // "inline" for one job, "local" otherwise
  for (json::value& pass : provenance.at("passes").as_array()) pass = WithoutShardCountFields(pass.as_object());
  return provenance;
}

// Modification time in nanoseconds since the epoch (st_mtim, full resolution).
std::int64_t MtimeNs(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    ADD_FAILURE() << "cannot stat " << path;
    return 0;
  }
  return std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// "2026-01-02T03:04:05.678Z" -> milliseconds since the epoch (telemetry times are UTC, ms).
std::int64_t ParseIsoMillis(const std::string& text) {
  std::tm tm{};
  std::istringstream in(text);
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  char dot = 0, z = 0;
  int millis = -1;
  in >> dot >> millis >> z;
  if (in.fail() || dot != '.' || z != 'Z' || millis < 0 || millis > 999) {
    ADD_FAILURE() << "bad telemetry time \"" << text << "\"";
    return 0;
  }
  return static_cast<std::int64_t>(::timegm(&tm)) * 1000 + millis;
}

// The shards of a pass directory in the order they finished writing their artifact (artifact.json
// is the last deterministic file a worker writes).
std::vector<std::uint32_t> FinishingOrder(const fs::path& pass_dir, std::uint32_t shard_count) {
  std::vector<std::pair<std::int64_t, std::uint32_t>> finished;
  for (std::uint32_t shard = 0; shard < shard_count; ++shard) {
    finished.emplace_back(MtimeNs(pass_dir / ShardDirName(shard) / "artifact.json"), shard);
  }
  std::sort(finished.begin(), finished.end());
  std::vector<std::uint32_t> order;
  for (const auto& [mtime, shard] : finished) order.push_back(shard);
  return order;
}

// The delay PSTRAIN_FAULT_INJECTION `faults` gives `shard`, in seconds ("delay:SHARD:MS" items).
double InjectedDelaySeconds(const std::string& faults, std::uint32_t shard) {
  std::stringstream list(faults);
  for (std::string item; std::getline(list, item, ',');) {
    const std::string prefix = "delay:" + std::to_string(shard) + ":";
    if (item.rfind(prefix, 0) == 0) return std::stod(item.substr(prefix.size())) / 1000.0;
  }
  return 0.0;
}

std::string OrderText(const std::vector<std::uint32_t>& order) {
  std::string text;
  for (std::uint32_t shard : order) {
    if (!text.empty()) text += ',';
    text += std::to_string(shard);
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// a. Fixed count: two runs with the same shard count write the same bytes.

TEST(Sharding, FixedCountTwoRunsWriteIdenticalBytes) {
  const fs::path dir = ScratchDir("fixed-count");
  const CorpusFixture corpus = DefaultCorpus();
  for (const char* name : {"a", "b"}) {
    CommandResult r = RunOk(TrainCommand(corpus, dir / name, "--jobs 2 --min-passes 3 --max-passes 3"));
    ASSERT_EQ(r.exit_code, 0);
  }
  const auto a = DeterministicDigests(dir / "a");
  const auto b = DeterministicDigests(dir / "b");
  EXPECT_EQ(a, b);

  // The comparison covers everything that matters, and leaves out only the nondeterministic files.
  for (std::uint32_t pass = 1; pass <= 3; ++pass) {
    const std::string p = PassKey(pass) + "/";
    for (const std::string& shard : {ShardDirName(0) + "/", ShardDirName(1) + "/"}) {
      for (const char* file : {"gauden_counts", "mixw_counts", "tmat_counts", "exact_counts", "artifact.json", "worker.log"}) {
        EXPECT_TRUE(a.count(p + shard + file)) << p << shard << file;
      }
      EXPECT_TRUE(fs::is_regular_file(dir / "a" / (p + shard + "telemetry.json"))) << p << shard;
      EXPECT_TRUE(fs::is_regular_file(dir / "a" / (p + shard + "worker.stderr"))) << p << shard;
    }
    for (const char* file : {"accum/gauden_counts", "accum/mixw_counts", "accum/tmat_counts", "accum/exact_counts", "pass.json",
                             "model/mdef", "model/means", "model/variances", "model/mixture_weights", "model/transition_matrices",
                             "model/feat.params", "model/noisedict"}) {
      EXPECT_TRUE(a.count(p + file)) << p << file;
    }
    EXPECT_EQ(CountShardDirs(PassDir(dir / "a", pass)), 2u);
    EXPECT_TRUE(fs::is_regular_file(dir / "a" / (p + "telemetry.json"))) << p;  // the pass's own
  }
  for (const char* file : {"means", "variances", "mixture_weights", "transition_matrices", "mdef", "feat.params", "noisedict",
                           "provenance.json"}) {
    EXPECT_TRUE(a.count(std::string("model/") + file)) << file;
  }
  std::size_t excluded = 0, total = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir / "a")) {
    if (!entry.is_regular_file()) continue;
    ++total;
    if (IsNondeterministicFile(fs::relative(entry.path(), dir / "a"))) ++excluded;
  }
  EXPECT_EQ(excluded, 3u * (2u * 2u + 1u));  // telemetry.json + worker.stderr per shard, telemetry.json per pass
  EXPECT_EQ(a.size() + excluded, total);
}

// ---------------------------------------------------------------------------------------------
// b. Cross count, exact mode: every shard count gives the same models, reduced statistics and pass
// summaries (but for the fields that record the count), after every pass.

struct CrossCountCase {
  const char* name;
  bool small_corpus;  // the 8-utterance manifest (counts above its size) or the default corpus
  const char* extra;
  std::vector<std::uint32_t> jobs;  // the first is the reference
  std::uint32_t passes;
};

TEST(Sharding, CrossCountExactModeGivesIdenticalModelsStatisticsAndSummaries) {
  const CrossCountCase cases[] = {
      {"default corpus (93 utterances, 17 retried)", false, "", {1, 2, 3, 4, 7}, 5},
      {"8 utterances, 3 retried; 11 jobs = 8 shards", true, "", {1, 2, 3, 4, 7, 11}, 5},
      {"8 utterances, 3 skipped every pass (--retry-beams none)", true, "--retry-beams none", {1, 3, 11}, 3},
  };
  int case_index = 0;
  for (const CrossCountCase& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path dir = ScratchDir("cross-count/" + std::to_string(case_index++));
    const CorpusFixture corpus = c.small_corpus ? SmallCorpus(dir) : DefaultCorpus();
    const std::string passes = std::to_string(c.passes);
    std::map<std::uint32_t, fs::path> runs;
    for (std::uint32_t jobs : c.jobs) {
      runs[jobs] = dir / ("jobs-" + std::to_string(jobs));
      CommandResult r = RunOk(TrainCommand(corpus, runs[jobs], "--jobs " + std::to_string(jobs) + " --min-passes " + passes +
                                                                   " --max-passes " + passes + " --quiet " + c.extra));
      ASSERT_EQ(r.exit_code, 0);
    }
    const fs::path& reference = runs[c.jobs.front()];
    for (std::uint32_t jobs : c.jobs) {
      SCOPED_TRACE("--jobs " + std::to_string(jobs) + " vs --jobs " + std::to_string(c.jobs.front()));
      const fs::path& run = runs[jobs];
      const std::uint32_t shards = std::min<std::uint32_t>(jobs, static_cast<std::uint32_t>(corpus.utterances));
      for (std::uint32_t pass = 1; pass <= c.passes; ++pass) {
        SCOPED_TRACE("pass " + std::to_string(pass));
        const fs::path pass_dir = PassDir(run, pass);
        const fs::path reference_pass_dir = PassDir(reference, pass);
        EXPECT_EQ(CountShardDirs(pass_dir), shards);
        const auto model = DeterministicDigests(pass_dir / "model");
        const auto accum = DeterministicDigests(pass_dir / "accum");
        EXPECT_EQ(model.size(), 7u);
        EXPECT_EQ(accum.size(), 4u);
        EXPECT_EQ(model, DeterministicDigests(reference_pass_dir / "model"));
        EXPECT_EQ(accum, DeterministicDigests(reference_pass_dir / "accum"));

        const json::object summary = ReadJson(pass_dir / "pass.json").as_object();
        const json::object reference_summary = ReadJson(reference_pass_dir / "pass.json").as_object();
        EXPECT_EQ(summary.at("requested_jobs").to_number<std::uint32_t>(), jobs);
        EXPECT_EQ(summary.at("shard_count").to_number<std::uint32_t>(), shards);
        EXPECT_EQ(WithoutShardCountFields(summary), WithoutShardCountFields(reference_summary))
            << json::serialize(summary) << "\nvs\n" << json::serialize(reference_summary);
        if (jobs != c.jobs.front()) {
          // The count is recorded where it should be: the erased fields really differ.
          EXPECT_NE(summary.at("training_fingerprint"), reference_summary.at("training_fingerprint"));
          EXPECT_NE(summary.at("fingerprints").at("pass"), reference_summary.at("fingerprints").at("pass"));
        }
      }
      EXPECT_FALSE(fs::exists(PassDir(run, c.passes + 1)));
      auto final_model = DeterministicDigests(run / "model");
      auto reference_final_model = DeterministicDigests(reference / "model");
      EXPECT_EQ(final_model.erase("provenance.json"), 1u);
      reference_final_model.erase("provenance.json");
      EXPECT_EQ(final_model.size(), 7u);
      EXPECT_EQ(final_model, reference_final_model);
      EXPECT_EQ(final_model, DeterministicDigests(PassDir(run, c.passes) / "model"));
      EXPECT_EQ(ProvenanceWithoutShardCountFields(ReadJson(run / "model" / "provenance.json").as_object()),
                ProvenanceWithoutShardCountFields(ReadJson(reference / "model" / "provenance.json").as_object()));
    }
    // The case exercises what it says: retries or skips in pass 1, identical for every count.
    const json::object first = ReadJson(PassDir(reference, 1) / "pass.json").as_object();
    const bool no_retries = std::string(c.extra).find("--retry-beams none") != std::string::npos;
    EXPECT_EQ(first.at("retried_ids").as_array().empty(), no_retries) << json::serialize(first.at("retried_ids"));
    EXPECT_EQ(first.at("skipped").as_array().empty(), !no_retries) << json::serialize(first.at("skipped"));
  }
}

// ---------------------------------------------------------------------------------------------
// c. Cross count, float32 mode: the discrete state is the same; the floating parameters are not
// asserted equal (they are expected to differ, and how much is printed).

struct ParameterDifference {
  double max_relative = 0.0;  // |a-b| / max(|a|,|b|): large for values near zero
  double max_absolute = 0.0;
  std::size_t differing = 0;
  std::size_t total = 0;
};

ParameterDifference Compare(const std::vector<float>& a, const std::vector<float>& b) {
  ParameterDifference d;
  EXPECT_EQ(a.size(), b.size());
  d.total = std::min(a.size(), b.size());
  for (std::size_t index = 0; index < d.total; ++index) {
    if (a[index] == b[index]) continue;
    ++d.differing;
    const double scale = std::max({std::fabs(double(a[index])), std::fabs(double(b[index])), 1e-30});
    const double absolute = std::fabs(double(a[index]) - double(b[index]));
    d.max_relative = std::max(d.max_relative, absolute / scale);
    d.max_absolute = std::max(d.max_absolute, absolute);
  }
  return d;
}

TEST(Sharding, Float32ModeKeepsDiscreteStateAcrossShardCounts) {
  const fs::path dir = ScratchDir("float32");
  const CorpusFixture corpus = DefaultCorpus();
  for (const char* jobs : {"1", "2"}) {
    CommandResult r =
        RunOk(TrainCommand(corpus, dir / (std::string("jobs-") + jobs), std::string("--reduction float32 --min-passes 3 --max-passes 3 --quiet --jobs ") + jobs));
    ASSERT_EQ(r.exit_code, 0);
  }
  const fs::path one = dir / "jobs-1", two = dir / "jobs-2";
  for (std::uint32_t pass = 1; pass <= 3; ++pass) {
    SCOPED_TRACE("pass " + std::to_string(pass));
    const json::value a = ReadJson(PassDir(one, pass) / "pass.json");
    const json::value b = ReadJson(PassDir(two, pass) / "pass.json");
    EXPECT_EQ(a.at("reduction"), "float32");
    EXPECT_EQ(b.at("shard_count").to_number<int>(), 2);
    for (const char* key : {"utterance_ids", "processed_ids", "retried_ids", "skipped", "stop_decision"}) {
      EXPECT_EQ(a.at(key), b.at(key)) << key;
    }
    for (const char* key : {"utterances", "processed", "retried", "skipped", "total_frames"}) {
      EXPECT_EQ(a.at("totals").at(key), b.at("totals").at(key)) << key;
    }
    if (pass == 1) {
      // Same input model, exact log-likelihood sums: the first pass's total is the same bits.
      EXPECT_EQ(a.at("totals").at("total_log_likelihood_exact"), b.at("totals").at("total_log_likelihood_exact"));
      EXPECT_FALSE(a.at("retried_ids").as_array().empty());
    }
  }
  // Floating parameters after pass 3: report how far apart they are.
  const fs::path model_one = PassDir(one, 3) / "model", model_two = PassDir(two, 3) / "model";
  const ParameterDifference means =
      Compare(ReadGaussianFile((model_one / "means").string()).data, ReadGaussianFile((model_two / "means").string()).data);
  const ParameterDifference variances =
      Compare(ReadGaussianFile((model_one / "variances").string()).data, ReadGaussianFile((model_two / "variances").string()).data);
  const ParameterDifference mixw = Compare(ReadArray3DFile((model_one / "mixture_weights").string()).data,
                                           ReadArray3DFile((model_two / "mixture_weights").string()).data);
  const ParameterDifference tmat = Compare(ReadArray3DFile((model_one / "transition_matrices").string()).data,
                                           ReadArray3DFile((model_two / "transition_matrices").string()).data);
  std::cout << "[float32] 1 vs 2 shards after pass 3 (max relative, max absolute difference, differing/total):\n"
            << "  means               " << means.max_relative << ", " << means.max_absolute << " (" << means.differing << "/" << means.total << ")\n"
            << "  variances           " << variances.max_relative << ", " << variances.max_absolute << " (" << variances.differing << "/" << variances.total << ")\n"
            << "  mixture_weights     " << mixw.max_relative << ", " << mixw.max_absolute << " (" << mixw.differing << "/" << mixw.total << ")\n"
            << "  transition_matrices " << tmat.max_relative << ", " << tmat.max_absolute << " (" << tmat.differing << "/" << tmat.total << ")\n";
  for (std::uint32_t pass = 1; pass <= 3; ++pass) {
    const fs::path accum = PassDir(fs::path(), pass) / "accum" / "gauden_counts";
    std::cout << "  pass " << pass << " accum/gauden_counts "
              << (Sha256OfFile(one / accum) == Sha256OfFile(two / accum) ? "identical" : "differ") << "\n";
  }
  // float32 partial sums depend on the grouping: 1 and 2 shards are expected to differ.
  EXPECT_NE(Sha256OfFile(model_one / "means"), Sha256OfFile(model_two / "means"))
      << "float32 reduction gave bit-identical means for 1 and 2 shards";
  EXPECT_GT(means.differing, 0u);
}

// ---------------------------------------------------------------------------------------------
// d. Completion order: shards forced to finish in different orders give identical bytes.

struct CompletionOrderCase {
  const char* faults;                        // PSTRAIN_FAULT_INJECTION
  std::vector<std::uint32_t> expected_order;  // the order the delays force; empty: not forced
};

TEST(Sharding, CompletionOrderDoesNotChangeTheBytes) {
  const CompletionOrderCase cases[] = {
      {"", {}},
      {"delay:0:600,delay:1:300", {2, 1, 0}},
      {"delay:2:600,delay:1:300", {0, 1, 2}},
      {"delay:0:300,delay:2:600", {1, 0, 2}},
  };
  const fs::path dir = ScratchDir("completion-order");
  const CorpusFixture corpus = DefaultCorpus();
  std::map<std::string, std::string> reference;
  std::set<std::string> observed_orders;
  int case_index = 0;
  for (const CompletionOrderCase& c : cases) {
    SCOPED_TRACE(std::string("faults \"") + c.faults + "\"");
    const fs::path run = dir / std::to_string(case_index++);
    CommandResult r = RunOk(WithFaults(c.faults, TrainCommand(corpus, run, "--jobs 3 --min-passes 3 --max-passes 3 --quiet")));
    ASSERT_EQ(r.exit_code, 0);
    std::uint32_t forced_passes = 0;  // passes that finished in the forced order
    for (std::uint32_t pass = 1; pass <= 3; ++pass) {
      const std::vector<std::uint32_t> order = FinishingOrder(PassDir(run, pass), 3);
      std::cout << "[order] faults \"" << c.faults << "\" pass " << pass << ": shards finished " << OrderText(order) << "\n";
      observed_orders.insert(OrderText(order));
      if (order == c.expected_order) ++forced_passes;
      // Each delayed shard's own clock agrees: it ran at least its delay.
      for (std::uint32_t shard = 0; shard < 3; ++shard) {
        const json::value telemetry = ReadJson(PassDir(run, pass) / ShardDirName(shard) / "telemetry.json");
        EXPECT_GE(telemetry.at("wall_seconds").to_number<double>(), InjectedDelaySeconds(c.faults, shard)) << "shard " << shard;
      }
    }
    // The delays are 300 ms apart and a shard's own work takes ~50 ms, so the forced order is what
    // normally happens; a heavily loaded machine may reorder a pass, but not all three.
    if (!c.expected_order.empty()) {
      EXPECT_GE(forced_passes, 1u) << "no pass finished in the forced order " << OrderText(c.expected_order);
    }
    const auto digests = DeterministicDigests(run);
    EXPECT_GT(digests.size(), 60u);
    if (reference.empty()) reference = digests;
    else EXPECT_EQ(digests, reference);
  }
  EXPECT_GE(observed_orders.size(), 3u) << "the injected delays did not produce different finishing orders";
}

// ---------------------------------------------------------------------------------------------
// e. One shard through the reducer (and four) equals the in-process serial pass, byte for byte.

TEST(Sharding, OneShardThroughTheReducerEqualsTheInProcessSerialPass) {
  const fs::path dir = ScratchDir("one-shard-serial");
  const CorpusFixture corpus = DefaultCorpus();
  const ModelFiles model = ModelFiles::Load(An4Model().string());
  const Manifest manifest = Manifest::Load(corpus.manifest);
  const Dictionary dictionary = CorpusDictionary();
  const AccumulateOptions options;  // the CLI's defaults (docs/cli.md): SphinxTrain's script beams
  std::ostringstream serial_log;
  const CorpusPassResult serial = RunCorpusPass(model, manifest, 0, manifest.size(), corpus.corpus_root, dictionary, options, &serial_log);
  ASSERT_GT(serial.n_retried, 0u);
  serial.accumulators.Write((dir / "serial").string());
  const auto serial_files = DeterministicDigests(dir / "serial");
  ASSERT_EQ(serial_files.size(), 4u);

  for (std::uint32_t jobs : {1u, 4u}) {
    SCOPED_TRACE("--jobs " + std::to_string(jobs));
    const fs::path out = dir / ("accumulate-" + std::to_string(jobs));
    CommandResult r = RunOk(AccumulateCommand(corpus, out, "--jobs " + std::to_string(jobs)));
    ASSERT_EQ(r.exit_code, 0);
    // Same options on both sides, or the comparison would mean nothing.
    const json::value artifact = ReadJson(out / "shards" / ShardDirName(0) / "artifact.json");
    ASSERT_EQ(artifact.at("fingerprints").at("config"),
              ConfigFingerprint(options, ReductionMode::kExact,
                                DictionaryFingerprint((CorpusDir() / "corpus.dic").string(), (CorpusDir() / "corpus.filler").string()))
                  .c_str());
    EXPECT_EQ(CountShardDirs(out / "shards"), jobs);

    EXPECT_TRUE(ExactAccumulators::Read(out.string()) == serial.accumulators) << "reduced statistics differ from the serial pass";
    std::map<std::string, std::string> reduced_files;
    for (const char* name : {"gauden_counts", "mixw_counts", "tmat_counts", "exact_counts"}) reduced_files[name] = Sha256OfFile(out / name);
    EXPECT_EQ(reduced_files, serial_files);

    const json::value summary = ReadJson(out / "summary.json");
    EXPECT_EQ(summary.at("totals").at("total_frames").to_number<std::uint64_t>(), serial.total_frames);
    EXPECT_EQ(summary.at("totals").at("total_log_likelihood_exact"), FixedToHex(serial.total_log_likelihood.fixed()).c_str());
    json::array processed, retried;
    for (const UtteranceOutcome& outcome : serial.outcomes) {
      if (outcome.kind != OutcomeKind::kSkipped) processed.emplace_back(outcome.utt_id);
      if (outcome.attempts > 1) retried.emplace_back(outcome.utt_id);
    }
    EXPECT_EQ(summary.at("processed_ids"), processed);
    EXPECT_EQ(summary.at("retried_ids"), retried);
    EXPECT_TRUE(summary.at("skipped").as_array().empty());

    // The shards' per-utterance logs, in shard order, are the serial pass's log.
    std::string shard_logs;
    for (std::uint32_t shard = 0; shard < jobs; ++shard) {
      shard_logs += ReadFileText(out / "shards" / ShardDirName(shard) / "worker.log");
    }
    EXPECT_EQ(shard_logs, serial_log.str());
  }
}

// ---------------------------------------------------------------------------------------------
// f. Workers really overlap: with two jobs, two processes run at the same time.

TEST(Sharding, WorkersReallyOverlap) {
  const fs::path dir = ScratchDir("overlap");
  const CorpusFixture corpus = DefaultCorpus();
  const fs::path out = dir / "accum";
  constexpr double kDelaySeconds = 1.5;
  const auto start = std::chrono::steady_clock::now();
  CommandResult r = RunOk(WithFaults("delay:0:1500,delay:1:1500", AccumulateCommand(corpus, out, "--jobs 2")));
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 0);

  struct ShardRun {
    std::int64_t pid, start, end;  // telemetry: UTC milliseconds
    double wall;
    std::int64_t log_done_ns, artifact_ns;  // mtimes: utterances finished, artifact written
  };
  std::vector<ShardRun> shards;
  for (const std::string& name : {ShardDirName(0), ShardDirName(1)}) {
    const fs::path shard_dir = out / "shards" / name;
    const json::value t = ReadJson(shard_dir / "telemetry.json");
    shards.push_back({t.at("pid").to_number<std::int64_t>(), ParseIsoMillis(std::string(t.at("start").as_string())),
                      ParseIsoMillis(std::string(t.at("end").as_string())), t.at("wall_seconds").to_number<double>(),
                      MtimeNs(shard_dir / "worker.log"), MtimeNs(shard_dir / "artifact.json")});
  }
  std::cout << "[overlap] coordinator " << elapsed << " s; shard 0 pid " << shards[0].pid << " wall " << shards[0].wall
            << " s; shard 1 pid " << shards[1].pid << " wall " << shards[1].wall << " s\n";
  // Two worker processes, neither of them this test.
  EXPECT_NE(shards[0].pid, shards[1].pid);
  for (const ShardRun& s : shards) {
    EXPECT_GT(s.pid, 0);
    EXPECT_NE(s.pid, static_cast<std::int64_t>(::getpid()));
    EXPECT_GE(s.wall, kDelaySeconds);
    EXPECT_LE(s.start, s.end);
  }
  // Telemetry intervals (milliseconds) overlap.
  EXPECT_LT(std::max(shards[0].start, shards[1].start), std::min(shards[0].end, shards[1].end));
  // Precisely: each shard had finished its utterances before the other wrote its artifact, i.e.
  // both were inside their 1.5 s delay at the same moment.
  EXPECT_LT(shards[0].log_done_ns, shards[1].artifact_ns);
  EXPECT_LT(shards[1].log_done_ns, shards[0].artifact_ns);
  // And the whole run took less than the two shards' wall times one after the other.
  EXPECT_LT(elapsed, shards[0].wall + shards[1].wall);
}

}  // namespace
}  // namespace pstrain::testing
