// Provenance, training fingerprint, cache and resume of `pstrain train` (docs/contract.md,
// "Provenance, fingerprint, cache, resume"): RUNDIR/model/provenance.json records the requested and
// effective shard counts, the build, the inputs and every pass; the training fingerprint changes with
// the shard count, the configuration and the binary, and not with the host name; a cache hit does
// no work at all; an interrupted run resumes after its last complete pass and ends with the bytes of
// an uninterrupted one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "common/file_io.h"
#include "common/sha256.h"
#include "manifest/manifest.h"
#include "provenance/fingerprints.h"
#include "provenance/provenance.h"
#include "shards/artifact.h"
#include "support/shard_fixture.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

fs::path ScratchDir(const std::string& name) { return FreshDir("provenance/" + name); }

CommandResult RunOk(const std::string& command) {
  CommandResult r = RunCommand(command);
  EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.output;
  return r;
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string TrainingFingerprintOf(const fs::path& run_dir) {
  return std::string(ReadJson(run_dir / "model" / "provenance.json").at("training_fingerprint").as_string());
}

bool IsSha256Hex(const std::string& text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// Everything observable about a directory tree: each entry's kind, size, content digest, mtime,
// ctime and inode (the root included). Equal snapshots mean nothing was written, replaced,
// renamed, created or removed.
struct EntryState {
  char kind = '?';  // 'f' file, 'd' directory, 'l' symlink
  std::uintmax_t size = 0;
  std::string sha256;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  std::uint64_t inode = 0;
  bool operator==(const EntryState&) const = default;
};

std::map<std::string, EntryState> Snapshot(const fs::path& dir) {
  std::map<std::string, EntryState> snapshot;
  auto add = [&](const fs::path& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      ADD_FAILURE() << "cannot stat " << path;
      return;
    }
    EntryState state;
    state.kind = S_ISREG(st.st_mode) ? 'f' : S_ISDIR(st.st_mode) ? 'd' : S_ISLNK(st.st_mode) ? 'l' : '?';
    state.size = S_ISREG(st.st_mode) ? static_cast<std::uintmax_t>(st.st_size) : 0;
    if (state.kind == 'f') state.sha256 = Sha256OfFile(path);
    state.mtime_ns = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    state.ctime_ns = std::int64_t(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
    state.inode = st.st_ino;
    snapshot[path == dir ? "." : fs::relative(path, dir).string()] = state;
  };
  add(dir);
  for (const auto& entry : fs::recursive_directory_iterator(dir)) add(entry.path());
  return snapshot;
}

// The entries of `after` that differ from `before` (added, removed or changed), for messages.
std::string SnapshotChanges(const std::map<std::string, EntryState>& before, const std::map<std::string, EntryState>& after) {
  std::string changes;
  for (const auto& [path, state] : after) {
    const auto it = before.find(path);
    if (it == before.end()) changes += "  added " + path + "\n";
    else if (!(it->second == state)) changes += "  changed " + path + "\n";
  }
  for (const auto& [path, state] : before) {
    if (!after.count(path)) changes += "  removed " + path + "\n";
  }
  return changes;
}

// Any entry below `dir` whose name marks a staging directory (".NNN.staging", ".model.staging").
bool HasStagingEntries(const fs::path& dir) {
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (Contains(entry.path().filename().string(), "staging")) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// a. provenance.json records the requested and effective shard counts and everything else.

TEST(Provenance, RecordsRequestedAndEffectiveShardCount) {
  // 200 jobs on 93 utterances: 93 shards of one utterance each.
  const fs::path run = ScratchDir("effective-count") / "run";
  const CorpusFixture corpus = DefaultCorpus();
  ASSERT_EQ(corpus.utterances, 93u);
  CommandResult r = RunOk(TrainCommand(corpus, run, "--jobs 200 --min-passes 1 --max-passes 1"));
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_TRUE(Contains(r.output, "93 shards")) << r.output;
  const json::value provenance = ReadJson(run / "model" / "provenance.json");
  EXPECT_EQ(provenance.at("requested_jobs").to_number<std::uint32_t>(), 200u);
  EXPECT_EQ(provenance.at("effective_shard_count").to_number<std::uint32_t>(), 93u);
  EXPECT_EQ(provenance.at("launcher"), "local");
  const json::value pass = ReadJson(PassDir(run, 1) / "pass.json");
  EXPECT_EQ(pass.at("requested_jobs").to_number<std::uint32_t>(), 200u);
  EXPECT_EQ(pass.at("shard_count").to_number<std::uint32_t>(), 93u);
  EXPECT_EQ(CountShardDirs(PassDir(run, 1)), 93u);
  const json::value last_shard = ReadJson(PassDir(run, 1) / ShardDirName(92) / "artifact.json");
  EXPECT_EQ(last_shard.at("shard_count").to_number<std::uint32_t>(), 93u);
  EXPECT_EQ(last_shard.at("assigned_ids").as_array().size(), 1u);
}

// The shared libraries `ldd` says the pstrain binary loads: file name -> SHA-256 of the real file.
std::map<std::string, std::string> LddLibraries() {
  std::map<std::string, std::string> libraries;
  CommandResult r = RunCommand("ldd " + ShellQuote(PSTRAIN_BINARY));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  static const std::regex kPath(R"((/[^ \t]+\.so[^ \t]*) \(0x)");
  for (auto it = std::sregex_iterator(r.output.begin(), r.output.end(), kPath); it != std::sregex_iterator(); ++it) {
    const fs::path real = fs::canonical((*it)[1].str());
    libraries[real.filename().string()] = Sha256OfFile(real);
  }
  return libraries;
}

struct ProvenanceCase {
  std::uint32_t jobs;
  const char* reduction;
  const char* launcher;  // as recorded: one job runs inline
};

TEST(Provenance, RecordsBuildInputsConfigurationAndEveryPass) {
  const ProvenanceCase cases[] = {{2, "exact", "local"}, {3, "float32", "local"}, {1, "exact", "inline"}};
  const CorpusFixture corpus = DefaultCorpus();
  const std::map<std::string, std::string> ldd_libraries = LddLibraries();
#if PSTRAIN_STATIC_BINARY
  // A static PIE (PSTRAIN_STATIC_LIBS) loads no shared library: libc and libm are in its SHA-256.
  EXPECT_THAT(RunCommand("ldd " + ShellQuote(PSTRAIN_BINARY) + " 2>&1").output, ::testing::HasSubstr("statically linked"));
  ASSERT_TRUE(ldd_libraries.empty());
#else
  ASSERT_GE(ldd_libraries.size(), 3u);
#endif
  std::set<std::string> code_identities;
  for (const ProvenanceCase& c : cases) {
    SCOPED_TRACE("--jobs " + std::to_string(c.jobs) + " --reduction " + c.reduction);
    const fs::path run = ScratchDir("fields-" + std::to_string(c.jobs)) / "run";
    CommandResult r = RunOk(TrainCommand(corpus, run, "--jobs " + std::to_string(c.jobs) + " --reduction " + c.reduction +
                                                          " --min-passes 3 --max-passes 3 --convergence 0.25"));
    ASSERT_EQ(r.exit_code, 0);
    const json::object p = ReadJson(run / "model" / "provenance.json").as_object();

    EXPECT_EQ(p.at("format"), "pstrain-provenance-1");
    EXPECT_EQ(p.at("pstrain_version"), PSTRAIN_VERSION);
    EXPECT_EQ(p.at("requested_jobs").to_number<std::uint32_t>(), c.jobs);
    EXPECT_EQ(p.at("effective_shard_count").to_number<std::uint32_t>(), c.jobs);
    EXPECT_EQ(p.at("reduction"), c.reduction);
    EXPECT_EQ(p.at("launcher"), c.launcher);
    EXPECT_FALSE(p.at("architecture").as_string().empty());
    EXPECT_FALSE(p.at("compiler").as_string().empty());
    EXPECT_EQ(p.at("host"), HostName().c_str());

    // The binary and the libraries it loads, each identified by the SHA-256 of its file.
    EXPECT_EQ(p.at("binary_sha256"), Sha256OfFile(PSTRAIN_BINARY).c_str());
    std::map<std::string, std::string> recorded_libraries;
    std::vector<std::string> names;
    for (const json::value& lib : p.at("libraries").as_array()) {
      const std::string name(lib.at("file").as_string()), digest(lib.at("sha256").as_string());
      EXPECT_TRUE(IsSha256Hex(digest)) << name;
      names.push_back(name);
      recorded_libraries[name] = digest;
    }
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
    EXPECT_EQ(recorded_libraries, ldd_libraries);
    if (!PSTRAIN_STATIC_BINARY) {
      EXPECT_TRUE(std::any_of(names.begin(), names.end(), [](const std::string& n) { return n.rfind("libm.so", 0) == 0; }));
    }

    // The inputs.
    const json::object& inputs = p.at("inputs").as_object();
    EXPECT_EQ(inputs.at("manifest_fingerprint"), Manifest::Load(corpus.manifest).Fingerprint().c_str());
    EXPECT_EQ(inputs.at("input_model_fingerprint"), ModelFingerprint(An4Model().string()).c_str());
    const std::string config(inputs.at("config").as_string());
    EXPECT_EQ(inputs.at("config_fingerprint"), Sha256Hex(config).c_str());
    EXPECT_TRUE(Contains(config, std::string("reduction=") + c.reduction + "\n")) << config;
    EXPECT_TRUE(Contains(config, "abeam=")) << config;
    EXPECT_EQ(p.at("stop_rule").at("min_passes").to_number<int>(), 3);
    EXPECT_EQ(p.at("stop_rule").at("max_passes").to_number<int>(), 3);
    EXPECT_EQ(p.at("stop_rule").at("convergence").to_number<double>(), 0.25);
    EXPECT_EQ(p.at("stop_decision"), "max-passes");

    // Every pass's summary, as in passes/NNN/pass.json, under the same training fingerprint.
    const json::array& passes = p.at("passes").as_array();
    ASSERT_EQ(passes.size(), 3u);
    for (std::uint32_t pass = 1; pass <= 3; ++pass) {
      const json::value summary = ReadJson(PassDir(run, pass) / "pass.json");
      EXPECT_EQ(passes[pass - 1], summary) << "pass " << pass;
      EXPECT_EQ(summary.at("training_fingerprint"), p.at("training_fingerprint"));
      EXPECT_EQ(summary.at("fingerprints").at("config"), inputs.at("config_fingerprint"));
      EXPECT_EQ(summary.at("fingerprints").at("manifest"), inputs.at("manifest_fingerprint"));
    }
    EXPECT_EQ(passes[0].at("fingerprints").at("model"), inputs.at("input_model_fingerprint"));

    // The final model is the last pass's model: model_files lists every file of model/ but
    // provenance.json, with the SHA-256 of the file and the one the last pass.json records for it.
    std::map<std::string, std::string> last_pass_model;
    const json::value last_pass = ReadJson(PassDir(run, 3) / "pass.json");
    for (const json::value& f : last_pass.at("files").as_array()) {
      const std::string file(f.at("file").as_string());
      if (file.rfind("model/", 0) == 0) last_pass_model[file.substr(6)] = f.at("sha256").as_string().c_str();
    }
    std::map<std::string, std::string> model_files;
    for (const json::value& f : p.at("model_files").as_array()) model_files[std::string(f.at("file").as_string())] = f.at("sha256").as_string().c_str();
    std::map<std::string, std::string> on_disk;
    for (const auto& entry : fs::directory_iterator(run / "model")) {
      if (entry.path().filename() != "provenance.json") on_disk[entry.path().filename().string()] = Sha256OfFile(entry.path());
    }
    EXPECT_EQ(model_files, on_disk);
    EXPECT_EQ(model_files, last_pass_model);
    EXPECT_GE(model_files.size(), 5u);

    // The recorded fields are exactly what the fingerprint hashes: recomputing it from them gives
    // the recorded fingerprint.
    TrainingIdentity identity;
    identity.build.version = p.at("pstrain_version").as_string();
    identity.build.architecture = p.at("architecture").as_string();
    identity.build.compiler = p.at("compiler").as_string();
    identity.build.binary_sha256 = p.at("binary_sha256").as_string();
    for (const auto& [name, digest] : recorded_libraries) identity.build.libraries.emplace_back(name, digest);
    identity.config_fingerprint = inputs.at("config_fingerprint").as_string();
    identity.canonical_config = config;
    identity.manifest_fingerprint = inputs.at("manifest_fingerprint").as_string();
    identity.input_model_fingerprint = inputs.at("input_model_fingerprint").as_string();
    identity.requested_jobs = p.at("requested_jobs").to_number<std::uint32_t>();
    identity.shard_count = p.at("effective_shard_count").to_number<std::uint32_t>();
    identity.reduction = p.at("reduction").as_string();
    identity.launcher = p.at("launcher").as_string();
    identity.min_passes = p.at("stop_rule").at("min_passes").to_number<std::uint32_t>();
    identity.max_passes = p.at("stop_rule").at("max_passes").to_number<std::uint32_t>();
    identity.convergence = p.at("stop_rule").at("convergence").to_number<double>();
    EXPECT_EQ(p.at("training_fingerprint"), TrainingFingerprint(identity).c_str());

    // Every pass.json and every shard artifact records the code identity of the recorded build,
    // whether the shard ran inline (one job) or in a worker process.
    const std::string code_identity = CodeIdentity(identity.build);
    code_identities.insert(code_identity);
    for (std::uint32_t pass = 1; pass <= 3; ++pass) {
      const fs::path pass_dir = PassDir(run, pass);
      EXPECT_EQ(ReadJson(pass_dir / "pass.json").at("code_identity"), code_identity.c_str()) << "pass " << pass;
      for (std::uint32_t shard = 0; shard < c.jobs; ++shard) {
        EXPECT_EQ(ReadJson(pass_dir / ShardDirName(shard) / "artifact.json").at("code_identity"), code_identity.c_str())
            << "pass " << pass << " shard " << shard;
      }
    }
  }
  // One build, one identity: the same for every shard count and reduction.
  EXPECT_EQ(code_identities.size(), 1u);
}

// ---------------------------------------------------------------------------------------------
// b. The training fingerprint changes when the shard count, the configuration, the stop rule, the
// manifest or the binary changes, and not when only the host name changes.

struct FingerprintVariant {
  const char* name;
  const char* options;  // the whole option list of the rerun
  bool other_manifest;
  bool cache_hit;  // expected: the control case
};

TEST(Provenance, TrainingFingerprintChangesWithShardCountConfigurationAndInputs) {
  const std::string base_options = "--jobs 2 --min-passes 2 --max-passes 2 --quiet";
  const FingerprintVariant variants[] = {
      {"identical (control)", "--jobs 2 --min-passes 2 --max-passes 2 --quiet", false, true},
      {"--jobs 3", "--jobs 3 --min-passes 2 --max-passes 2 --quiet", false, false},
      {"--jobs 11 (8 shards)", "--jobs 11 --min-passes 2 --max-passes 2 --quiet", false, false},
      {"--jobs 12 (8 shards)", "--jobs 12 --min-passes 2 --max-passes 2 --quiet", false, false},
      {"--abeam", "--jobs 2 --min-passes 2 --max-passes 2 --quiet --abeam 1e-80", false, false},
      {"--varfloor", "--jobs 2 --min-passes 2 --max-passes 2 --quiet --varfloor 0.001", false, false},
      {"--retry-beams", "--jobs 2 --min-passes 2 --max-passes 2 --quiet --retry-beams none", false, false},
      {"--reduction float32", "--jobs 2 --min-passes 2 --max-passes 2 --quiet --reduction float32", false, false},
      {"--max-passes", "--jobs 2 --min-passes 2 --max-passes 3 --quiet", false, false},
      {"--convergence", "--jobs 2 --min-passes 2 --max-passes 2 --quiet --convergence 0.2", false, false},
      {"manifest in another order", "--jobs 2 --min-passes 2 --max-passes 2 --quiet", true, false},
  };
  const fs::path dir = ScratchDir("fingerprint-sensitivity");
  const CorpusFixture corpus = SmallCorpus(dir / "corpus");
  CorpusFixture reordered = corpus;
  {
    const Manifest small = Manifest::Load(corpus.manifest);
    std::vector<ManifestEntry> entries(small.entries().rbegin(), small.entries().rend());
    reordered.manifest = dir / "corpus" / "reordered.manifest";
    Manifest(std::move(entries), "reordered").Save(reordered.manifest);
  }
  const fs::path base = dir / "base";
  CommandResult r = RunOk(TrainCommand(corpus, base, base_options));
  ASSERT_EQ(r.exit_code, 0);
  const std::string base_fingerprint = TrainingFingerprintOf(base);
  ASSERT_TRUE(IsSha256Hex(base_fingerprint));

  std::map<std::string, std::string> seen = {{base_fingerprint, "base"}};
  int index = 0;
  for (const FingerprintVariant& v : variants) {
    SCOPED_TRACE(v.name);
    // Each variant reruns `pstrain train` on a copy of the finished base run.
    const fs::path run = dir / ("variant-" + std::to_string(index++));
    fs::copy(base, run, fs::copy_options::recursive);
    CommandResult rerun = RunOk(TrainCommand(v.other_manifest ? reordered : corpus, run, v.options));
    ASSERT_EQ(rerun.exit_code, 0);
    const std::string fingerprint = TrainingFingerprintOf(run);
    EXPECT_EQ(Contains(rerun.output, "up to date"), v.cache_hit) << rerun.output;
    if (v.cache_hit) {
      EXPECT_EQ(fingerprint, base_fingerprint);
      continue;
    }
    // A different training: nothing of the old run is reused, and the new fingerprint is new.
    EXPECT_FALSE(Contains(rerun.output, "(resumed)")) << rerun.output;
    EXPECT_TRUE(seen.emplace(fingerprint, v.name).second) << "same fingerprint as " << seen[fingerprint];
    for (std::uint32_t pass = 1; fs::exists(PassDir(run, pass) / "pass.json"); ++pass) {
      EXPECT_EQ(ReadJson(PassDir(run, pass) / "pass.json").at("training_fingerprint"), fingerprint.c_str()) << pass;
    }
  }
}

// The dictionaries enter the configuration fingerprint: a rerun with another pronunciation is no
// cache hit and reuses no pass computed with the old one.
TEST(Provenance, DictionaryChangeInvalidatesTheCache) {
  const fs::path dir = ScratchDir("dictionary-change");
  const CorpusFixture corpus = DefaultCorpus();
  const std::string options = "--jobs 2 --min-passes 2 --max-passes 2";
  const fs::path run = dir / "run";
  ASSERT_EQ(RunOk(TrainCommand(corpus, run, options)).exit_code, 0);
  // One pronunciation changed: TEN T EH N -> TEN T IH N (a word of the training transcripts).
  const fs::path dictionary = CorpusDir() / "corpus.dic";
  std::string text = ReadFileText(dictionary);
  const std::size_t line = text.find("\nTEN T EH N\n");
  ASSERT_NE(line, std::string::npos);
  text.replace(line, std::strlen("\nTEN T EH N\n"), "\nTEN T IH N\n");
  const fs::path other_dictionary = dir / "other.dic";
  std::ofstream(other_dictionary) << text;
  std::string command = TrainCommand(corpus, run, options);
  const std::string quoted = ShellQuote(dictionary.string());
  ASSERT_NE(command.find(quoted), std::string::npos);
  command.replace(command.find(quoted), quoted.size(), ShellQuote(other_dictionary.string()));
  const std::string before = Sha256OfFile(run / "model" / "means");
  CommandResult r = RunOk(command);
  EXPECT_FALSE(Contains(r.output, "up to date")) << r.output;
  EXPECT_FALSE(Contains(r.output, "(resumed)")) << r.output;
  EXPECT_NE(Sha256OfFile(run / "model" / "means"), before);
}

TEST(Provenance, TrainingFingerprintCoversTheBuildButNotTheLauncher) {
  // A modified binary cannot be run by its own tests, so the build's part of the fingerprint is
  // checked on TrainingFingerprint() directly, field by field.
  TrainingIdentity base;
  base.build = CurrentBuildIdentity();
  ASSERT_FALSE(base.build.libraries.empty());
  base.config_fingerprint = Sha256Hex("config");
  base.canonical_config = "config";
  base.manifest_fingerprint = Sha256Hex("manifest");
  base.input_model_fingerprint = Sha256Hex("model");
  base.requested_jobs = 4;
  base.shard_count = 4;
  base.reduction = "exact";
  base.launcher = "local";
  base.min_passes = 1;
  base.max_passes = 3;
  base.convergence = 0.1;
  const std::string base_fingerprint = TrainingFingerprint(base);
  EXPECT_TRUE(IsSha256Hex(base_fingerprint));
  EXPECT_EQ(TrainingFingerprint(base), base_fingerprint);

  struct Change {
    const char* name;
    void (*apply)(TrainingIdentity&);
    bool changes_fingerprint;
  };
  const Change changes[] = {
      {"binary", [](TrainingIdentity& t) { t.build.binary_sha256 = Sha256Hex("another binary"); }, true},
      {"a library's digest", [](TrainingIdentity& t) { t.build.libraries.front().second = Sha256Hex("another libm"); }, true},
      {"a library more", [](TrainingIdentity& t) { t.build.libraries.emplace_back("libextra.so.1", Sha256Hex("extra")); }, true},
      {"a library less", [](TrainingIdentity& t) { t.build.libraries.pop_back(); }, true},
      {"version", [](TrainingIdentity& t) { t.build.version += ".1"; }, true},
      {"architecture", [](TrainingIdentity& t) { t.build.architecture = "riscv64"; }, true},
      {"compiler", [](TrainingIdentity& t) { t.build.compiler += " (patched)"; }, true},
      {"configuration", [](TrainingIdentity& t) { t.config_fingerprint = Sha256Hex("other config"); }, true},
      {"manifest", [](TrainingIdentity& t) { t.manifest_fingerprint = Sha256Hex("other manifest"); }, true},
      {"input model", [](TrainingIdentity& t) { t.input_model_fingerprint = Sha256Hex("other model"); }, true},
      {"requested jobs", [](TrainingIdentity& t) { t.requested_jobs = 5; }, true},
      {"effective shard count", [](TrainingIdentity& t) { t.shard_count = 3; }, true},
      {"reduction", [](TrainingIdentity& t) { t.reduction = "float32"; }, true},
      {"min passes", [](TrainingIdentity& t) { t.min_passes = 2; }, true},
      {"max passes", [](TrainingIdentity& t) { t.max_passes = 4; }, true},
      {"convergence", [](TrainingIdentity& t) { t.convergence = 0.2; }, true},
      {"launcher (not hashed)", [](TrainingIdentity& t) { t.launcher = "slurm"; }, false},
  };
  std::set<std::string> fingerprints = {base_fingerprint};
  for (const Change& change : changes) {
    SCOPED_TRACE(change.name);
    TrainingIdentity changed = base;
    change.apply(changed);
    const std::string fingerprint = TrainingFingerprint(changed);
    if (change.changes_fingerprint) {
      EXPECT_TRUE(fingerprints.insert(fingerprint).second) << "fingerprint did not change (or collided)";
    } else {
      EXPECT_EQ(fingerprint, base_fingerprint);
    }
  }
}

TEST(Provenance, ModifiedBinaryInvalidatesTheCache) {
  // Bytes appended to an ELF file do not change how it runs, only its identity.
  const fs::path dir = ScratchDir("modified-binary");
  const fs::path modified = dir / "pstrain-modified";
  fs::copy_file(PSTRAIN_BINARY, modified);
  {
    std::ofstream out(modified, std::ios::binary | std::ios::app);
    out << "pstrain provenance test: not the same binary";
  }
  fs::permissions(modified, fs::perms::owner_all);
  const std::string modified_sha256 = Sha256OfFile(modified);
  ASSERT_NE(modified_sha256, Sha256OfFile(PSTRAIN_BINARY));
  const CorpusFixture corpus = SmallCorpus(dir / "corpus");
  const std::string options = "--jobs 2 --min-passes 2 --max-passes 2";
  const auto with_binary = [](const std::string& command, const fs::path& binary) {
    return ShellQuote(binary.string()) + command.substr(std::strlen(PSTRAIN_BINARY));
  };

  const fs::path run = dir / "run";
  ASSERT_EQ(RunOk(TrainCommand(corpus, run, options)).exit_code, 0);
  const std::string original_fingerprint = TrainingFingerprintOf(run);
  const auto original_digests = DeterministicDigests(run);

  CommandResult r = RunOk(with_binary(TrainCommand(corpus, run, options), modified));
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_FALSE(Contains(r.output, "up to date")) << r.output;
  EXPECT_FALSE(Contains(r.output, "(resumed)")) << r.output;
  const json::value provenance = ReadJson(run / "model" / "provenance.json");
  EXPECT_EQ(provenance.at("binary_sha256"), modified_sha256.c_str());
  const std::string modified_fingerprint(provenance.at("training_fingerprint").as_string());
  EXPECT_NE(modified_fingerprint, original_fingerprint);
  // Same code, same numbers: everything but the fingerprints is as before.
  auto digests = DeterministicDigests(run);
  EXPECT_EQ(digests.size(), original_digests.size());
  EXPECT_EQ(digests.at("model/means"), original_digests.at("model/means"));
  EXPECT_EQ(digests.at(PassKey(2) + "/accum/exact_counts"), original_digests.at(PassKey(2) + "/accum/exact_counts"));

  // Back to the original binary: the modified binary's model is no cache hit either.
  r = RunOk(TrainCommand(corpus, run, options));
  EXPECT_FALSE(Contains(r.output, "up to date")) << r.output;
  EXPECT_EQ(TrainingFingerprintOf(run), original_fingerprint);
  EXPECT_EQ(DeterministicDigests(run), original_digests);
}

TEST(Provenance, HostNameDoesNotChangeTheFingerprint) {
  ASSERT_EQ(RunCommand("unshare --uts true").exit_code, 0) << "unshare --uts is not available (util-linux, run as root)";
  constexpr const char* kOtherHost = "pstrain-other-host";
  ASSERT_NE(HostName(), kOtherHost);
  // `command` run in a new UTS namespace whose host name is kOtherHost (printed first, as proof).
  const auto on_other_host = [&](const std::string& command) {
    return "unshare --uts sh -c " + ShellQuote(std::string("hostname ") + kOtherHost + " && echo \"host=$(hostname)\" && " + command);
  };
  const fs::path dir = ScratchDir("host-name");
  const CorpusFixture corpus = SmallCorpus(dir / "corpus");
  const std::string options = "--jobs 2 --min-passes 2 --max-passes 2";
  const fs::path run = dir / "run";
  ASSERT_EQ(RunOk(TrainCommand(corpus, run, options)).exit_code, 0);
  const std::string provenance_sha256 = Sha256OfFile(run / "model" / "provenance.json");
  EXPECT_EQ(ReadJson(run / "model" / "provenance.json").at("host"), HostName().c_str());

  // The finished run, seen from another host: a cache hit that writes nothing.
  const auto before = Snapshot(run);
  CommandResult r = RunOk(on_other_host(TrainCommand(corpus, run, options)));
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_TRUE(Contains(r.output, std::string("host=") + kOtherHost)) << r.output;
  EXPECT_TRUE(Contains(r.output, "up to date")) << r.output;
  EXPECT_EQ(Sha256OfFile(run / "model" / "provenance.json"), provenance_sha256);
  const auto after = Snapshot(run);
  EXPECT_TRUE(after == before) << SnapshotChanges(before, after);

  // A fresh run on the other host: same fingerprint, same bytes; only the recorded host differs.
  const fs::path other = dir / "other-host-run";
  r = RunOk(on_other_host(TrainCommand(corpus, other, options)));
  ASSERT_EQ(r.exit_code, 0);
  json::object here = ReadJson(run / "model" / "provenance.json").as_object();
  json::object there = ReadJson(other / "model" / "provenance.json").as_object();
  EXPECT_EQ(there.at("host"), kOtherHost);
  EXPECT_EQ(there.at("training_fingerprint"), here.at("training_fingerprint"));
  here.erase("host");
  there.erase("host");
  EXPECT_EQ(here, there);
  auto digests_here = DeterministicDigests(run), digests_there = DeterministicDigests(other);
  digests_here.erase("model/provenance.json");
  digests_there.erase("model/provenance.json");
  EXPECT_EQ(digests_here, digests_there);
}

// ---------------------------------------------------------------------------------------------
// c. A cache hit does no work: no worker starts, nothing is written, renamed or removed.

TEST(Provenance, CacheHitDoesNoWork) {
  const fs::path dir = ScratchDir("cache-hit");
  const CorpusFixture corpus = DefaultCorpus();
  const std::string options = "--jobs 2 --min-passes 3 --max-passes 3";
  const fs::path run = dir / "run";
  ASSERT_EQ(RunOk(TrainCommand(corpus, run, options)).exit_code, 0);
  const auto before = Snapshot(run);
  ASSERT_GT(before.size(), 60u);
  // Any shard that ran would crash, and the run would fail.
  const std::string crash_everywhere = "crash:0:1,crash:1:1,crash:0:2,crash:1:2,crash:0:3,crash:1:3";
  for (int attempt = 0; attempt < 2; ++attempt) {
    SCOPED_TRACE("rerun " + std::to_string(attempt + 1));
    CommandResult r = RunOk(WithFaults(crash_everywhere, TrainCommand(corpus, run, options)));
    ASSERT_EQ(r.exit_code, 0);
    EXPECT_TRUE(Contains(r.output, "up to date")) << r.output;
    EXPECT_TRUE(Contains(r.output, "(3 passes, max-passes, cache hit)")) << r.output;
    EXPECT_FALSE(Contains(r.output, "pass 1:")) << r.output;
    const auto after = Snapshot(run);
    EXPECT_TRUE(after == before) << "the cache hit changed RUNDIR:\n" << SnapshotChanges(before, after);
    EXPECT_FALSE(HasStagingEntries(run));
  }
  // Control: the crash faults are real — a run that does work fails.
  CommandResult control = RunCommand(WithFaults(crash_everywhere, TrainCommand(corpus, dir / "control", options)));
  EXPECT_NE(control.exit_code, 0) << control.output;
}

// ---------------------------------------------------------------------------------------------
// d. Resume: a run that lost its final model and its last passes picks up after the last complete
// pass and ends with the bytes of the uninterrupted run.

struct ResumeCase {
  const char* name;
  std::vector<std::string> removed;  // relative to RUNDIR
  std::uint32_t resumed;             // passes reported "already complete (resumed)"
};

TEST(Provenance, ResumeAfterTheLastCompletePassGivesTheUninterruptedBytes) {
  const ResumeCase cases[] = {
      {"model and pass 3 lost", {"model", PassKey(3)}, 2},
      {"only the model lost", {"model"}, 3},
      {"model, passes 2 and 3 lost", {"model", PassKey(2), PassKey(3)}, 1},
      {"model and pass 2 lost, a later pass 3 left over", {"model", PassKey(2)}, 1},
  };
  const fs::path dir = ScratchDir("resume");
  const CorpusFixture corpus = DefaultCorpus();
  const std::string options = "--jobs 2 --min-passes 3 --max-passes 3";
  const fs::path uninterrupted = dir / "uninterrupted";
  ASSERT_EQ(RunOk(TrainCommand(corpus, uninterrupted, options)).exit_code, 0);
  const auto expected = DeterministicDigests(uninterrupted);
  ASSERT_GT(expected.size(), 60u);

  int index = 0;
  for (const ResumeCase& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path run = dir / ("case-" + std::to_string(index++));
    fs::copy(uninterrupted, run, fs::copy_options::recursive);
    for (const std::string& removed : c.removed) ASSERT_GT(fs::remove_all(run / removed), 0u) << removed;
    std::map<std::uint32_t, std::map<std::string, EntryState>> kept;
    for (std::uint32_t pass = 1; pass <= c.resumed; ++pass) kept[pass] = Snapshot(PassDir(run, pass));

    CommandResult r = RunOk(TrainCommand(corpus, run, options));
    ASSERT_EQ(r.exit_code, 0);
    EXPECT_FALSE(Contains(r.output, "up to date")) << r.output;
    for (std::uint32_t pass = 1; pass <= 3; ++pass) {
      const std::string resumed_line = "pass " + std::to_string(pass) + ": already complete (resumed)";
      const std::string computed_line = "pass " + std::to_string(pass) + ": 29707 frames";
      EXPECT_EQ(Contains(r.output, resumed_line), pass <= c.resumed) << pass << "\n" << r.output;
      EXPECT_EQ(Contains(r.output, computed_line), pass > c.resumed) << pass << "\n" << r.output;
    }
    EXPECT_TRUE(Contains(r.output, "(3 passes, max-passes)")) << r.output;
    // The resumed passes were read, not rewritten.
    for (const auto& [pass, snapshot] : kept) {
      const auto now = Snapshot(PassDir(run, pass));
      EXPECT_TRUE(now == snapshot) << "pass " << pass << " was rewritten:\n" << SnapshotChanges(snapshot, now);
    }
    EXPECT_EQ(DeterministicDigests(run), expected);
    EXPECT_FALSE(HasStagingEntries(run));
    // And the resumed run is itself finished: the next rerun is a cache hit.
    CommandResult again = RunOk(TrainCommand(corpus, run, options));
    EXPECT_TRUE(Contains(again.output, "up to date")) << again.output;
  }
}

// A cache hit also needs the model files exactly as training wrote them (provenance.json lists
// their digests): a damaged final model is rebuilt from the completed passes, not trusted.
TEST(Provenance, DamagedFinalModelIsNoCacheHit) {
  const fs::path dir = ScratchDir("damaged-model");
  const CorpusFixture corpus = DefaultCorpus();
  const fs::path run = dir / "run";
  RunOk(TrainCommand(corpus, run, "--jobs 2 --min-passes 2 --max-passes 2"));
  const auto before = DeterministicDigests(run / "model");
  fs::remove(run / "model" / "means");
  WriteFileAtomic(run / "model" / "variances", std::string("garbage"));
  const CommandResult rerun = RunOk(TrainCommand(corpus, run, "--jobs 2 --min-passes 2 --max-passes 2"));
  EXPECT_FALSE(Contains(rerun.output, "up to date")) << rerun.output;
  EXPECT_TRUE(Contains(rerun.output, "already complete (resumed)")) << rerun.output;
  EXPECT_EQ(DeterministicDigests(run / "model"), before) << "the rebuilt model must equal the original";
}

// Passes beyond the last one of this training came from an earlier, different training of the
// same RUNDIR: they are removed, so that RUNDIR and `pstrain validate` describe one training.
TEST(Provenance, PassesOfAnEarlierLongerTrainingAreRemoved) {
  const fs::path dir = ScratchDir("stale-passes");
  const CorpusFixture corpus = DefaultCorpus();
  const fs::path run = dir / "run";
  RunOk(TrainCommand(corpus, run, "--jobs 2 --min-passes 4 --max-passes 4"));
  ASSERT_TRUE(fs::exists(PassDir(run, 4)));
  const CommandResult shorter = RunOk(TrainCommand(corpus, run, "--jobs 2 --min-passes 2 --max-passes 2"));
  EXPECT_TRUE(fs::exists(PassDir(run, 2) / "pass.json"));
  EXPECT_FALSE(fs::exists(PassDir(run, 3))) << shorter.output;
  EXPECT_FALSE(fs::exists(PassDir(run, 4))) << shorter.output;
  // The one literal pass directory in this file: the message names it as it lies on disk.
  EXPECT_TRUE(Contains(shorter.output, "removed passes/003 of an earlier training")) << shorter.output;
}

}  // namespace
}  // namespace pstrain::testing
