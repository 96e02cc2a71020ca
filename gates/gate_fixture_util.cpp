// What the determinism gates share besides the kit: their profile, corpora and training runs.
#include "gate_fixture.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <sstream>
#include <cstdlib>
#include <stdexcept>

#include "common/file_io.h"
#include "manifest/manifest.h"

namespace pstrain::gates {

namespace fs = std::filesystem;
using pstrain::testing::CommandResult;
using pstrain::testing::RunCommand;
using pstrain::testing::ShellQuote;

Profile CurrentProfile() {
  const char* value = std::getenv("PSTRAIN_GATE_PROFILE");
  const std::string name = value ? value : "";
  if (name.empty() || name == "quick") return Profile::kQuick;
  if (name == "full") return Profile::kFull;
  throw std::runtime_error("PSTRAIN_GATE_PROFILE=\"" + name + "\" is neither quick nor full");
}

const char* ProfileName(Profile profile) { return profile == Profile::kFull ? "full" : "quick"; }

namespace {

// DIR/train.manifest, imported from train.fileids/train.transcription/feat on first use (written
// to a temporary name and renamed, so concurrent gates never read half a manifest).
fs::path ImportedTrainManifest(const fs::path& dir) {
  const fs::path manifest = dir / "train.manifest";
  if (fs::exists(manifest)) return manifest;
  const fs::path tmp = dir / ("train.manifest.tmp." + std::to_string(::getpid()));
  const CommandResult r = RunCommand(pstrain::testing::Pstrain(
      "manifest import --fileids " + ShellQuote((dir / "train.fileids").string()) + " --transcription " +
      ShellQuote((dir / "train.transcription").string()) + " --cepdir " + ShellQuote((dir / "feat").string()) + " --out " +
      ShellQuote(tmp.string())));
  if (r.exit_code != 0) throw std::runtime_error("manifest import failed in " + dir.string() + ": " + r.output);
  fs::rename(tmp, manifest);
  return manifest;
}

}  // namespace

namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// A positive integer, or a runtime_error naming `setting`.
std::uint32_t PositiveInteger(const std::string& text, const std::string& setting) {
  const bool digits = !text.empty() && text.size() <= 6 && text.find_first_not_of("0123456789") == std::string::npos;
  const unsigned long value = digits ? std::stoul(text) : 0;
  if (value == 0) throw std::runtime_error(setting + ": '" + text + "' is not a positive integer (at most 6 digits)");
  return static_cast<std::uint32_t>(value);
}

// The corpus of PSTRAIN_GATE_CORPUS (and _CORPUS_ROOT, _DICT, _FILLER), validated.
GateCorpus OverrideCorpus(const std::string& manifest) {
  GateCorpus corpus;
  corpus.name = "override";
  corpus.manifest = fs::absolute(manifest);
  const std::string root = Env("PSTRAIN_GATE_CORPUS_ROOT");
  corpus.dir = root.empty() ? corpus.manifest.parent_path() : fs::absolute(root);
  if (!fs::is_regular_file(corpus.manifest)) {
    throw std::runtime_error("PSTRAIN_GATE_CORPUS: the manifest " + corpus.manifest.string() + " does not exist");
  }
  if (!fs::is_directory(corpus.dir)) {
    throw std::runtime_error(std::string(root.empty() ? "PSTRAIN_GATE_CORPUS" : "PSTRAIN_GATE_CORPUS_ROOT") + ": the corpus root " +
                             corpus.dir.string() + " is not a directory");
  }
  if (const std::string dict = Env("PSTRAIN_GATE_DICT"); !dict.empty()) corpus.dict_file = fs::absolute(dict);
  if (const std::string filler = Env("PSTRAIN_GATE_FILLER"); !filler.empty()) corpus.filler_file = fs::absolute(filler);
  if (!fs::is_regular_file(corpus.dict())) {
    throw std::runtime_error(std::string(corpus.dict_file.empty() ? "PSTRAIN_GATE_CORPUS_ROOT" : "PSTRAIN_GATE_DICT") +
                             ": the dictionary " + corpus.dict().string() + " does not exist");
  }
  if (!fs::is_regular_file(corpus.filler())) {
    throw std::runtime_error(std::string(corpus.filler_file.empty() ? "PSTRAIN_GATE_CORPUS_ROOT" : "PSTRAIN_GATE_FILLER") +
                             ": the filler dictionary " + corpus.filler().string() + " does not exist");
  }
  try {
    const Manifest loaded = Manifest::Load(corpus.manifest);
    corpus.utterances = loaded.size();
    corpus.fingerprint = loaded.Fingerprint();
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("PSTRAIN_GATE_CORPUS: ") + e.what());
  }
  return corpus;
}

}  // namespace

GateCorpus ProfileCorpus() {
  CurrentProfile();  // an unknown profile fails even with a corpus override
  if (const std::string manifest = Env("PSTRAIN_GATE_CORPUS"); !manifest.empty()) return OverrideCorpus(manifest);
  for (const char* name : {"PSTRAIN_GATE_CORPUS_ROOT", "PSTRAIN_GATE_DICT", "PSTRAIN_GATE_FILLER"}) {
    if (!Env(name).empty()) throw std::runtime_error(std::string(name) + " is set but PSTRAIN_GATE_CORPUS is not");
  }
  GateCorpus corpus;
  if (FullProfile()) {
    corpus.name = "bench";
    corpus.dir = fs::path(PSTRAIN_BUILD_DIR) / "corpus" / "bench";
    if (!fs::exists(corpus.dir / ".stamp")) {
      throw std::runtime_error("the benchmark corpus is missing at " + corpus.dir.string() +
                               " (the full profile needs it: bash scripts/prepare-bench-corpus.sh " + corpus.dir.string() + ")");
    }
    corpus.manifest = ImportedTrainManifest(corpus.dir);
  } else {
    corpus.name = "default";
    corpus.dir = pstrain::testing::CorpusDir();
    corpus.manifest = pstrain::testing::TrainManifest();
  }
  const Manifest loaded = Manifest::Load(corpus.manifest);
  corpus.utterances = loaded.size();
  corpus.fingerprint = loaded.Fingerprint();
  return corpus;
}

std::uint32_t GatePasses(std::uint32_t quick, std::uint32_t full) {
  const std::string value = Env("PSTRAIN_GATE_PASSES");
  return value.empty() ? ProfileValue(quick, full) : PositiveInteger(value, "PSTRAIN_GATE_PASSES");
}

const char* ShardUseName(ShardUse use) {
  switch (use) {
    case ShardUse::kWholeList: return "every count, compared with the first";
    case ShardUse::kEach: return "each count, on its own";
    case ShardUse::kFirstTwoDistinct: return "the first two distinct counts";
    case ShardUse::kLargest: return "the largest count";
    case ShardUse::kFixed: return "the shard count is fixed by the gate's definition";
  }
  return "?";
}

std::vector<std::uint32_t> ParseShardList(const std::string& value) {
  std::vector<std::uint32_t> counts;
  std::stringstream parts(value);
  for (std::string part; std::getline(parts, part, ',');) {
    const std::uint32_t count = PositiveInteger(part, "PSTRAIN_GATE_SHARDS");
    if (std::find(counts.begin(), counts.end(), count) == counts.end()) counts.push_back(count);
  }
  if (counts.empty() || value.back() == ',') {
    throw std::runtime_error("PSTRAIN_GATE_SHARDS: '" + value + "' is not a comma-separated list of positive integers");
  }
  return counts;
}

std::vector<std::uint32_t> GateShardCounts(const std::vector<std::uint32_t>& own, ShardUse use) {
  const std::string value = Env("PSTRAIN_GATE_SHARDS");
  if (value.empty()) return own;
  std::vector<std::uint32_t> counts = ParseShardList(value);  // a bad value fails even where it is ignored
  if (use == ShardUse::kFixed) return own;
  const auto refuse = [&](const std::string& why) {
    return std::runtime_error("PSTRAIN_GATE_SHARDS=" + value + " cannot be used by this gate (" + ShardUseName(use) + "): " + why);
  };
  switch (use) {
    case ShardUse::kWholeList:
      if (counts.size() < 2) throw refuse("it compares shard counts and needs at least 2 distinct counts");
      return counts;
    case ShardUse::kEach: return counts;
    case ShardUse::kFirstTwoDistinct:
      if (counts.size() < 2) throw refuse("it compares two shard counts and needs at least 2 distinct counts");
      counts.resize(2);
      return counts;
    case ShardUse::kLargest: {
      const std::uint32_t largest = *std::max_element(counts.begin(), counts.end());
      if (largest < 2) throw refuse("it orders the shards' completion and needs a count of at least 2");
      return {largest};
    }
    case ShardUse::kFixed: break;
  }
  return own;
}

GateRun DescribeRun(const GateCorpus& corpus, const std::vector<std::uint32_t>& shard_counts, std::uint32_t passes, ShardUse shards,
                    const std::string& passes_fixed_because) {
  GateRun run;
  run.profile = ProfileName(CurrentProfile());
  run.shard_counts = shard_counts;
  run.passes = passes;
  run.corpus = corpus.name;
  run.corpus_manifest = corpus.manifest.string();
  run.corpus_root = corpus.dir.string();
  run.utterances = corpus.utterances;
  run.manifest_fingerprint = corpus.fingerprint;
  run.pstrain = GatePstrainPath();
  if (const std::string v = Env("PSTRAIN_GATE_SHARDS"); !v.empty()) {
    if (shards == ShardUse::kFixed) run.overrides_ignored.push_back("PSTRAIN_GATE_SHARDS=" + v + ": " + ShardUseName(shards));
    else run.overrides_applied.push_back("PSTRAIN_GATE_SHARDS=" + v + " (" + ShardUseName(shards) + ")");
  }
  if (const std::string v = Env("PSTRAIN_GATE_PASSES"); !v.empty()) {
    if (!passes_fixed_because.empty()) run.overrides_ignored.push_back("PSTRAIN_GATE_PASSES=" + v + ": " + passes_fixed_because);
    else run.overrides_applied.push_back("PSTRAIN_GATE_PASSES=" + v);
  }
  if (const std::string v = Env("PSTRAIN_GATE_CORPUS"); !v.empty()) {
    run.overrides_applied.push_back("PSTRAIN_GATE_CORPUS=" + v + " (root " + corpus.dir.string() + ", dictionary " + corpus.dict().string() +
                                    ", filler " + corpus.filler().string() + ")");
  }
  if (const std::string v = Env("PSTRAIN_GATE_PSTRAIN"); !v.empty()) run.overrides_applied.push_back("PSTRAIN_GATE_PSTRAIN=" + v);
  return run;
}

std::string GatePstrainPath() {
  const std::string path = Env("PSTRAIN_GATE_PSTRAIN");
  return path.empty() ? std::string(PSTRAIN_BINARY) : path;
}

std::string GatePstrain(const std::string& args) {
  const std::string path = Env("PSTRAIN_GATE_PSTRAIN");
  return path.empty() ? pstrain::testing::Pstrain(args) : ShellQuote(path) + " " + args;
}

fs::path GateScratch(const std::string& name) {
  // `audit gates run` points PSTRAIN_GATE_SCRATCH at its own work directory, so that it never
  // shares scratch directories with the same gates run by ctest at the same time.
  if (const char* root = std::getenv("PSTRAIN_GATE_SCRATCH"); root != nullptr && *root != '\0') {
    const fs::path dir = fs::path(root) / ProfileName(CurrentProfile()) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
  }
  return pstrain::testing::FreshDir(std::string("gates/") + ProfileName(CurrentProfile()) + "/" + name);
}

namespace {

std::string CorpusArguments(const GateCorpus& corpus) {
  return "--model " + ShellQuote(pstrain::testing::An4Model().string()) + " --manifest " + ShellQuote(corpus.manifest.string()) +
         " --corpus-root " + ShellQuote(corpus.dir.string()) + " --dict " + ShellQuote(corpus.dict().string()) + " --filler " +
         ShellQuote(corpus.filler().string());
}

}  // namespace

std::string TrainCommand(const GateCorpus& corpus, const fs::path& run_dir, const std::string& extra) {
  return GatePstrain("train " + CorpusArguments(corpus) + " --out " + ShellQuote(run_dir.string()) + " " + extra);
}

std::string AccumulateCommand(const GateCorpus& corpus, const fs::path& out_dir, const std::string& extra) {
  return GatePstrain("accumulate " + CorpusArguments(corpus) + " --out " + ShellQuote(out_dir.string()) + " " + extra);
}

std::string WithFaults(const std::string& faults, const std::string& command) {
  if (faults.empty()) return command;
  return "PSTRAIN_FAULT_INJECTION=" + ShellQuote(faults) + " " + command;
}

std::string ExactlyPasses(std::uint32_t passes) {
  return "--min-passes " + std::to_string(passes) + " --max-passes " + std::to_string(passes) + " --quiet";
}

CommandResult RunOk(const std::string& command) {
  CommandResult r = RunCommand(command);
  EXPECT_EQ(r.exit_code, 0) << "precondition: " << command << "\n" << r.output;
  return r;
}

std::set<std::string> FileNamesIn(const fs::path& dir) {
  std::set<std::string> names;
  if (!fs::is_directory(dir)) return names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) names.insert(entry.path().filename().string());
  }
  return names;
}

namespace {

boost::json::value JsonAt(const fs::path& file, const std::string& dotted) {
  boost::json::value root;
  try {
    root = boost::json::parse(ReadFileText(file));
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
  const boost::json::value* v = &root;
  std::stringstream parts(dotted);
  for (std::string key; std::getline(parts, key, '.');) {
    v = v->is_object() ? v->as_object().if_contains(key) : nullptr;
    if (v == nullptr) throw std::runtime_error(file.string() + ": no " + dotted);
  }
  return *v;
}

}  // namespace

double JsonNumber(const fs::path& file, const std::string& dotted) {
  const boost::json::value v = JsonAt(file, dotted);
  if (!v.is_number()) throw std::runtime_error(file.string() + ": " + dotted + " is not a number");
  return v.to_number<double>();
}

std::string JsonString(const fs::path& file, const std::string& dotted) {
  const boost::json::value v = JsonAt(file, dotted);
  if (!v.is_string()) throw std::runtime_error(file.string() + ": " + dotted + " is not a string");
  return std::string(v.as_string());
}

}  // namespace pstrain::gates
