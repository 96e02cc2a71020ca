// What the determinism gates (gates/*_gate.cpp) share besides the kit: the profile they run in,
// the corpus of that profile, `pstrain train` / `pstrain accumulate` command lines on it, and a
// scratch directory per gate.
//
// Profiles ($PSTRAIN_GATE_PROFILE):
//   quick (unset, empty or "quick")  the bundled default corpus (93 utterances, 17 retried in pass 1)
//                                    built by the `prepare_default_corpus` CTest fixture; the
//                                    shard counts and passes written in each gate's declaration.
//   full  ("full")                   the benchmark corpus (400 utterances, 64 retried and 2 skipped
//                                    in pass 1) built by scripts/prepare-bench-corpus.sh into
//                                    build/corpus/bench, and more passes (each gate says which in
//                                    a comment). scripts/nightly.sh runs it.
// Any other value fails the gate: a typo must not silently run the quick profile.
//
// Overrides (set by `audit gates run --corpus/--passes/--shards/--pstrain`; docs/gates.md):
//   PSTRAIN_GATE_CORPUS       a training manifest: the gates run on it instead of the profile's
//                             corpus (validated: it loads, its root, dictionary and filler exist)
//   PSTRAIN_GATE_CORPUS_ROOT  the corpus root of that manifest (default: the manifest's directory)
//   PSTRAIN_GATE_DICT         the dictionary (default: CORPUS_ROOT/corpus.dic)
//   PSTRAIN_GATE_FILLER       the filler dictionary (default: CORPUS_ROOT/corpus.filler)
//   PSTRAIN_GATE_PASSES       passes per run instead of the gate's own (a positive integer)
//   PSTRAIN_GATE_SHARDS       shard counts, a comma list of positive integers; each gate says in a
//                             comment how it uses the list (GateShardCounts and ShardUse)
//   PSTRAIN_GATE_PSTRAIN      the pstrain binary the gates train, accumulate and validate with
//                             (GatePstrain) instead of the built one, e.g. a broken build
// A bad value throws std::runtime_error naming the variable: a precondition failure of the gate.
// Gates whose count or passes are fixed by definition ignore the override and record that they
// did; what a gate really ran goes to the ledger through Gate::RecordRun(DescribeRun(...)).
//
// Nothing here certifies anything: helpers that fail a gate here do so only for preconditions
// (a command did not exit 0, a corpus is missing).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "gate_kit.h"
#include "shards/run_layout.h"
#include "support/test_util.h"

namespace pstrain::gates {

enum class Profile { kQuick, kFull };

// The profile named by $PSTRAIN_GATE_PROFILE; throws std::runtime_error on an unknown name.
Profile CurrentProfile();
inline bool FullProfile() { return CurrentProfile() == Profile::kFull; }
const char* ProfileName(Profile profile);
// `quick` in the quick profile, `full` in the full one.
inline std::uint32_t ProfileValue(std::uint32_t quick, std::uint32_t full) { return FullProfile() ? full : quick; }

// A corpus directory in the layout of scripts/prepare-corpus.sh (train.fileids, train.transcription,
// feat/, corpus.dic, corpus.filler) and its imported training manifest.
struct GateCorpus {
  std::string name;             // "default", "bench" or "override" (PSTRAIN_GATE_CORPUS)
  std::filesystem::path dir;    // the corpus root: feature paths are relative to it
  std::filesystem::path manifest;
  std::size_t utterances = 0;
  std::string fingerprint;      // the manifest's fingerprint (SHA-256 of its canonical bytes)
  std::filesystem::path dict_file, filler_file;  // empty: DIR/corpus.dic, DIR/corpus.filler
  std::filesystem::path dict() const { return dict_file.empty() ? dir / "corpus.dic" : dict_file; }
  std::filesystem::path filler() const { return filler_file.empty() ? dir / "corpus.filler" : filler_file; }
};

// The corpus of PSTRAIN_GATE_CORPUS when set, else the default corpus (quick) or the benchmark
// corpus (full); throws when it has not been built or (override) does not validate, naming the
// variable and the file.
GateCorpus ProfileCorpus();

// PSTRAIN_GATE_PASSES when set (throws naming it when not a positive integer), else
// ProfileValue(quick, full).
std::uint32_t GatePasses(std::uint32_t quick, std::uint32_t full);

// How a gate uses the PSTRAIN_GATE_SHARDS list.
enum class ShardUse {
  kWholeList,         // every count of the list, compared with the first (at least 2 distinct)
  kEach,              // every count of the list, each on its own (at least 1)
  kFirstTwoDistinct,  // the first two distinct counts of the list
  kLargest,           // the largest count (at least 2)
  kFixed,             // the count is fixed by the gate's definition: the list is ignored
};
const char* ShardUseName(ShardUse use);
// The shard counts a gate runs: `own` (its declared counts) unless PSTRAIN_GATE_SHARDS is set, then
// that list as `use` says (duplicates dropped, order kept; kFixed: `own`). Throws
// std::runtime_error naming PSTRAIN_GATE_SHARDS when the value is not a list of positive integers
// (also for kFixed) or `use` cannot use it.
std::vector<std::uint32_t> GateShardCounts(const std::vector<std::uint32_t>& own, ShardUse use);
// Parses a PSTRAIN_GATE_SHARDS value ("1,2,4"); throws std::runtime_error naming the variable.
std::vector<std::uint32_t> ParseShardList(const std::string& value);

// What a gate really runs, for Gate::RecordRun: the profile, `shard_counts`, `passes`, the corpus,
// the pstrain binary, and which PSTRAIN_GATE_* overrides applied or were ignored. `shards` says how
// the gate used PSTRAIN_GATE_SHARDS (kFixed: ignored); `passes_fixed_because`, when not empty,
// says why PSTRAIN_GATE_PASSES was ignored.
GateRun DescribeRun(const GateCorpus& corpus, const std::vector<std::uint32_t>& shard_counts, std::uint32_t passes, ShardUse shards,
                    const std::string& passes_fixed_because = "");

// The pstrain binary the gates run (PSTRAIN_GATE_PSTRAIN, else the built one) with arguments.
std::string GatePstrain(const std::string& args);
std::string GatePstrainPath();

// A fresh directory for one gate: BUILD/test-scratch/gates/PROFILE/NAME, or
// $PSTRAIN_GATE_SCRATCH/PROFILE/NAME when that is set (removed and recreated).
std::filesystem::path GateScratch(const std::string& name);

// `pstrain train` / `pstrain accumulate` (GatePstrain) from the shipped initial model (an4_ci_cont) on `corpus`,
// with `extra` options, e.g. TrainCommand(corpus, run, "--jobs 2 --min-passes 3 --max-passes 3").
std::string TrainCommand(const GateCorpus& corpus, const std::filesystem::path& run_dir, const std::string& extra);
std::string AccumulateCommand(const GateCorpus& corpus, const std::filesystem::path& out_dir, const std::string& extra);
// `command` run with PSTRAIN_FAULT_INJECTION=`faults` (trainer/shards/shard_worker.h).
std::string WithFaults(const std::string& faults, const std::string& command);
// "--min-passes N --max-passes N --quiet": exactly N passes.
std::string ExactlyPasses(std::uint32_t passes);

// Runs `command`; a non-zero exit adds a (precondition) failure naming the command and its output.
pstrain::testing::CommandResult RunOk(const std::string& command);

// The run directory's layout, the trainer's own (shards/run_layout.h): PassDir(run, 1) is
// run/passes/001, ShardDirName(0) is "shard-000".
using pstrain::PassDir;
using pstrain::PassName;
using pstrain::ShardDirName;

// The names of the regular files directly inside `dir` (empty when it does not exist).
std::set<std::string> FileNamesIn(const std::filesystem::path& dir);

// The value at a dotted path ("totals.total_frames") of a JSON file, as a number or a string;
// throws std::runtime_error when the file is unreadable or the value missing or of another type.
double JsonNumber(const std::filesystem::path& file, const std::string& dotted);
std::string JsonString(const std::filesystem::path& file, const std::string& dotted);
// `pass_dir`/pass.json's shard_count: what the gates record as the count a run really used.
inline double ShardCountOf(const std::filesystem::path& pass_dir) { return JsonNumber(pass_dir / "pass.json", "shard_count"); }

}  // namespace pstrain::gates
