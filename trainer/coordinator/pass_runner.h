// One sharded pass: partition the manifest, run every shard through a launcher, validate every
// artifact, reduce in ascending shard order. Used by `pstrain train` (each pass) and by
// `pstrain accumulate --jobs N`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "coordinator/launcher.h"
#include "coordinator/slurm_launcher.h"
#include "manifest/manifest.h"
#include "shards/artifact_validator.h"
#include "shards/reducer.h"

namespace pstrain {

struct ShardedPassResult {
  std::uint32_t shard_count = 0;
  PassFingerprints fingerprints;
  std::string code_identity;  // the coordinator's, which every artifact matched
  std::vector<ShardArtifact> artifacts;
  ReducedPass reduced;
};

// The expectations every artifact of the pass must meet.
PassExpectation ExpectationFor(const PassInputs& inputs, const Manifest& manifest, std::uint32_t pass, std::uint32_t shard_count);

// Runs pass `pass` with `shard_count` shards whose directories are created under `work_dir`.
ShardedPassResult RunShardedPass(const PassInputs& inputs, const Manifest& manifest, std::uint32_t pass, std::uint32_t shard_count,
                                 const std::filesystem::path& work_dir, Launcher& launcher);

// The launcher for a requested job count. "local": inline for 1 (no process pool), local processes
// otherwise. "slurm": one job array per pass, whatever the count (`slurm` options apply).
std::unique_ptr<Launcher> MakeLauncher(const std::string& name, std::uint32_t jobs, const SlurmOptions& slurm = {});


}  // namespace pstrain
