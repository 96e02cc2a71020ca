#include "gate_fixture.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cstdio>
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

GateCorpus ProfileCorpus() {
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
  corpus.utterances = Manifest::Load(corpus.manifest).size();
  return corpus;
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
  return pstrain::testing::Pstrain("train " + CorpusArguments(corpus) + " --out " + ShellQuote(run_dir.string()) + " " + extra);
}

std::string AccumulateCommand(const GateCorpus& corpus, const fs::path& out_dir, const std::string& extra) {
  return pstrain::testing::Pstrain("accumulate " + CorpusArguments(corpus) + " --out " + ShellQuote(out_dir.string()) + " " + extra);
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

std::string PassName(std::uint32_t pass) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "%03u", pass);
  return buffer;
}

std::string ShardName(std::uint32_t shard) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "shard-%03u", shard);
  return buffer;
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
