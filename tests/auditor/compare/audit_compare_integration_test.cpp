// `audit compare` end to end on models trained with `pstrain train` on the default corpus (the small
// eight-utterance manifest, two passes): identical runs (exit 0); --jobs 1 vs --jobs 2 in exact
// mode (byte-identical models, provenance differs: exit 1, explained); float32 with different shard
// counts (the expected cause); one mean element changed by hand (located, and recognized as made
// after training); the same change recorded in provenance under the same fingerprint (a
// reproducibility failure); a shape difference; a missing file; corrupt files (exit 2 naming the
// file). The HTML page is well-formed XML and renders in headless Chromium.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "common/file_io.h"
#include "common/sha256.h"
#include "formats/param_files.h"
#include "support/html_check_util.h"
#include "support/shard_fixture.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

class AuditCompare : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(AuditBinary())) << "the audit binary is missing: " << AuditBinary();
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = FreshDir(std::string("audit-compare/") + info->name());
    corpus_ = SmallCorpus(dir_);
  }

  // Trains `name` (two passes) and returns its model directory.
  fs::path Train(const std::string& name, const std::string& options) {
    const fs::path run = dir_ / name;
    const CommandResult r = RunCommand(TrainCommand(corpus_, run, "--quiet --min-passes 2 --max-passes 2 " + options));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return run / "model";
  }

  // A copy of `model` named `name`, to be edited.
  fs::path Copy(const fs::path& model, const std::string& name) {
    const fs::path copy = dir_ / name;
    fs::copy(model, copy, fs::copy_options::recursive);
    return copy;
  }

  CommandResult Compare(const fs::path& a, const fs::path& b, const std::string& extra = "") {
    return RunCommand(ShellQuote(AuditBinary().string()) + " compare " + ShellQuote(a.string()) + " " +
                      ShellQuote(b.string()) + " " + extra);
  }
  json::value CompareJson(const fs::path& a, const fs::path& b, int expected_exit) {
    const fs::path out = dir_ / "report.json";
    const CommandResult r = Compare(a, b, "--format json --out " + ShellQuote(out.string()));
    EXPECT_EQ(r.exit_code, expected_exit) << r.output;
    return json::parse(ReadFileText(out));
  }
  // Writes the HTML page for a and b and returns xmllint's complaints ("" when well-formed).
  std::string HtmlErrors(const fs::path& a, const fs::path& b, const std::string& name) {
    const fs::path page = dir_ / (name + ".html");
    const CommandResult r = Compare(a, b, "--format html --out " + ShellQuote(page.string()));
    if (r.exit_code != 0 && r.exit_code != 1) return "exit " + std::to_string(r.exit_code) + ": " + r.output;
    return XmlWellFormednessErrors(page);
  }
  static bool HasCode(const json::value& report, const char* list, const std::string& code) {
    for (const json::value& f : report.at(list).as_array()) {
      if (f.at("code").as_string() == code) return true;
    }
    return false;
  }
  static std::string Field(const json::value& report, const std::string& field, const char* side) {
    for (const json::value& f : report.at("provenance").at("fields").as_array()) {
      if (f.at("field").as_string() == field) return f.at(side).is_null() ? "(null)" : std::string(f.at(side).as_string());
    }
    return "(no such field)";
  }

  fs::path dir_;
  CorpusFixture corpus_;
};

TEST_F(AuditCompare, TwoIdenticalRunsExitZero) {
  const fs::path a = Train("a", "--jobs 2");
  const fs::path b = Train("b", "--jobs 2");
  const CommandResult text = Compare(a, b);
  EXPECT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("result: IDENTICAL"), std::string::npos) << text.output;
  const json::value report = CompareJson(a, b, 0);
  EXPECT_EQ(report.at("result").as_string(), "identical");
  EXPECT_EQ(report.at("counts").at("entries").to_number<int>(), 8);
  EXPECT_TRUE(report.at("provenance_identical").as_bool());
  EXPECT_EQ(report.at("parameters").as_array().size(), 4u);
}

// Exact reduction: --jobs 1 and --jobs 2 give byte-identical models; only provenance.json differs,
// which is a difference (exit 1) that the report explains.
TEST_F(AuditCompare, ExactModeShardCountsDifferOnlyInProvenance) {
  const fs::path a = Train("j1", "--jobs 1");
  const fs::path b = Train("j2", "--jobs 2");
  const json::value report = CompareJson(a, b, 1);
  EXPECT_TRUE(report.at("parameters_identical").as_bool());
  EXPECT_FALSE(report.at("provenance_identical").as_bool());
  EXPECT_EQ(report.at("counts").at("different").to_number<int>(), 1);
  EXPECT_TRUE(HasCode(report, "explanations", "provenance-only")) << report;
  EXPECT_EQ(Field(report, "effective_shard_count", "a"), "1");
  EXPECT_EQ(Field(report, "effective_shard_count", "b"), "2");
  EXPECT_EQ(report.at("provenance").at("fields").at(0).at("field").as_string(), "effective_shard_count");
  // Same likelihood trajectory, pass by pass.
  const json::array& likelihoods = report.at("provenance").at("log_likelihood_per_frame").as_array();
  ASSERT_EQ(likelihoods.size(), 2u);
  for (const json::value& p : likelihoods) EXPECT_EQ(p.at("a"), p.at("b"));
  const CommandResult text = Compare(a, b);
  EXPECT_NE(text.output.find("Every model file is byte-identical; only provenance.json differs. Both models were "
                             "trained with exact reduction and different effective shard counts (A 1, B 2)"),
            std::string::npos)
      << text.output;
}

// float32 reduction: the shard count changes the sums; the report names that as the expected cause.
// The HTML page (heat maps, likelihood plot) is checked here, on real differences.
TEST_F(AuditCompare, Float32ShardCountsAreTheExpectedCause) {
  const fs::path a = Train("f1", "--jobs 1 --reduction float32");
  const fs::path b = Train("f2", "--jobs 2 --reduction float32");
  const json::value report = CompareJson(a, b, 1);
  EXPECT_FALSE(report.at("parameters_identical").as_bool());
  EXPECT_TRUE(HasCode(report, "explanations", "float32-shard-count")) << report;
  EXPECT_FALSE(HasCode(report, "explanations", "reproducibility-failure")) << report;
  EXPECT_FALSE(HasCode(report, "explanations", "modified-after-training")) << report;
  bool any_differing = false;
  for (const json::value& p : report.at("parameters").as_array()) {
    any_differing = any_differing || p.at("differing").to_number<int>() > 0;
  }
  EXPECT_TRUE(any_differing);
  const CommandResult text = Compare(a, b);
  EXPECT_NE(text.output.find("Expected cause: both models were trained with float32 reduction and different "
                             "effective shard counts (A 1, B 2)"),
            std::string::npos)
      << text.output;

  const fs::path page = dir_ / "compare.html";
  const CommandResult html = Compare(a, b, "--format html --out " + ShellQuote(page.string()));
  EXPECT_EQ(html.exit_code, 1) << html.output;
  const std::string content = ReadFileText(page);
  EXPECT_NE(content.find("heat map of means"), std::string::npos);
  EXPECT_NE(content.find("log-likelihood per frame by pass"), std::string::npos);
  EXPECT_EQ(XmlWellFormednessErrors(page), "");
  EXPECT_EQ(ChromiumRenderErrors(page, dir_ / "compare.png"), "");
}

// One mean element changed by hand: located (state, density, dimension, both values), and not
// mistaken for a reproducibility failure, since B's means no longer matches its recorded digest.
// Recording the new digest in B's provenance.json under the same training fingerprint makes it one.
TEST_F(AuditCompare, OneMeanElementChanged) {
  const fs::path a = Train("a", "--jobs 1");
  const fs::path b = Copy(a, "b");
  GaussianParams means = ReadGaussianFile((b / "means").string());
  const float before = means.data[means.Offset(7, 0, 0) + 3];
  means.data[means.Offset(7, 0, 0) + 3] = before + 0.125f;
  WriteGaussianFile((b / "means").string(), means);

  json::value report = CompareJson(a, b, 1);
  const json::value& p = report.at("parameters").at(0);
  ASSERT_EQ(p.at("path").as_string(), "means");
  EXPECT_EQ(p.at("differing").to_number<int>(), 1);
  const json::value& max_abs = p.at("max_abs");
  EXPECT_EQ(max_abs.at("index").at("state").to_number<int>(), 7);
  EXPECT_EQ(max_abs.at("index").at("density").to_number<int>(), 0);
  EXPECT_EQ(max_abs.at("index").at("dimension").to_number<int>(), 3);
  // Boost.JSON's default parser is not correctly rounded: compare as floats.
  EXPECT_FLOAT_EQ(static_cast<float>(max_abs.at("a").to_number<double>()), before);
  EXPECT_FLOAT_EQ(static_cast<float>(max_abs.at("b").to_number<double>()), before + 0.125f);
  EXPECT_EQ(max_abs.at("state_label").as_string(), "AH, emitting state 1");  // from the real mdef
  for (std::size_t i = 1; i < report.at("parameters").as_array().size(); ++i) {
    EXPECT_EQ(report.at("parameters").at(i).at("differing").to_number<int>(), 0);
  }
  EXPECT_TRUE(HasCode(report, "explanations", "modified-after-training")) << report;
  EXPECT_TRUE(HasCode(report, "explanations", "not-from-training")) << report;
  EXPECT_FALSE(HasCode(report, "explanations", "reproducibility-failure")) << report;
  EXPECT_EQ(HtmlErrors(a, b, "one-mean"), "");
  EXPECT_EQ(ChromiumRenderErrors(dir_ / "one-mean.html", dir_ / "one-mean.png"), "");
  const CommandResult text = Compare(a, b);
  EXPECT_NE(text.output.find("means: 1 of 3978 elements differ; 1 outside rtol 0, atol 0; largest absolute "
                             "difference 0.125 at state 7 (AH, emitting state 1), stream 0, density 0, dimension 3"),
            std::string::npos)
      << text.output;
  // Within --atol 0.2 nothing is outside the tolerance; the bytes still differ.
  EXPECT_NE(Compare(a, b, "--atol 0.2").output.find("0 outside rtol 0, atol 0.2"), std::string::npos);

  // The same change as if training had written it: B's provenance records B's digest, the training
  // fingerprint stays A's.
  json::value provenance = json::parse(ReadFileText(b / "provenance.json"));
  for (json::value& f : provenance.at("model_files").as_array()) {
    if (f.at("file").as_string() == "means") f.as_object()["sha256"] = Sha256OfFile(b / "means");
  }
  WriteFileAtomic(b / "provenance.json", json::serialize(provenance) + "\n");
  report = CompareJson(a, b, 1);
  EXPECT_TRUE(HasCode(report, "explanations", "reproducibility-failure")) << report;
  EXPECT_FALSE(HasCode(report, "explanations", "modified-after-training")) << report;
  EXPECT_NE(Compare(a, b).output.find("Reproducibility failure: both provenance.json files record the same training "
                                      "fingerprint"),
            std::string::npos);
}

TEST_F(AuditCompare, ShapeMissingFileAndCorruptFiles) {
  const fs::path a = Train("a", "--jobs 1");

  // Shape: B's variances lose their last state.
  const fs::path shape = Copy(a, "shape");
  GaussianParams variances = ReadGaussianFile((shape / "variances").string());
  variances.n_mgau -= 1;
  variances.data.resize(variances.data.size() - variances.TotalVeclen() * variances.n_density);
  WriteGaussianFile((shape / "variances").string(), variances);
  json::value report = CompareJson(a, shape, 1);
  EXPECT_TRUE(HasCode(report, "differences", "shape-differs")) << report;
  EXPECT_EQ(HtmlErrors(a, shape, "shape"), "");
  for (const json::value& p : report.at("parameters").as_array()) {
    if (p.at("path").as_string() != "variances") continue;
    EXPECT_FALSE(p.at("same_shape").as_bool());
    EXPECT_EQ(p.at("shape_text_a").as_string(), "102 state x 1 stream x 1 density x 39 dimension");
    EXPECT_EQ(p.at("shape_text_b").as_string(), "101 state x 1 stream x 1 density x 39 dimension");
  }

  // Missing file.
  const fs::path missing = Copy(a, "missing");
  fs::remove(missing / "transition_matrices");
  report = CompareJson(a, missing, 1);
  EXPECT_EQ(report.at("counts").at("only_in_a").to_number<int>(), 1);
  EXPECT_TRUE(HasCode(report, "differences", "only-in-a")) << report;
  EXPECT_EQ(HtmlErrors(a, missing, "missing"), "");

  // Truncated parameter file: trouble, naming the file; no report on stdout.
  const fs::path truncated = Copy(a, "truncated");
  const std::vector<std::uint8_t> bytes = ReadFileBytes(truncated / "mixture_weights");
  WriteFileAtomic(truncated / "mixture_weights", std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + bytes.size() / 2));
  CommandResult r = Compare(a, truncated);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find((truncated / "mixture_weights").string()), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("result:"), std::string::npos) << r.output;

  // Corrupt provenance.json.
  const fs::path corrupt = Copy(a, "corrupt");
  WriteFileAtomic(corrupt / "provenance.json", std::string("{\"format\": \"pstrain-provenance-1\","));
  r = Compare(corrupt, a);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find((corrupt / "provenance.json").string() + ": not valid JSON"), std::string::npos) << r.output;

  // Unreadable (missing) directory.
  r = Compare(a, dir_ / "nowhere");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find((dir_ / "nowhere").string() + ": no such directory"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace pstrain::testing
