// telemetry.json: its writer, its strict reader and its field list (shards/shard_telemetry.h).
#include "shards/shard_telemetry.h"

#include <array>
#include <boost/json.hpp>

#include "common/strict_json.h"

namespace pstrain {

namespace json = boost::json;

namespace {

constexpr std::array<std::string_view, 9> kFields = {"pid", "start", "end", "isa", "wall_seconds", "user_cpu_seconds",
                                                     "system_cpu_seconds", "host", "slurm"};
constexpr std::array<std::string_view, 4> kSlurmFields = {"job_id", "array_job_id", "array_task_id", "node"};

using strict_json::ExpectKeys;
using strict_json::Fail;
using strict_json::kUnavailable;
using strict_json::NumberAt;
using strict_json::NumberOrUnavailableAt;
using strict_json::ObjectOf;
using strict_json::StringAt;

}  // namespace

std::span<const std::string_view> ShardTelemetryFields() { return kFields; }

std::string SerializeShardTelemetry(const ShardTelemetry& t) {
  json::object root;  // insertion order is the key order
  root["pid"] = t.pid;
  root["start"] = t.start;
  root["end"] = t.end;
  root["isa"] = t.isa;
  root["wall_seconds"] = t.wall_seconds;
  if (t.user_cpu_seconds) root["user_cpu_seconds"] = *t.user_cpu_seconds;
  else root["user_cpu_seconds"] = kUnavailable;
  if (t.system_cpu_seconds) root["system_cpu_seconds"] = *t.system_cpu_seconds;
  else root["system_cpu_seconds"] = kUnavailable;
  root["host"] = t.host;
  if (t.slurm) {
    json::object slurm;
    slurm["job_id"] = t.slurm->job_id;
    slurm["array_job_id"] = t.slurm->array_job_id;
    slurm["array_task_id"] = t.slurm->array_task_id;
    slurm["node"] = t.slurm->node;
    root["slurm"] = std::move(slurm);
  }
  return json::serialize(root) + "\n";
}

ShardTelemetry ParseShardTelemetry(std::string_view text) {
  const json::value parsed = strict_json::ParseObject(text);
  const json::object& root = parsed.get_object();
  ExpectKeys(root, kFields, "telemetry.json");
  ShardTelemetry t;
  t.pid = strict_json::PositiveIntAt(root, "pid", "pid");
  t.start = StringAt(root, "start", "start");
  t.end = StringAt(root, "end", "end");
  t.isa = StringAt(root, "isa", "isa");
  t.wall_seconds = NumberAt(root, "wall_seconds", "wall_seconds");
  t.user_cpu_seconds = NumberOrUnavailableAt(root, "user_cpu_seconds", "user_cpu_seconds");
  t.system_cpu_seconds = NumberOrUnavailableAt(root, "system_cpu_seconds", "system_cpu_seconds");
  t.host = StringAt(root, "host", "host");
  if (const json::value* slurm = root.if_contains("slurm")) {
    const json::object& s = ObjectOf(*slurm, "slurm");
    ExpectKeys(s, kSlurmFields, "slurm");
    t.slurm = SlurmTelemetry{StringAt(s, "job_id", "slurm.job_id"), StringAt(s, "array_job_id", "slurm.array_job_id"),
                             StringAt(s, "array_task_id", "slurm.array_task_id"), StringAt(s, "node", "slurm.node")};
  }
  return t;
}

ShardTelemetry ReadShardTelemetry(const std::filesystem::path& path) {
  return ReadStrictJsonFile(path, kMaxShardTelemetryBytes, ParseShardTelemetry);
}

}  // namespace pstrain
