// Tests for passes/NNN/telemetry.json's one owner (trainer/coordinator/pass_telemetry.h): every field
// round-trips, the written keys are the field list in order, and the strict reader names what it
// refuses.
#include "coordinator/pass_telemetry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

namespace pstrain {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;

PassTelemetry FullTelemetry() {
  PassTelemetry t;
  t.pid = 77;
  t.host = "node-a";
  t.start = "2026-12-06T19:04:02.440Z";
  t.launcher = "local";
  t.shards = {{0, 0.450137942, 0.456175963, 0.466011903}, {1, 0.486783104, 0.490390181, 0.496638844}};
  t.reduced_seconds = 0.496647246;
  t.reestimated_seconds = 0.498712523;
  t.written_seconds = 0.515244555;
  t.user_cpu_seconds = 0.024189;
  t.system_cpu_seconds = 0.021119;
  t.children_user_cpu_seconds = 0.860561;
  t.children_system_cpu_seconds = 0.067141;
  return t;
}

TEST(PassTelemetry, EveryFieldRoundTripsInTheListedOrder) {
  const std::string text = SerializePassTelemetry(FullTelemetry());
  EXPECT_TRUE(ParsePassTelemetry(text) == FullTelemetry());
  EXPECT_EQ(SerializePassTelemetry(ParsePassTelemetry(text)), text);
  std::vector<std::string> written, listed;
  const json::value parsed = json::parse(text);
  for (const auto& member : parsed.as_object()) written.emplace_back(member.key());
  for (std::string_view f : PassTelemetryFields()) listed.emplace_back(f);
  EXPECT_EQ(written, listed);

  // No getrusage: "unavailable", read back as such.
  PassTelemetry unmeasured = FullTelemetry();
  unmeasured.user_cpu_seconds.reset();
  unmeasured.children_system_cpu_seconds.reset();
  const std::string unmeasured_text = SerializePassTelemetry(unmeasured);
  EXPECT_THAT(unmeasured_text, HasSubstr("\"user_cpu_seconds\":\"unavailable\""));
  EXPECT_THAT(unmeasured_text, HasSubstr("\"children_system_cpu_seconds\":\"unavailable\""));
  EXPECT_TRUE(ParsePassTelemetry(unmeasured_text) == unmeasured);
}

TEST(PassTelemetry, ReaderNamesTheFieldItRefuses) {
  const std::string good = SerializePassTelemetry(FullTelemetry());
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  const std::pair<std::string, const char*> cases[] = {
      {R"({"format":"pstrain-pass-telemetry-1","pid":1})", "\"host\" is missing"},
      {replaced("pstrain-pass-telemetry-1", "pstrain-pass-telemetry-9"), "\"format\" is not \"pstrain-pass-telemetry-1\""},
      {replaced("\"pid\":77", "\"pid\":0"), "\"pid\" is not a positive integer"},
      {replaced("\"launcher\":\"local\"", "\"launcher\":3"), "\"launcher\" is not a string"},
      {replaced("\"launcher\":\"local\"", "\"launcher\":\"remote\""), "\"launcher\" is not inline, local or slurm"},
      {replaced("\"written_seconds\":5.15244555E-1", "\"written_seconds\":-1"), "\"written_seconds\" is not a finite number of seconds"},
      {replaced("{\"shard\":1,", "{\"shard\":2,"), "\"shards[1].shard\" is not 1"},
      {replaced("\"reported_seconds\":4.50137942E-1", "\"reported_seconds\":\"soon\""), "\"shards[0].reported_seconds\" is not a number"},
      {replaced("\"validated_seconds\":4.56175963E-1,", ""), "\"shards[0].validated_seconds\" is missing"},
      {replaced("\"reduced_seconds\":4.66011903E-1}", "\"reduced_seconds\":4.66011903E-1,\"x\":1}"), "unknown member \"x\""},
      {replaced("\"written_seconds\"", "\"written\""), "unknown member \"written\""},
      {replaced("\"children_user_cpu_seconds\":8.60561E-1", "\"children_user_cpu_seconds\":\"n/a\""),
       "\"children_user_cpu_seconds\" is not a number"},
  };
  for (const auto& [text, named] : cases) {
    SCOPED_TRACE(text);
    try {
      ParsePassTelemetry(text);
      ADD_FAILURE() << "accepted";
    } catch (const std::runtime_error& error) {
      EXPECT_THAT(error.what(), HasSubstr(named));
    }
  }
}

}  // namespace
}  // namespace pstrain
