// Tests for artifact.json's one owner (trainer/shards/artifact.h): every field of ShardArtifact
// round-trips, the written keys (top-level and nested) are the ones the parser knows, and the
// parser refuses each of them missing or an unknown one beside them.
#include "shards/artifact.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <boost/pfr/core.hpp>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace pstrain {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;

// A field added to one of these structs and not set below fails here: set it in FullArtifact (and
// write and parse it in artifact.cpp), then update the count.
static_assert(boost::pfr::tuple_size_v<ShardArtifact> == 15, "FullArtifact must set every ShardArtifact field");
static_assert(boost::pfr::tuple_size_v<PayloadFile> == 3, "FullArtifact must set every PayloadFile field");
static_assert(boost::pfr::tuple_size_v<SkippedUtterance> == 2, "FullArtifact must set every SkippedUtterance field");
static_assert(boost::pfr::tuple_size_v<PassFingerprints> == 4, "FullArtifact must set every PassFingerprints field");

// Every field set, each to a value no other field has and none the default.
ShardArtifact FullArtifact() {
  ShardArtifact a;
  a.pass = 7;
  a.shard = 2;
  a.shard_count = 5;
  a.fingerprints = {"fp-pass", "fp-model", "fp-config", "fp-manifest"};
  a.code_identity = "code-identity";
  a.assigned_ids = {"u1", "u2", "u3", "u4"};
  a.processed_ids = {"u1", "u2", "u4"};
  a.processed_frames = {101, 202, 303};
  a.retried_ids = {"u2"};
  a.skipped = {{"u3", "no path to the final state"}, {"u9", "missing features"}};
  a.total_frames = 606;
  a.log_likelihood = "-1234.5";
  a.log_likelihood_exact = "fffffffffffffb2d8000000000000000";
  a.payload = {{"gauden_counts", 11, "aa11"}, {"mixw_counts", 22, "bb22"}, {"tmat_counts", 33, "cc33"}, {"exact_counts", 44, "dd44"}};
  a.payload_sha256 = PayloadDigest(a.payload);
  return a;
}

// The strict reader's words for a missing member (appended, not `"\"" + ...`: GCC 12 warns
// -Wrestrict, wrongly, on that form here).
std::string Missing(std::string_view field) {
  std::string message = "\"";
  message.append(field).append("\" is missing");
  return message;
}

std::vector<std::string> Keys(const json::object& o) {
  std::vector<std::string> keys;
  for (const auto& member : o) keys.emplace_back(member.key());
  return keys;
}

TEST(ShardArtifact, EveryFieldRoundTrips) {
  const ShardArtifact full = FullArtifact();
  const std::string text = SerializeArtifact(full);
  const ShardArtifact back = ParseArtifact(text, "SHARD/artifact.json");
  // Field by field, so that a failure names the field.
  EXPECT_EQ(back.pass, full.pass);
  EXPECT_EQ(back.shard, full.shard);
  EXPECT_EQ(back.shard_count, full.shard_count);
  EXPECT_EQ(back.fingerprints.pass, full.fingerprints.pass);
  EXPECT_EQ(back.fingerprints.model, full.fingerprints.model);
  EXPECT_EQ(back.fingerprints.config, full.fingerprints.config);
  EXPECT_EQ(back.fingerprints.manifest, full.fingerprints.manifest);
  EXPECT_EQ(back.code_identity, full.code_identity);
  EXPECT_EQ(back.assigned_ids, full.assigned_ids);
  EXPECT_EQ(back.processed_ids, full.processed_ids);
  EXPECT_EQ(back.processed_frames, full.processed_frames);
  EXPECT_EQ(back.retried_ids, full.retried_ids);
  ASSERT_EQ(back.skipped.size(), full.skipped.size());
  for (std::size_t i = 0; i < full.skipped.size(); ++i) {
    EXPECT_EQ(back.skipped[i].id, full.skipped[i].id) << i;
    EXPECT_EQ(back.skipped[i].reason, full.skipped[i].reason) << i;
  }
  EXPECT_EQ(back.total_frames, full.total_frames);
  EXPECT_EQ(back.log_likelihood, full.log_likelihood);
  EXPECT_EQ(back.log_likelihood_exact, full.log_likelihood_exact);
  ASSERT_EQ(back.payload.size(), full.payload.size());
  for (std::size_t i = 0; i < full.payload.size(); ++i) {
    EXPECT_EQ(back.payload[i].name, full.payload[i].name) << i;
    EXPECT_EQ(back.payload[i].size, full.payload[i].size) << i;
    EXPECT_EQ(back.payload[i].sha256, full.payload[i].sha256) << i;
  }
  EXPECT_EQ(back.payload_sha256, full.payload_sha256);
  // And as a whole (operator== covers any field the lines above miss).
  EXPECT_TRUE(back == full);
  EXPECT_EQ(SerializeArtifact(back), text);
}

TEST(ShardArtifact, WrittenKeysAreTheOnesTheParserKnows) {
  const json::object o = json::parse(SerializeArtifact(FullArtifact())).as_object();
  std::vector<std::string> listed;
  for (std::string_view f : ShardArtifactFields()) listed.emplace_back(f);
  EXPECT_EQ(Keys(o), listed);
  EXPECT_EQ(o.at("format").as_string(), kArtifactFormat);
  EXPECT_EQ(Keys(o.at("fingerprints").as_object()), (std::vector<std::string>{"pass", "model", "config", "manifest"}));
  EXPECT_EQ(Keys(o.at("skipped").as_array().at(0).as_object()), (std::vector<std::string>{"id", "reason"}));
  EXPECT_EQ(Keys(o.at("payload").as_array().at(0).as_object()), (std::vector<std::string>{"file", "size", "sha256"}));
}

// The parser needs every written key (top-level and nested) and refuses one it does not know, so a
// key written and not read, or read and not written, fails here or in the round trip.
TEST(ShardArtifact, ParserNeedsEveryWrittenKeyAndNoOther) {
  const std::string text = SerializeArtifact(FullArtifact());
  const json::object full = json::parse(text).as_object();
  const auto refuses = [](const json::object& o, const std::string& named) {
    try {
      ParseArtifact(json::serialize(o) + "\n", "SHARD/artifact.json");
      ADD_FAILURE() << "accepted without or with " << named;
    } catch (const InputError& error) {  // FileError: "PATH: artifact: ..."
      EXPECT_THAT(error.what(), HasSubstr("SHARD/artifact.json")) << named;
      EXPECT_THAT(error.what(), HasSubstr(named)) << error.what();
    }
  };
  // Each nested object's members, as the error names them.
  const std::pair<const char*, std::function<json::object&(json::object&)>> nested[] = {
      {"fingerprints", [](json::object& o) -> json::object& { return o["fingerprints"].as_object(); }},
      {"skipped", [](json::object& o) -> json::object& { return o["skipped"].as_array()[1].as_object(); }},
      {"payload", [](json::object& o) -> json::object& { return o["payload"].as_array()[2].as_object(); }},
  };
  for (const std::string& key : Keys(full)) {
    json::object o = full;
    o.erase(key);
    refuses(o, Missing(key));
  }
  for (const auto& [name, member] : nested) {
    json::object copy = full;
    for (const std::string& key : Keys(member(copy))) {
      json::object o = full;
      member(o).erase(key);
      refuses(o, Missing(std::string(name) + "." + key));
    }
    json::object o = full;
    member(o)["extra"] = 1;
    refuses(o, "unknown member \"extra\"");
  }
  json::object o = full;
  o["extra"] = 1;
  refuses(o, "unknown member \"extra\"");
}

}  // namespace
}  // namespace pstrain
