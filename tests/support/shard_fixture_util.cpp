// The sharded-training tests' shared pieces: their corpora, runs and comparisons.
#include "support/shard_fixture.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "common/file_io.h"
#include "common/sha256.h"
#include "manifest/manifest.h"
#include "support/test_util.h"

namespace pstrain::testing {

namespace fs = std::filesystem;

CorpusFixture DefaultCorpus() {
  CorpusFixture corpus;
  corpus.manifest = TrainManifest();
  corpus.corpus_root = CorpusDir();
  corpus.utterances = Manifest::Load(corpus.manifest).size();
  return corpus;
}

CorpusFixture SmallCorpus(const fs::path& dir) {
  const Manifest full = Manifest::Load(TrainManifest());
  std::vector<ManifestEntry> entries;
  for (const char* id : kSmallCorpusIds) {
    const auto found = std::find_if(full.entries().begin(), full.entries().end(), [&](const ManifestEntry& e) { return e.utt_id == id; });
    if (found == full.entries().end()) throw std::runtime_error(std::string("utterance ") + id + " is not in the default corpus");
    entries.push_back(*found);
  }
  const Manifest small(std::move(entries), "small corpus fixture");
  fs::create_directories(dir);
  CorpusFixture corpus;
  corpus.manifest = dir / "small.manifest";
  corpus.corpus_root = CorpusDir();
  corpus.utterances = small.size();
  small.Save(corpus.manifest);
  return corpus;
}

namespace {

std::string CorpusArguments(const CorpusFixture& corpus, const fs::path& model = An4Model(), const fs::path& dict = {}) {
  const fs::path dir = CorpusDir();
  return "--model " + ShellQuote(model.string()) + " --manifest " + ShellQuote(corpus.manifest.string()) + " --corpus-root " +
         ShellQuote(corpus.corpus_root.string()) + " --dict " + ShellQuote((dict.empty() ? dir / "corpus.dic" : dict).string()) +
         " --filler " + ShellQuote((dir / "corpus.filler").string());
}

}  // namespace

std::string TrainCommand(const CorpusFixture& corpus, const fs::path& run_dir, const std::string& extra) {
  return Pstrain("train " + CorpusArguments(corpus) + " --out " + ShellQuote(run_dir.string()) + " " + extra);
}

std::string TrainCommandFrom(const fs::path& model, const fs::path& dict, const CorpusFixture& corpus, const fs::path& run_dir,
                             const std::string& extra) {
  return Pstrain("train " + CorpusArguments(corpus, model, dict) + " --out " + ShellQuote(run_dir.string()) + " " + extra);
}

std::string AccumulateCommand(const CorpusFixture& corpus, const fs::path& out_dir, const std::string& extra) {
  return Pstrain("accumulate " + CorpusArguments(corpus) + " --out " + ShellQuote(out_dir.string()) + " " + extra);
}

std::string WithFaults(const std::string& faults, const std::string& command) {
  if (faults.empty()) return command;
  return "PSTRAIN_FAULT_INJECTION=" + ShellQuote(faults) + " " + command;
}

bool IsNondeterministicFile(const fs::path& path) {
  const std::string name = path.filename().string();
  if (name == "telemetry.json" || name == "worker.stderr") return true;
  for (const fs::path& part : path.parent_path()) {
    if (part == "slurm") return true;  // a pass's Slurm job records (Slurm launcher)
  }
  return false;
}

std::map<std::string, std::string> DeterministicDigests(const fs::path& dir) {
  std::map<std::string, std::string> digests;
  if (!fs::is_directory(dir)) return digests;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const fs::path relative = fs::relative(entry.path(), dir);
    if (!IsNondeterministicFile(relative)) digests[relative.string()] = Sha256OfFile(entry.path());
  }
  return digests;
}

boost::json::value ReadJson(const fs::path& path) { return boost::json::parse(ReadFileText(path)); }

std::string PassKey(std::uint32_t pass) { return PassDir(fs::path(), pass).generic_string(); }

std::string InShard(std::uint32_t shard, const std::string& file) { return (fs::path(ShardDirName(shard)) / file).generic_string(); }

std::size_t CountShardDirs(const fs::path& pass_dir) {
  if (!fs::is_directory(pass_dir)) return 0;
  return static_cast<std::size_t>(std::count_if(fs::directory_iterator(pass_dir), fs::directory_iterator(), [](const fs::directory_entry& e) {
    return e.is_directory() && e.path().filename().string().rfind("shard-", 0) == 0;
  }));
}

}  // namespace pstrain::testing
