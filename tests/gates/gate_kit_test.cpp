// The gate kit's helpers check for real (a mismatch is a GoogleTest failure) and record every call
// in the ledger, with its subjects and result.
#include "gate_kit.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/file_io.h"

namespace pstrain::gates {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

class GateKitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("gate_kit_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "a");
    fs::create_directories(dir_ / "b");
    ledger_ = dir_ / "ledger.jsonl";
    ::setenv("PSTRAIN_GATE_LEDGER", ledger_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("PSTRAIN_GATE_LEDGER");
    fs::remove_all(dir_);
  }
  std::vector<json::object> Ledger() const {
    std::vector<json::object> records;
    std::ifstream in(ledger_);
    for (std::string line; std::getline(in, line);) records.push_back(json::parse(line).as_object());
    return records;
  }
  void Write(const std::string& relative, const std::string& text) { WriteFileAtomic(dir_ / relative, text); }
  fs::path dir_, ledger_;
};

TEST_F(GateKitTest, DeclarationIsRecordedAndCertifiesNothing) {
  Gate gate({"fixed-count-reproducibility", {2}, 3, "one machine"});
  const auto records = Ledger();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].at("record").as_string(), "declaration");
  EXPECT_EQ(records[0].at("gate").as_string(), "GateKitTest.DeclarationIsRecordedAndCertifiesNothing");
  EXPECT_EQ(records[0].at("kind").as_string(), "fixed-count-reproducibility");
  EXPECT_EQ(json::serialize(records[0].at("shard_counts")), "[2]");
  EXPECT_EQ(records[0].at("passes").to_number<int>(), 3);
}

TEST_F(GateKitTest, IdenticalFilesPassAndAreRecorded) {
  Write("a/means", "same");
  Write("b/means", "same");
  Gate gate({"k", {1}, 1, ""});
  EXPECT_TRUE(gate.ExpectProducedFilesIdentical(dir_ / "a", dir_ / "b", {"means"}));
  const auto records = Ledger();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].at("helper").as_string(), "ExpectProducedFilesIdentical");
  EXPECT_EQ(json::serialize(records[1].at("subjects")), "[\"means\"]");
  EXPECT_EQ(records[1].at("result").as_string(), "pass");
  // The call site (std::source_location of the call) and the ledger format.
  EXPECT_EQ(records[1].at("ledger_format").to_number<int>(), 2);
  EXPECT_EQ(fs::path(std::string(records[1].at("file").as_string())).filename(), "gate_kit_test.cpp");
  EXPECT_GT(records[1].at("line").to_number<int>(), 0);
  EXPECT_GT(records[1].at("column").to_number<int>(), 0);
}

TEST_F(GateKitTest, DifferentOrMissingFilesFailTheTestAndAreRecordedAsFailed) {
  Write("a/means", "one");
  Write("b/means", "two");
  Gate gate({"k", {1}, 1, ""});
  EXPECT_NONFATAL_FAILURE(gate.ExpectProducedFilesIdentical(dir_ / "a", dir_ / "b", {"means"}), "means");
  EXPECT_NONFATAL_FAILURE(gate.ExpectCopiedInputsIdentical(dir_ / "a", dir_ / "b", {"mdef"}), "mdef");
  EXPECT_NONFATAL_FAILURE(gate.ExpectProducedFilesIdentical(dir_ / "a", dir_ / "b", {}), "checks nothing");
  const auto records = Ledger();
  ASSERT_EQ(records.size(), 4u);
  for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(records[i].at("result").as_string(), "fail") << i;
}

TEST_F(GateKitTest, AFileDifferenceNamesBothPathsAndTheFirstDifferingOffset) {
  Write("a/means", "abcdefgh");
  Write("b/means", "abcdXfghij");
  Gate gate({"k", {1}, 1, ""});
  EXPECT_NONFATAL_FAILURE(gate.ExpectProducedFilesIdentical(dir_ / "a", dir_ / "b", {"means"}),
                          "means differs: first difference at byte 4 (sizes 8 and 10)");
  EXPECT_NONFATAL_FAILURE(gate.ExpectProducedFilesIdentical(dir_ / "a", dir_ / "b", {"variances"}), "variances missing in");
  std::string detail(Ledger()[1].at("detail").as_string());
  EXPECT_NE(detail.find("means differs: first difference at byte 4 (sizes 8 and 10); sha256 "), std::string::npos) << detail;
  EXPECT_NE(detail.find((dir_ / "a" / "means").string() + " vs " + (dir_ / "b" / "means").string()), std::string::npos) << detail;
  detail = std::string(Ledger()[2].at("detail").as_string());
  EXPECT_NE(detail.find("variances missing in " + (dir_ / "a" / "variances").string() + " and in " + (dir_ / "b" / "variances").string()),
            std::string::npos)
      << detail;
}

TEST_F(GateKitTest, RunRecordSaysWhatRan) {
  Gate gate({"k", {2}, 3, ""});
  GateRun run;
  run.profile = "quick";
  run.shard_counts = {1, 3};
  run.passes = 2;
  run.corpus = "override";
  run.corpus_manifest = "/c/small.manifest";
  run.utterances = 8;
  run.manifest_fingerprint = "ab";
  run.pstrain = "/bin/pstrain";
  run.overrides_applied = {"PSTRAIN_GATE_PASSES=2"};
  run.overrides_ignored = {"PSTRAIN_GATE_SHARDS=1,3: fixed"};
  gate.RecordRun(run);
  const auto records = Ledger();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].at("record").as_string(), "run");
  EXPECT_EQ(records[1].at("gate").as_string(), "GateKitTest.RunRecordSaysWhatRan");
  EXPECT_EQ(json::serialize(records[1].at("shard_counts")), "[1,3]");
  EXPECT_EQ(records[1].at("passes").to_number<int>(), 2);
  EXPECT_EQ(records[1].at("corpus").at("manifest").as_string(), "/c/small.manifest");
  EXPECT_EQ(records[1].at("corpus").at("utterances").to_number<int>(), 8);
  EXPECT_EQ(json::serialize(records[1].at("overrides_ignored")), "[\"PSTRAIN_GATE_SHARDS=1,3: fixed\"]");
}

TEST_F(GateKitTest, JsonFieldsByDottedPath) {
  Write("a/pass.json", R"({"totals":{"total_frames":10},"stop_decision":"continue"})");
  Write("b/pass.json", R"({"totals":{"total_frames":11},"stop_decision":"continue"})");
  Gate gate({"k", {1, 2}, 3, ""});
  EXPECT_TRUE(gate.ExpectJsonFieldsEqual(dir_ / "a/pass.json", dir_ / "b/pass.json", {"stop_decision"}));
  EXPECT_NONFATAL_FAILURE(gate.ExpectJsonFieldsEqual(dir_ / "a/pass.json", dir_ / "b/pass.json", {"totals.total_frames"}),
                          "totals.total_frames");
  EXPECT_NONFATAL_FAILURE(gate.ExpectJsonFieldsEqual(dir_ / "a/pass.json", dir_ / "b/pass.json", {"no.such"}), "no.such");
}

TEST_F(GateKitTest, ProvenanceRelations) {
  Write("a/provenance.json", R"({"effective_shard_count":1,"manifest":"x"})");
  Write("b/provenance.json", R"({"effective_shard_count":2,"manifest":"x"})");
  Gate gate({"provenance-comparison", {1, 2}, 1, ""});
  const fs::path a = dir_ / "a/provenance.json", b = dir_ / "b/provenance.json";
  EXPECT_TRUE(gate.ExpectProvenanceField(a, b, "effective_shard_count", FieldRelation::kDifferent));
  EXPECT_TRUE(gate.ExpectProvenanceField(a, b, "manifest", FieldRelation::kEqual));
  EXPECT_TRUE(gate.ExpectProvenanceField(a, b, "manifest", FieldRelation::kPresent));
  EXPECT_NONFATAL_FAILURE(gate.ExpectProvenanceField(a, b, "effective_shard_count", FieldRelation::kEqual), "effective_shard_count");
  EXPECT_NONFATAL_FAILURE(gate.ExpectProvenanceField(a, b, "host", FieldRelation::kPresent), "host");
}

TEST_F(GateKitTest, RejectionAndTolerance) {
  Gate gate({"artifact-validation", {3}, 1, ""});
  EXPECT_TRUE(gate.ExpectRejected("copy", 1, "REJECTED copy: shard 0 rejected by check \"payload-sha256\" (x)", "payload-sha256"));
  EXPECT_NONFATAL_FAILURE(gate.ExpectRejected("copy", 0, "VALID copy", "payload-sha256"), "payload-sha256");
  EXPECT_NONFATAL_FAILURE(gate.ExpectRejected("copy", 1, "REJECTED copy: check \"coverage\"", "payload-sha256"), "payload-sha256");
  EXPECT_TRUE(gate.ExpectWithin("loglik", 100.0005, 100.0, 1e-5, 0.0));
  EXPECT_NONFATAL_FAILURE(gate.ExpectWithin("loglik", 100.01, 100.0, 1e-5, 0.0), "loglik");
  const auto records = Ledger();
  EXPECT_EQ(records.back().at("helper").as_string(), "ExpectWithin");
  EXPECT_EQ(records.back().at("result").as_string(), "fail");
}

TEST_F(GateKitTest, NoLedgerWithoutTheEnvironmentVariable) {
  ::unsetenv("PSTRAIN_GATE_LEDGER");
  Gate gate({"k", {1}, 1, ""});
  EXPECT_TRUE(gate.ExpectWithin("x", 1.0, 1.0, 0.0, 0.0));
  EXPECT_FALSE(fs::exists(ledger_));
}

}  // namespace
}  // namespace pstrain::gates
