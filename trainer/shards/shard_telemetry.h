// SHARD_DIR/telemetry.json: the one module that writes it, reads it and lists its fields. What a
// shard's run was like (PID, times, CPU seconds, host, the vector kernels' instruction-set level,
// Slurm ids): never deterministic, never compared (docs/contract.md), never in an artifact's
// digests. The shard worker writes it; gates and people read it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace pstrain {

inline constexpr const char* kShardTelemetryFile = "telemetry.json";
inline constexpr std::size_t kMaxShardTelemetryBytes = 1u << 20;

// Under Slurm: the job, array task and node that ran the shard.
struct SlurmTelemetry {
  std::string job_id, array_job_id, array_task_id, node;
  bool operator==(const SlurmTelemetry&) const = default;
};

struct ShardTelemetry {
  std::int64_t pid = 0;
  std::string start;  // ISO 8601 UTC with milliseconds (common/iso_time.h)
  std::string end;
  std::string isa;    // numerics::IsaName of the level the kernels ran at
  double wall_seconds = 0.0;
  std::optional<double> user_cpu_seconds;    // written "unavailable" when getrusage failed
  std::optional<double> system_cpu_seconds;
  std::string host;
  std::optional<SlurmTelemetry> slurm;
  bool operator==(const ShardTelemetry&) const = default;
};

// The top-level keys in the order they are written ("slurm" last, present under Slurm only).
std::span<const std::string_view> ShardTelemetryFields();

std::string SerializeShardTelemetry(const ShardTelemetry& telemetry);

// Strict: every field with its type, no unknown key; std::runtime_error naming the field. Doubles
// as Boost.JSON 1.81 parses them (not correctly rounded: a 17-digit value may be an ulp or so off).
ShardTelemetry ParseShardTelemetry(std::string_view text);

// A regular file of at most kMaxShardTelemetryBytes; InputError "PATH: unreadable: REASON".
ShardTelemetry ReadShardTelemetry(const std::filesystem::path& path);

}  // namespace pstrain
