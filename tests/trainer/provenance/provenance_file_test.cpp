// Tests for provenance.json's one owner (trainer/provenance/provenance_file.h): every field the
// writer writes is in the field list that `audit compare` reads, and back.
#include "provenance/provenance_file.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace pstrain {
namespace {

namespace json = boost::json;

ProvenanceRecord FullRecord() {
  ProvenanceRecord r;
  r.identity.build = {"1.2.3", "x86_64", "g++ 12", "b1", {{"libc.so.6", "c1"}, {"libm.so.6", "c2"}}};
  r.identity.config_fingerprint = "cf";
  r.identity.canonical_config = "abeam 1e-90\nbbeam 1e-40\n";
  r.identity.manifest_fingerprint = "mf";
  r.identity.input_model_fingerprint = "imf";
  r.identity.requested_jobs = 4;
  r.identity.shard_count = 3;
  r.identity.reduction = "exact";
  r.identity.min_passes = 2;
  r.identity.max_passes = 9;
  r.identity.convergence = 0.25;
  r.training_fingerprint = "tf";
  r.launcher = "slurm";
  r.host = "node-a";
  json::object nodes{{"pass", 1}, {"nodes", json::array{"n1", "n2", "n1"}}};
  r.shard_nodes.push_back(nodes);
  r.model_files.push_back(json::object{{"file", "means"}, {"sha256", "m1"}});
  r.passes.push_back(json::object{{"pass", 1}});
  r.stop_decision = "converged";
  return r;
}

// The paths of a parsed provenance.json at the granularity of the field list: members of
// "inputs" one by one, every other top-level member whole.
std::set<std::string> Paths(const json::object& root) {
  std::set<std::string> paths;
  for (const auto& [key, value] : root) {
    if (key == "inputs") {
      for (const auto& member : value.as_object()) paths.insert("inputs." + std::string(member.key()));
    } else {
      paths.insert(std::string(key));
    }
  }
  return paths;
}

TEST(ProvenanceFileTest, WriterAndFieldListAgree) {
  const json::object root = json::parse(ProvenanceJson(FullRecord())).as_object();
  std::set<std::string> listed;
  for (const ProvenanceField& f : ProvenanceFields()) EXPECT_TRUE(listed.insert(f.path).second) << "listed twice: " << f.path;
  EXPECT_EQ(Paths(root), listed);
}

TEST(ProvenanceFileTest, OptionalFieldsAreTheOnlyOnesOmitted) {
  ProvenanceRecord r = FullRecord();
  r.shard_nodes.clear();
  const std::set<std::string> written = Paths(json::parse(ProvenanceJson(r)).as_object());
  for (const ProvenanceField& f : ProvenanceFields()) {
    EXPECT_EQ(written.count(f.path) == 1, !f.optional) << f.path;
  }
}

TEST(ProvenanceFileTest, EveryFieldRoundTrips) {
  const ProvenanceRecord r = FullRecord();
  const std::string text = ProvenanceJson(r);
  ASSERT_TRUE(text.ends_with("}\n"));
  const json::object root = json::parse(text).as_object();
  EXPECT_EQ(root.at("format").as_string(), kProvenanceFormat);
  EXPECT_EQ(root.at("pstrain_version").as_string(), "1.2.3");
  EXPECT_EQ(root.at("architecture").as_string(), "x86_64");
  EXPECT_EQ(root.at("compiler").as_string(), "g++ 12");
  EXPECT_EQ(root.at("binary_sha256").as_string(), "b1");
  EXPECT_EQ(json::serialize(root.at("libraries")),
            R"([{"file":"libc.so.6","sha256":"c1"},{"file":"libm.so.6","sha256":"c2"}])");
  EXPECT_EQ(root.at("training_fingerprint").as_string(), "tf");
  EXPECT_EQ(root.at("requested_jobs").as_int64(), 4);
  EXPECT_EQ(root.at("effective_shard_count").as_int64(), 3);
  EXPECT_EQ(root.at("reduction").as_string(), "exact");
  EXPECT_EQ(root.at("launcher").as_string(), "slurm");
  EXPECT_EQ(root.at("host").as_string(), "node-a");
  EXPECT_EQ(json::serialize(root.at("shard_nodes")), R"([{"pass":1,"nodes":["n1","n2","n1"]}])");
  const json::object& inputs = root.at("inputs").as_object();
  EXPECT_EQ(inputs.at("config_fingerprint").as_string(), "cf");
  EXPECT_EQ(inputs.at("manifest_fingerprint").as_string(), "mf");
  EXPECT_EQ(inputs.at("input_model_fingerprint").as_string(), "imf");
  EXPECT_EQ(inputs.at("config").as_string(), "abeam 1e-90\nbbeam 1e-40\n");
  EXPECT_EQ(json::serialize(root.at("stop_rule")), R"({"min_passes":2,"max_passes":9,"convergence":2.5E-1})");
  EXPECT_EQ(root.at("stop_decision").as_string(), "converged");
  EXPECT_EQ(json::serialize(root.at("model_files")), R"([{"file":"means","sha256":"m1"}])");
  EXPECT_EQ(json::serialize(root.at("passes")), R"([{"pass":1}])");
}

}  // namespace
}  // namespace pstrain
