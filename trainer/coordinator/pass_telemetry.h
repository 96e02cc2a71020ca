// RUNDIR/passes/NNN/telemetry.json: the one module that writes it, reads it and lists its fields.
// When the coordinator's steps of a pass happened, in seconds from the pass's start: each shard
// reported finished, validated and reduced, the reduction finished, the model re-estimated, model/
// and accum/ written. With the shards' own telemetry.json (their start and end) it says where a
// pass's time went beyond its workers (docs/performance.md, scripts/bench-harness.sh). Never
// deterministic, never compared (docs/contract.md), never in pass.json's digests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pstrain {

inline constexpr const char* kPassTelemetryFile = "telemetry.json";
inline constexpr std::size_t kMaxPassTelemetryBytes = 16u << 20;

// Seconds from the pass's start.
struct ShardTimes {
  std::uint32_t shard = 0;
  double reported_seconds = 0.0;   // its launcher reported it finished (a worker process reaped, an inline shard returned)
  double validated_seconds = 0.0;  // its artifact validated
  double reduced_seconds = 0.0;    // its statistics added to the pass's
  bool operator==(const ShardTimes&) const = default;
};

struct PassTelemetry {
  std::int64_t pid = 0;
  std::string host;
  std::string start;     // the pass's start, ISO 8601 UTC with milliseconds (common/iso_time.h)
  std::string launcher;  // inline, local or slurm
  std::vector<ShardTimes> shards;  // in shard order
  double reduced_seconds = 0.0;      // the reduction finished (every shard added, the sums' range checked)
  double reestimated_seconds = 0.0;  // the model re-estimated
  // model/ and accum/ written and hashed. This file is written next, then pass.json, the fsyncs and
  // the pass directory's rename: the pass time pstrain prints, less this, is what they took.
  double written_seconds = 0.0;
  // CPU from the pass's start to written_seconds: this process (an inline shard included), and the
  // child processes it waited for meanwhile (the local launcher's workers; under Slurm its sbatch
  // and squeue calls, not the tasks). "unavailable" in the file when getrusage failed.
  std::optional<double> user_cpu_seconds, system_cpu_seconds;
  std::optional<double> children_user_cpu_seconds, children_system_cpu_seconds;
  bool operator==(const PassTelemetry&) const = default;
};

// The top-level keys in the order they are written.
std::span<const std::string_view> PassTelemetryFields();

std::string SerializePassTelemetry(const PassTelemetry& telemetry);

// Strict: every field with its type, no unknown key, the shards numbered 0, 1, ... in order;
// std::runtime_error naming the field.
PassTelemetry ParsePassTelemetry(std::string_view text);

// A regular file of at most kMaxPassTelemetryBytes; InputError "PATH: unreadable: REASON".
PassTelemetry ReadPassTelemetry(const std::filesystem::path& path);

}  // namespace pstrain
