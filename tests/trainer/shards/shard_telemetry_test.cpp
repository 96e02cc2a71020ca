// Tests for telemetry.json's one owner (trainer/shards/shard_telemetry.h): every field round-trips,
// the written keys are the field list in order, and the strict reader names what it refuses.
#include "shards/shard_telemetry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

namespace pstrain {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;

ShardTelemetry FullTelemetry() {
  ShardTelemetry t;
  t.pid = 4242;
  t.start = "2026-12-01T15:00:00.000001Z";
  t.end = "2026-12-01T15:00:01.500002Z";
  t.isa = "avx2";
  t.wall_seconds = 1.500244140625;
  t.user_cpu_seconds = 1.25;
  t.system_cpu_seconds = 0.125;
  t.host = "node-a";
  t.slurm = SlurmTelemetry{"17", "16", "1", "node-b"};
  return t;
}

TEST(ShardTelemetry, EveryFieldRoundTripsInTheListedOrder) {
  const std::string text = SerializeShardTelemetry(FullTelemetry());
  EXPECT_TRUE(ParseShardTelemetry(text) == FullTelemetry());
  EXPECT_EQ(SerializeShardTelemetry(ParseShardTelemetry(text)), text);
  std::vector<std::string> written, listed;
  const json::value parsed = json::parse(text);
  for (const auto& member : parsed.as_object()) written.emplace_back(member.key());
  for (std::string_view f : ShardTelemetryFields()) listed.emplace_back(f);
  EXPECT_EQ(written, listed);

  // No getrusage and no Slurm: "unavailable" CPU seconds and no "slurm" member, read back as such.
  ShardTelemetry local = FullTelemetry();
  local.user_cpu_seconds.reset();
  local.system_cpu_seconds.reset();
  local.slurm.reset();
  const std::string local_text = SerializeShardTelemetry(local);
  EXPECT_THAT(local_text, HasSubstr("\"user_cpu_seconds\":\"unavailable\""));
  EXPECT_EQ(local_text.find("slurm"), std::string::npos);
  EXPECT_TRUE(ParseShardTelemetry(local_text) == local);
}

TEST(ShardTelemetry, ReaderNamesTheFieldItRefuses) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"pid":1})", "\"start\" is missing"},
      {R"({"pid":-3,"start":"a","end":"b","isa":"x","wall_seconds":1,"user_cpu_seconds":1,"system_cpu_seconds":1,"host":"h"})",
       "\"pid\" is not a positive integer"},
      {R"({"pid":3,"start":"a","end":"b","isa":"x","wall_seconds":"1","user_cpu_seconds":1,"system_cpu_seconds":1,"host":"h"})",
       "\"wall_seconds\" is not a number"},
      {R"({"pid":3,"start":"a","end":"b","isa":"x","wall_seconds":1,"user_cpu_seconds":"n/a","system_cpu_seconds":1,"host":"h"})",
       "\"user_cpu_seconds\" is not a number"},
      {R"({"pid":3,"start":"a","end":"b","isa":"x","wall_seconds":1,"user_cpu_seconds":1,"system_cpu_seconds":1,"host":"h","x":0})",
       "unknown member \"x\""},
      {R"({"pid":3,"start":"a","end":"b","isa":"x","wall_seconds":1,"user_cpu_seconds":1,"system_cpu_seconds":1,"host":"h","slurm":{"node":"n"}})",
       "\"slurm.job_id\" is missing"},
  };
  for (const auto& [text, named] : cases) {
    SCOPED_TRACE(text);
    try {
      ParseShardTelemetry(text);
      ADD_FAILURE() << "accepted";
    } catch (const std::runtime_error& error) {
      EXPECT_THAT(error.what(), HasSubstr(named));
    }
  }
}

}  // namespace
}  // namespace pstrain
