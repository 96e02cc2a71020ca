// One sharded pass: partition the manifest, run every shard through a launcher, validate each
// artifact as its worker ends, reduce (exact: in completion order; float32: in ascending shard
// order). Used by `pstrain train` (each pass) and by `pstrain accumulate --jobs N`.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/launcher.h"
#include "coordinator/slurm_launcher.h"
#include "manifest/manifest.h"
#include "shards/artifact_validator.h"
#include "shards/reducer.h"

namespace pstrain {

// When the coordinator saw a shard's steps (coordinator/pass_telemetry.h ShardTimes).
struct ShardEvents {
  std::chrono::steady_clock::time_point reported, validated, reduced;
};

struct ShardedPassResult {
  std::uint32_t shard_count = 0;
  PassFingerprints fingerprints;
  std::string code_identity;  // the coordinator's, which every artifact matched
  std::vector<ShardArtifact> artifacts;
  ReducedPass reduced;
  std::vector<ShardEvents> events;               // by shard
  std::chrono::steady_clock::time_point reduced_at;  // the reduction finished
};

// The expectations every artifact of the pass must meet. `model_fingerprint`: that of the model the
// coordinator will re-estimate from (the one it loaded, or wrote in the previous pass), which every
// shard must have trained with; without it, the fingerprint of inputs.model_dir as it is now.
PassExpectation ExpectationFor(const PassInputs& inputs, const Manifest& manifest, std::uint32_t pass, std::uint32_t shard_count,
                               const std::optional<std::string>& model_fingerprint = std::nullopt);

// The shape of the statistics of a pass on the model in `model_dir` (its means' and transition
// matrices' dimensions). Throws as the file readers do.
AccumulatorShape StatisticsShapeOf(const std::filesystem::path& model_dir);

// The tasks of pass `pass`: shard i of `shard_count` in work_dir/shard-XXX.
std::vector<ShardTask> ShardTasks(const PassInputs& inputs, std::uint32_t pass, std::uint32_t shard_count,
                                  const std::filesystem::path& work_dir);

// Runs pass `pass` with `shard_count` shards whose directories are created under `work_dir`. Each
// shard is validated (ValidateShard) when the launcher reports it finished, and reduced then (exact
// mode) or once it and every lower shard are valid (float32 mode); the reducer checks the digests of
// the files it adds on the bytes it adds (PayloadDigests). Throws, after the launcher
// returns: the lowest shard's ArtifactRejected, else a reduction error (a failed fsync of the last
// shard's files among them), else a TrainingError for a shard never reported, else a failed fsync
// of an earlier shard's files, else the reduction's range check (ShardReducer::Finish).
// `first_shard_done`, if given, is called once, when the launcher reports the first shard finished
// (before it is validated): a CPU has just become free, for work of the caller's that does not
// depend on the statistics. It must not throw.
// `lent_model`, if given (its `files` set): the coordinator's copy of inputs.model_dir's parameter
// files and their digests, for a pass of one shard run on this thread (anything else is a
// TrainingError): the shard takes the files instead of loading them, and calls `freed` (if set)
// once its E-step has ended (ShardTask::lent_model, lent_model_freed).
// `reduced_dir`, if given: the directory the caller writes the reduced statistics into. In exact
// mode the reducer writes their exact_counts there as it adds the last shard, or links the only
// shard's file there when that shard, run on this thread, lent its sums (ShardTask::lent_sums;
// ShardReducer::WriteSumsInto and LendExactSums; the result's reduced.exact_counts_file names it then).
struct LentModel {
  ModelFiles* files = nullptr;
  const ModelFileDigests* digests = nullptr;
  std::function<void()> freed;
};
ShardedPassResult RunShardedPass(const PassInputs& inputs, const Manifest& manifest, std::uint32_t pass, std::uint32_t shard_count,
                                 const std::filesystem::path& work_dir, Launcher& launcher,
                                 const std::optional<std::string>& model_fingerprint = std::nullopt,
                                 const std::function<void()>& first_shard_done = {}, const LentModel& lent_model = {},
                                 const std::filesystem::path& reduced_dir = {});

enum class LauncherKind { kLocal, kSlurm };
const char* LauncherKindName(LauncherKind kind);  // "local", "slurm"
// "local" or "slurm"; any other name is an InputError that lists the launchers.
LauncherKind ParseLauncherKind(const std::string& name);

// How the shards of a pass are run (`pstrain train` and `pstrain accumulate`).
struct LaunchOptions {
  std::uint32_t jobs = 1;                        // requested shard workers, at least 1
  LauncherKind launcher = LauncherKind::kLocal;
  SlurmOptions slurm;                            // LauncherKind::kSlurm only
};

// The launcher for `options`. Local: inline for 1 job (no process pool), local processes
// otherwise. Slurm: one job array per pass, whatever the job count (`options.slurm` applies).
// Slurm options without the Slurm launcher are an InputError.
std::unique_ptr<Launcher> MakeLauncher(const LaunchOptions& options);


}  // namespace pstrain
