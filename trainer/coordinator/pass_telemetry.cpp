// passes/NNN/telemetry.json: its writer, its strict reader and its field list
// (coordinator/pass_telemetry.h).
#include "coordinator/pass_telemetry.h"

#include <array>
#include <cmath>
#include <boost/json.hpp>

#include "common/strict_json.h"

namespace pstrain {

namespace json = boost::json;

namespace {

constexpr std::array<std::string_view, 13> kFields = {"format",
                                                      "pid",
                                                      "host",
                                                      "start",
                                                      "launcher",
                                                      "shards",
                                                      "reduced_seconds",
                                                      "reestimated_seconds",
                                                      "written_seconds",
                                                      "user_cpu_seconds",
                                                      "system_cpu_seconds",
                                                      "children_user_cpu_seconds",
                                                      "children_system_cpu_seconds"};
constexpr std::array<std::string_view, 4> kShardFields = {"shard", "reported_seconds", "validated_seconds", "reduced_seconds"};
constexpr const char* kFormat = "pstrain-pass-telemetry-1";

using strict_json::ExpectKeys;
using strict_json::Fail;
using strict_json::kUnavailable;
using strict_json::NumberAt;
using strict_json::NumberOrUnavailableAt;
using strict_json::StringAt;

// A finite number of seconds, not negative.
double SecondsAt(const json::object& object, std::string_view key, const std::string& field) {
  const double seconds = NumberAt(object, key, field);
  if (!(seconds >= 0.0 && std::isfinite(seconds))) Fail(field, "is not a finite number of seconds of at least 0");
  return seconds;
}

void PutCpu(json::object& root, const char* key, const std::optional<double>& seconds) {
  if (seconds) root[key] = *seconds;
  else root[key] = kUnavailable;
}

}  // namespace

std::span<const std::string_view> PassTelemetryFields() { return kFields; }

std::string SerializePassTelemetry(const PassTelemetry& t) {
  json::object root;  // insertion order is the key order
  root["format"] = kFormat;
  root["pid"] = t.pid;
  root["host"] = t.host;
  root["start"] = t.start;
  root["launcher"] = t.launcher;
  json::array shards;
  for (const ShardTimes& s : t.shards) {
    json::object shard;
    shard["shard"] = s.shard;
    shard["reported_seconds"] = s.reported_seconds;
    shard["validated_seconds"] = s.validated_seconds;
    shard["reduced_seconds"] = s.reduced_seconds;
    shards.push_back(std::move(shard));
  }
  root["shards"] = std::move(shards);
  root["reduced_seconds"] = t.reduced_seconds;
  root["reestimated_seconds"] = t.reestimated_seconds;
  root["written_seconds"] = t.written_seconds;
  PutCpu(root, "user_cpu_seconds", t.user_cpu_seconds);
  PutCpu(root, "system_cpu_seconds", t.system_cpu_seconds);
  PutCpu(root, "children_user_cpu_seconds", t.children_user_cpu_seconds);
  PutCpu(root, "children_system_cpu_seconds", t.children_system_cpu_seconds);
  return json::serialize(root) + "\n";
}

PassTelemetry ParsePassTelemetry(std::string_view text) {
  const json::value parsed = strict_json::ParseObject(text);
  const json::object& root = parsed.get_object();
  ExpectKeys(root, kFields, "telemetry.json");
  if (StringAt(root, "format", "format") != kFormat) Fail("format", std::string("is not \"") + kFormat + "\"");
  PassTelemetry t;
  t.pid = strict_json::PositiveIntAt(root, "pid", "pid");
  t.host = StringAt(root, "host", "host");
  t.start = StringAt(root, "start", "start");
  t.launcher = StringAt(root, "launcher", "launcher");
  if (t.launcher != "inline" && t.launcher != "local" && t.launcher != "slurm") Fail("launcher", "is not inline, local or slurm");
  const json::array& shards = strict_json::ArrayAt(root, "shards", "shards");
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const std::string field = "shards[" + std::to_string(i) + "]";
    const json::object& s = strict_json::ObjectOf(shards[i], field);
    ExpectKeys(s, kShardFields, field);
    ShardTimes times;
    times.shard = strict_json::Uint32At(s, "shard", field + ".shard");
    if (times.shard != i) Fail(field + ".shard", "is not " + std::to_string(i) + " (the shards are listed in order)");
    times.reported_seconds = SecondsAt(s, "reported_seconds", field + ".reported_seconds");
    times.validated_seconds = SecondsAt(s, "validated_seconds", field + ".validated_seconds");
    times.reduced_seconds = SecondsAt(s, "reduced_seconds", field + ".reduced_seconds");
    t.shards.push_back(times);
  }
  t.reduced_seconds = SecondsAt(root, "reduced_seconds", "reduced_seconds");
  t.reestimated_seconds = SecondsAt(root, "reestimated_seconds", "reestimated_seconds");
  t.written_seconds = SecondsAt(root, "written_seconds", "written_seconds");
  t.user_cpu_seconds = NumberOrUnavailableAt(root, "user_cpu_seconds", "user_cpu_seconds");
  t.system_cpu_seconds = NumberOrUnavailableAt(root, "system_cpu_seconds", "system_cpu_seconds");
  t.children_user_cpu_seconds = NumberOrUnavailableAt(root, "children_user_cpu_seconds", "children_user_cpu_seconds");
  t.children_system_cpu_seconds = NumberOrUnavailableAt(root, "children_system_cpu_seconds", "children_system_cpu_seconds");
  return t;
}

PassTelemetry ReadPassTelemetry(const std::filesystem::path& path) {
  return ReadStrictJsonFile(path, kMaxPassTelemetryBytes, ParsePassTelemetry);
}

}  // namespace pstrain
