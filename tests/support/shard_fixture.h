// Shared pieces of the sharded-training tests (sharding_integration_test.cpp,
// provenance_integration_test.cpp and the fault, Slurm, multipron and audit tests): the corpora they
// train on, the `pstrain train` / `pstrain accumulate` command lines, and the byte comparison of run
// directories that leaves out the files recording PIDs, times and worker output.
#pragma once

#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "shards/run_layout.h"

namespace pstrain::testing {

// A manifest and the corpus root its feature paths are relative to.
struct CorpusFixture {
  std::filesystem::path manifest;
  std::filesystem::path corpus_root;
  std::size_t utterances = 0;
};

// The default corpus's training manifest (93 utterances; 17 need a wider-beam retry in pass 1).
CorpusFixture DefaultCorpus();

// Eight utterances of the default corpus (kSmallCorpusIds), as a manifest written into `dir`; the
// feature paths stay relative to CorpusDir(). With the default options three of them need a
// wider-beam retry in pass 1 (kSmallCorpusRetried); with `--retry-beams none` those three are
// skipped in every pass.
CorpusFixture SmallCorpus(const std::filesystem::path& dir);
inline constexpr const char* kSmallCorpusIds[] = {"cards_001",  "librivox_0870", "goforward",  "tidigits_2934z",
                                                  "syn_s03_v4", "syn_s08_v4",    "syn_s10_v3", "syn_s20_v1"};
inline constexpr const char* kSmallCorpusRetried[] = {"syn_s03_v4", "syn_s08_v4", "syn_s10_v3"};

// `pstrain train` from the shipped initial model on `corpus` into `run_dir`, with `extra` options,
// e.g. TrainCommand(corpus, run, "--jobs 2 --min-passes 3 --max-passes 3").
std::string TrainCommand(const CorpusFixture& corpus, const std::filesystem::path& run_dir, const std::string& extra);
// The same from another initial model and with another dictionary (empty: the corpus's).
std::string TrainCommandFrom(const std::filesystem::path& model, const std::filesystem::path& dict, const CorpusFixture& corpus,
                             const std::filesystem::path& run_dir, const std::string& extra);
// `pstrain accumulate` (one E-step) from the shipped initial model on `corpus` into `out_dir`.
std::string AccumulateCommand(const CorpusFixture& corpus, const std::filesystem::path& out_dir, const std::string& extra);
// `command` run with PSTRAIN_FAULT_INJECTION=`faults` (shards/shard_worker.h); unchanged when empty.
std::string WithFaults(const std::string& faults, const std::string& command);

// True for the files that are nondeterministic by design and excluded from every byte comparison
// (docs/contract.md): telemetry.json (PID, times, CPU) and worker.stderr (a worker's own output).
// `path` is relative to the run (or pass) directory compared: files below a "slurm" directory in it
// are the Slurm launcher's job records.
bool IsNondeterministicFile(const std::filesystem::path& path);

// Relative path -> SHA-256 of every regular file below `dir`, except the nondeterministic ones.
// Empty when `dir` does not exist.
std::map<std::string, std::string> DeterministicDigests(const std::filesystem::path& dir);

// Parses a JSON file; throws (failing the test) when it is unreadable or malformed.
boost::json::value ReadJson(const std::filesystem::path& path);

// A pass directory's name: 1 -> "001" (the trainer's own naming).
using pstrain::PassName;

// Run-relative spellings of the layout (shards/run_layout.h), for the keys of DeterministicDigests and
// for paths that messages print relative to a pass: PassKey(2) is "passes/002" and
// InShard(1, "artifact.json") is "shard-001/artifact.json". Tests build these rather than spell them.
std::string PassKey(std::uint32_t pass);
std::string InShard(std::uint32_t shard, const std::string& file);

// The shard-XXX directories directly inside `pass_dir`.
std::size_t CountShardDirs(const std::filesystem::path& pass_dir);

}  // namespace pstrain::testing
