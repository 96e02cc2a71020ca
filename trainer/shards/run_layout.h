// The layout of a run directory (docs/formats.md), in one place for the trainer, the auditor, the
// gates and the tests:
//   RUNDIR/model/                       the final model and provenance.json
//   RUNDIR/.model.staging/              the final model being written, exchanged with model/
//   RUNDIR/passes/NNN/                  a finished pass (pass.json, model/, accum/, shard-SSS/)
//   RUNDIR/passes/.NNN.staging/         a pass being computed, renamed to NNN when it is complete
//   RUNDIR/passes/NNN/shard-SSS/        one shard's artifact
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace pstrain {

inline constexpr const char* kRunModelDir = "model";
inline constexpr const char* kRunPassesDir = "passes";

// The name of pass `pass`'s directory under RUNDIR/passes: 1 -> "001".
std::string PassName(std::uint32_t pass);
// Its inverse: the pass whose directory is `name` ("001" -> 1), nullopt for a name PassName never
// gives ("000", "1", "0001", ".001.staging", "abc").
std::optional<std::uint32_t> PassNumberOf(std::string_view name);
// RUNDIR/passes.
std::filesystem::path PassesDir(const std::filesystem::path& run_dir);
// RUNDIR/passes/NNN.
std::filesystem::path PassDir(const std::filesystem::path& run_dir, std::uint32_t pass);
// RUNDIR/passes/.NNN.staging.
std::filesystem::path StagingPassDir(const std::filesystem::path& run_dir, std::uint32_t pass);
// RUNDIR/.model.staging.
std::filesystem::path FinalModelStagingDir(const std::filesystem::path& run_dir);
// The subdirectory of shard `shard` inside a pass directory: "shard-007".
std::string ShardDirName(std::uint32_t shard);

}  // namespace pstrain
