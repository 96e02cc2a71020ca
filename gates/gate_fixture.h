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
// Nothing here certifies anything: helpers that fail a gate here do so only for preconditions
// (a command did not exit 0, a corpus is missing).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>

#include "integration/test_util.h"

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
  std::string name;             // "default" or "bench"
  std::filesystem::path dir;    // the corpus root: feature paths are relative to it
  std::filesystem::path manifest;
  std::size_t utterances = 0;
  std::filesystem::path dict() const { return dir / "corpus.dic"; }
  std::filesystem::path filler() const { return dir / "corpus.filler"; }
};

// The default corpus (quick) or the benchmark corpus (full); throws when it has not been built.
GateCorpus ProfileCorpus();

// A fresh directory for one gate: BUILD/test-scratch/gates/PROFILE/NAME, or
// $PSTRAIN_GATE_SCRATCH/PROFILE/NAME when that is set (removed and recreated).
std::filesystem::path GateScratch(const std::string& name);

// `pstrain train` / `pstrain accumulate` from the shipped initial model (an4_ci_cont) on `corpus`,
// with `extra` options, e.g. TrainCommand(corpus, run, "--jobs 2 --min-passes 3 --max-passes 3").
std::string TrainCommand(const GateCorpus& corpus, const std::filesystem::path& run_dir, const std::string& extra);
std::string AccumulateCommand(const GateCorpus& corpus, const std::filesystem::path& out_dir, const std::string& extra);
// `command` run with PSTRAIN_FAULT_INJECTION=`faults` (trainer/shards/shard_worker.h).
std::string WithFaults(const std::string& faults, const std::string& command);
// "--min-passes N --max-passes N --quiet": exactly N passes.
std::string ExactlyPasses(std::uint32_t passes);

// Runs `command`; a non-zero exit adds a (precondition) failure naming the command and its output.
pstrain::testing::CommandResult RunOk(const std::string& command);

// 1 -> "001"; 0 -> "shard-000".
std::string PassName(std::uint32_t pass);
std::string ShardName(std::uint32_t shard);

// The names of the regular files directly inside `dir` (empty when it does not exist).
std::set<std::string> FileNamesIn(const std::filesystem::path& dir);

// The value at a dotted path ("totals.total_frames") of a JSON file, as a number or a string;
// throws std::runtime_error when the file is unreadable or the value missing or of another type.
double JsonNumber(const std::filesystem::path& file, const std::string& dotted);
std::string JsonString(const std::filesystem::path& file, const std::string& dotted);
// `pass_dir`/pass.json's shard_count: what the gates record as the count a run really used.
inline double ShardCountOf(const std::filesystem::path& pass_dir) { return JsonNumber(pass_dir / "pass.json", "shard_count"); }

}  // namespace pstrain::gates
