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
// As pass.json's bound: at about 160 bytes a shard, room for some 400,000 shards (a pass of more
// has a telemetry.json that ReadPassTelemetry refuses; nothing in a run reads it).
inline constexpr std::size_t kMaxPassTelemetryBytes = 64u << 20;

// Seconds from the pass's start.
struct ShardTimes {
  std::uint32_t shard = 0;
  // Its launcher reported it finished: a local worker reaped, an inline shard returned; the Slurm
  // launcher reports every task once the array has ended, so there it is when the coordinator got to it.
  double reported_seconds = 0.0;
  // Its artifact validated (the first shard's validation also reads what the pass expects of every
  // artifact: the model's and dictionary's digests).
  double validated_seconds = 0.0;
  double reduced_seconds = 0.0;  // its statistics added to the pass's (float32 mode: in shard order)
  bool operator==(const ShardTimes&) const = default;
};

struct PassTelemetry {
  std::int64_t pid = 0;
  std::string host;
  std::string start;     // the pass's start, ISO 8601 UTC with milliseconds (common/iso_time.h)
  std::string launcher;  // inline, local or slurm
  std::vector<ShardTimes> shards;  // in shard order
  // The reduction finished: every shard added, the fsyncs of the shards reported before the last
  // waited for, the sums' range checked.
  double reduced_seconds = 0.0;
  double reestimated_seconds = 0.0;  // the double view taken, the writers of accum/ started, the model re-estimated
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

// Strict: every field with its type, no unknown key, the launcher one of the three, the seconds
// finite and not negative, the shards numbered 0, 1, ... in order; std::runtime_error naming the field.
PassTelemetry ParsePassTelemetry(std::string_view text);

// A regular file of at most kMaxPassTelemetryBytes; InputError "PATH: unreadable: REASON".
PassTelemetry ReadPassTelemetry(const std::filesystem::path& path);

}  // namespace pstrain
