// `audit compare`: small synthetic model directories written with the trainer's writers — exit codes
// (0 identical, 1 different, 2 trouble naming the file), the element-wise parameter diff (where,
// how much, tolerance), shapes, missing files, the mdef line diff, provenance field by field, and
// the explanations (exact vs float32 shard counts, equal fingerprints, files changed after
// training), in text, JSON and HTML.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/file_io.h"
#include "common/sha256.h"
#include "compare/compare_command.h"
#include "report/command_runner.h"
#include "compare/model_compare.h"
#include "compare/provenance_diff.h"
#include "formats/param_files.h"
#include "report/line_diff.h"
#include "report/audit_error.h"
#include "shards/run_layout.h"
#include "support/test_helpers.h"

namespace pstrain::audit {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

constexpr const char* kMdef =
    "0.3\n2 n_base\n0 n_tri\n8 n_state_map\n6 n_tied_state\n6 n_tied_ci_state\n2 n_tied_tmat\n"
    "A - - - n/a 0 0 1 2 N\nB - - - n/a 1 3 4 5 N\n";

// 6 senones, 1 stream, 2 densities of dimension 3.
GaussianParams Gaussians(float base) {
  GaussianParams p = GaussianParams::OneStream(6, 2, 3);
  for (std::size_t i = 0; i < p.data.size(); ++i) p.data[i] = base + 0.25f * static_cast<float>(i);
  return p;
}

Array3D Array(std::uint32_t d1, std::uint32_t d2, std::uint32_t d3) {
  Array3D a;
  a.d1 = d1, a.d2 = d2, a.d3 = d3;
  a.data.resize(std::size_t(d1) * d2 * d3);
  for (std::size_t i = 0; i < a.data.size(); ++i) a.data[i] = 1.0f + static_cast<float>(i % 5);
  return a;
}

class AuditCompareTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / ("audit_compare_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    WriteModel(a());
    WriteModel(b());
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path a() const { return dir_ / "a"; }
  fs::path b() const { return dir_ / "b"; }

  static void Text(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

  // A model directory with a provenance.json that records its files' digests.
  static void WriteModel(const fs::path& dir, const std::string& reduction = "exact", int shards = 1,
                         const std::string& fingerprint = "f00d") {
    fs::create_directories(dir);
    Text(dir / "mdef", kMdef);
    WriteGaussianFile((dir / "means").string(), Gaussians(1.0f));
    WriteGaussianFile((dir / "variances").string(), Gaussians(2.0f));
    WriteArray3DFile((dir / "mixture_weights").string(), Array(6, 1, 2));
    WriteArray3DFile((dir / "transition_matrices").string(), Array(2, 3, 4));
    Text(dir / "feat.params", "-feat 1s_c_d_dd\n-cmn batch\n");
    WriteProvenance(dir, reduction, shards, fingerprint);
  }

  static void WriteProvenance(const fs::path& dir, const std::string& reduction, int shards,
                              const std::string& fingerprint, std::vector<double> likelihoods = {-13.0, -12.5}) {
    json::object p;
    p["format"] = "pstrain-provenance-1";
    p["pstrain_version"] = "0.1.0";
    p["training_fingerprint"] = fingerprint;
    p["requested_jobs"] = shards;
    p["effective_shard_count"] = shards;
    p["reduction"] = reduction;
    p["launcher"] = shards == 1 ? "inline" : "local";
    p["architecture"] = "x86_64";
    p["compiler"] = "12.2.0";
    p["binary_sha256"] = "b1";
    p["libraries"] = json::array{json::object{{"file", "libm.so.6"}, {"sha256", "11"}}};
    p["host"] = "vm";
    p["inputs"] = json::object{{"manifest_fingerprint", "m"},
                               {"input_model_fingerprint", "i"},
                               {"config_fingerprint", "c"},
                               {"config", "cmn=batch\nabeam=1e-90\nreduction=" + reduction + "\n"}};
    p["stop_rule"] = json::object{{"min_passes", 1}, {"max_passes", 2}, {"convergence", 0.1}};
    p["stop_decision"] = "max-passes";
    json::array files;
    for (const char* name : {"mdef", "means", "variances", "mixture_weights", "transition_matrices", "feat.params"}) {
      files.push_back(json::object{{"file", name}, {"sha256", Sha256OfFile(dir / name)}});
    }
    p["model_files"] = std::move(files);
    json::array passes;
    for (std::size_t i = 0; i < likelihoods.size(); ++i) {
      passes.push_back(json::object{{"pass", i + 1},
                                    {"shard_count", shards},
                                    {"totals", json::object{{"log_likelihood_per_frame", likelihoods[i]}}}});
    }
    p["passes"] = std::move(passes);
    Text(dir / "provenance.json", json::serialize(p) + "\n");
  }

  // Changes one mean element of `dir` (senone 4, density 1, dimension 2) by `delta`.
  static void BumpMean(const fs::path& dir, float delta) {
    GaussianParams means = ReadGaussianFile((dir / "means").string());
    means.data[means.Offset(4, 0, 1) + 2] += delta;
    WriteGaussianFile((dir / "means").string(), means);
  }

  int Run(std::vector<std::string> extra) {
    std::vector<std::string> args = {a().string(), b().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    std::ostringstream out, err;
    const int code = RunReportingErrors("compare", RunCompareCommand, args, out, err);
    out_ = out.str();
    err_ = err.str();
    return code;
  }
  json::value RunJson(std::vector<std::string> extra, int expected_code) {
    extra.push_back("--format");
    extra.push_back("json");
    EXPECT_EQ(Run(extra), expected_code) << out_ << err_;
    return json::parse(out_);
  }
  static bool HasCode(const json::value& report, const char* list, const std::string& code) {
    for (const json::value& f : report.at(list).as_array()) {
      if (f.at("code").as_string() == code) return true;
    }
    return false;
  }

  fs::path dir_;
  std::string out_, err_;
};

TEST_F(AuditCompareTest, IdenticalDirectoriesExitZero) {
  EXPECT_EQ(Run({}), 0) << out_ << err_;
  EXPECT_NE(out_.find("result: IDENTICAL"), std::string::npos) << out_;
  const json::value report = RunJson({}, 0);
  EXPECT_EQ(report.at("result").as_string(), "identical");
  EXPECT_EQ(report.at("counts").at("identical").to_number<int>(), 7);
  EXPECT_TRUE(report.at("parameters_identical").as_bool());
  EXPECT_TRUE(HasCode(report, "differences", "identical"));
  EXPECT_TRUE(report.at("explanations").as_array().empty());
  // Every file is listed with its SHA-256.
  for (const json::value& f : report.at("files").as_array()) {
    EXPECT_EQ(f.at("a").at("sha256").as_string().size(), 64u) << f;
  }
}

TEST_F(AuditCompareTest, OneMeanElementIsLocatedAndMeasured) {
  BumpMean(b(), 0.5f);
  EXPECT_EQ(Run({}), 1) << out_ << err_;
  EXPECT_NE(out_.find("means: 1 of 36 elements differ"), std::string::npos) << out_;
  EXPECT_NE(out_.find("state 4 (B, emitting state 1), stream 0, density 1, dimension 2"), std::string::npos) << out_;
  // B's means no longer matches the digest its provenance records; the fingerprints are equal, so
  // the report says the change was made after training, not by it.
  EXPECT_NE(out_.find("B/means does not match the SHA-256"), std::string::npos) << out_;
  EXPECT_EQ(out_.find("Reproducibility failure"), std::string::npos) << out_;

  const json::value report = RunJson({}, 1);
  EXPECT_FALSE(report.at("parameters_identical").as_bool());
  EXPECT_TRUE(HasCode(report, "explanations", "modified-after-training"));
  EXPECT_TRUE(HasCode(report, "explanations", "not-from-training"));
  const json::value& means = report.at("parameters").at(0);
  EXPECT_EQ(means.at("path").as_string(), "means");
  EXPECT_EQ(means.at("differing").to_number<int>(), 1);
  EXPECT_EQ(means.at("outside_tolerance").to_number<int>(), 1);
  const json::value& max_abs = means.at("max_abs");
  EXPECT_EQ(max_abs.at("index").at("state").to_number<int>(), 4);
  EXPECT_EQ(max_abs.at("index").at("density").to_number<int>(), 1);
  EXPECT_EQ(max_abs.at("index").at("dimension").to_number<int>(), 2);
  EXPECT_DOUBLE_EQ(max_abs.at("abs_diff").to_number<double>(), 0.5);
  EXPECT_EQ(max_abs.at("state_label").as_string(), "B, emitting state 1");
  EXPECT_EQ(means.at("top_states").at(0).at("state").to_number<int>(), 4);
  EXPECT_EQ(report.at("provenance").at("digest_mismatches").at(0).at("file").as_string(), "means");

  // Inside the tolerance: still different bytes (exit 1), but no element outside.
  const json::value tolerant = RunJson({"--atol", "0.6"}, 1);
  EXPECT_EQ(tolerant.at("parameters").at(0).at("outside_tolerance").to_number<int>(), 0);
  const json::value relative = RunJson({"--rtol", "1e-9"}, 1);
  EXPECT_EQ(relative.at("parameters").at(0).at("outside_tolerance").to_number<int>(), 1);
}

TEST_F(AuditCompareTest, ProvenanceOnlyDifferenceInExactModeIsExplained) {
  WriteProvenance(b(), "exact", 2, "beef");
  const json::value report = RunJson({}, 1);
  EXPECT_TRUE(report.at("parameters_identical").as_bool());
  EXPECT_FALSE(report.at("provenance_identical").as_bool());
  EXPECT_TRUE(HasCode(report, "explanations", "provenance-only"));
  const std::string text = std::string(report.at("explanations").at(0).at("text").as_string());
  EXPECT_NE(text.find("exact reduction and different effective shard counts (A 1, B 2)"), std::string::npos) << text;
  // The shard counts come first in the field-by-field comparison.
  const json::array& fields = report.at("provenance").at("fields").as_array();
  EXPECT_EQ(fields.at(0).at("field").as_string(), "effective_shard_count");
  EXPECT_FALSE(fields.at(0).at("equal").as_bool());
  EXPECT_EQ(fields.at(1).at("field").as_string(), "requested_jobs");
  EXPECT_EQ(fields.at(2).at("field").as_string(), "reduction");
  EXPECT_TRUE(fields.at(2).at("equal").as_bool());
}

TEST_F(AuditCompareTest, Float32WithDifferentShardCountsIsTheExpectedCause) {
  fs::remove_all(a());
  fs::remove_all(b());
  WriteModel(a(), "float32", 1, "f1");
  WriteModel(b(), "float32", 2, "f2");
  BumpMean(b(), 1e-6f);
  WriteProvenance(b(), "float32", 2, "f2");  // records the changed digest: as trained
  const json::value report = RunJson({}, 1);
  EXPECT_TRUE(HasCode(report, "explanations", "float32-shard-count")) << report;
  EXPECT_FALSE(HasCode(report, "explanations", "modified-after-training")) << report;
  EXPECT_EQ(Run({}), 1);
  EXPECT_NE(out_.find("Expected cause: both models were trained with float32 reduction and different effective "
                      "shard counts (A 1, B 2)"),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("No other field hashed into the training fingerprint differs."), std::string::npos) << out_;
}

TEST_F(AuditCompareTest, EqualFingerprintsWithDifferentRecordedBytesIsAReproducibilityFailure) {
  BumpMean(b(), 0.5f);
  WriteProvenance(b(), "exact", 1, "f00d");  // same fingerprint, records B's actual digests
  const json::value report = RunJson({}, 1);
  EXPECT_TRUE(HasCode(report, "explanations", "reproducibility-failure")) << report;
  EXPECT_FALSE(HasCode(report, "explanations", "modified-after-training")) << report;
  EXPECT_EQ(Run({}), 1);
  EXPECT_NE(out_.find("Reproducibility failure: both provenance.json files record the same training fingerprint"),
            std::string::npos)
      << out_;
}

TEST_F(AuditCompareTest, UnrecordedFilesAreNotBlamedOnTraining) {
  Text(b() / "notes.txt", "edited by hand\n");
  Text(a() / "notes.txt", "original\n");
  const json::value report = RunJson({}, 1);
  EXPECT_TRUE(HasCode(report, "explanations", "unrecorded-files-differ")) << report;
  EXPECT_FALSE(HasCode(report, "explanations", "not-from-training")) << report;
  EXPECT_FALSE(HasCode(report, "explanations", "reproducibility-failure")) << report;
}

TEST_F(AuditCompareTest, OnlyTheRequestedJobCountDiffersIsUnexplained) {
  BumpMean(b(), 0.5f);
  WriteProvenance(b(), "exact", 1, "other");
  std::string text = ReadFileText(b() / "provenance.json");
  text.replace(text.find("\"requested_jobs\":1"), 18, "\"requested_jobs\":3");
  Text(b() / "provenance.json", text);
  const json::value report = RunJson({}, 1);
  ASSERT_TRUE(HasCode(report, "explanations", "unexplained")) << report;
  EXPECT_NE(std::string(report.at("explanations").at(0).at("text").as_string()).find("only requested_jobs differ"),
            std::string::npos)
      << report;
}

TEST_F(AuditCompareTest, ExactModeWithDifferentBytesIsAContractViolation) {
  BumpMean(b(), 0.5f);
  WriteProvenance(b(), "exact", 2, "other");
  const json::value report = RunJson({}, 1);
  EXPECT_TRUE(HasCode(report, "explanations", "exact-contract-violation")) << report;
}

TEST_F(AuditCompareTest, DifferentConfigurationIsNamed) {
  BumpMean(b(), 0.5f);
  std::string text = ReadFileText(b() / "provenance.json");
  text.replace(text.find("abeam=1e-90"), 11, "abeam=1e-80");
  text.replace(text.find("\"config_fingerprint\":\"c\""), 24, "\"config_fingerprint\":\"d\"");
  text.replace(text.find("f00d"), 4, "f00e");
  Text(b() / "provenance.json", text);
  const json::value report = RunJson({}, 1);
  EXPECT_TRUE(HasCode(report, "explanations", "inputs-differ")) << report;
  EXPECT_EQ(Run({}), 1);
  EXPECT_NE(out_.find("- abeam=1e-90; + abeam=1e-80"), std::string::npos) << out_;
}

TEST_F(AuditCompareTest, ShapeDifferenceIsReportedNotCompared) {
  GaussianParams means = Gaussians(1.0f);
  means.n_density = 1;
  means.data.resize(6 * 3);
  WriteGaussianFile((b() / "means").string(), means);
  const json::value report = RunJson({}, 1);
  EXPECT_TRUE(HasCode(report, "differences", "shape-differs")) << report;
  const json::value& p = report.at("parameters").at(0);
  EXPECT_FALSE(p.at("same_shape").as_bool());
  EXPECT_EQ(p.at("shape_text_a").as_string(), "6 state x 1 stream x 2 density x 3 dimension");
  EXPECT_EQ(p.at("shape_text_b").as_string(), "6 state x 1 stream x 1 density x 3 dimension");
}

TEST_F(AuditCompareTest, MissingFileIsDifferent) {
  fs::remove(b() / "variances");
  const json::value report = RunJson({}, 1);
  EXPECT_EQ(report.at("counts").at("only_in_a").to_number<int>(), 1);
  EXPECT_TRUE(HasCode(report, "differences", "only-in-a"));
  EXPECT_TRUE(HasCode(report, "explanations", "modified-after-training"));  // B's provenance lists it
}

TEST_F(AuditCompareTest, MalformedFilesAreTroubleNamingTheFile) {
  const std::vector<std::uint8_t> bytes = ReadFileBytes(b() / "means");
  WriteFileAtomic(b() / "means", std::vector<std::uint8_t>(bytes.begin(), bytes.end() - 10));
  EXPECT_EQ(Run({}), 2);
  EXPECT_NE(err_.find((b() / "means").string()), std::string::npos) << err_;
  EXPECT_EQ(out_, "");

  WriteModel(b());
  Text(b() / "provenance.json", "{\"format\": ");
  EXPECT_EQ(Run({}), 2);
  EXPECT_NE(err_.find((b() / "provenance.json").string() + ": not valid JSON"), std::string::npos) << err_;

  WriteModel(b());
  Text(b() / "mdef", "0.3\n2 n_base\n");
  EXPECT_EQ(Run({}), 2);
  EXPECT_NE(err_.find((b() / "mdef").string()), std::string::npos) << err_;

  fs::remove_all(b());
  EXPECT_EQ(Run({}), 2);
  EXPECT_NE(err_.find(b().string() + ": no such directory"), std::string::npos) << err_;

  EXPECT_EQ(Run({"--rtol", "-1"}), 2);
  EXPECT_NE(err_.find("--rtol must be a finite non-negative number"), std::string::npos) << err_;
}

// The provenance reader throws the auditor's AuditError naming the file, also for a file the
// trainer's reader cannot open; the trainer's parameter readers' InputError becomes an AuditError
// with its message at CompareModels.
TEST_F(AuditCompareTest, ProvenanceTroubleIsAnAuditErrorNamingTheFileAndField) {
  const std::string missing = (dir_ / "none" / "provenance.json").string();
  EXPECT_EQ(test::ErrorMessage<AuditError>([&] { ReadProvenance(missing); }),
            missing + ": cannot open for reading: No such file or directory");
  EXPECT_EQ(test::ErrorMessage<AuditError>([] { ProvenanceFactsOf(json::parse("[1]"), "a/provenance.json"); }),
            "a/provenance.json: not a JSON object");
  EXPECT_EQ(test::ErrorMessage<AuditError>(
                [] { ProvenanceFactsOf(json::parse("{\"requested_jobs\": -1}"), "a/provenance.json"); }),
            "a/provenance.json: requested_jobs: expected a non-negative integer");
  EXPECT_EQ(test::ErrorMessage<AuditError>([] {
              DiffProvenance(json::parse("{}"), "a/provenance.json", json::parse("{\"passes\": 3}"), "b/provenance.json");
            }),
            "b/provenance.json: passes: expected an array");
  const std::vector<std::uint8_t> bytes = ReadFileBytes(b() / "means");
  WriteFileAtomic(b() / "means", std::vector<std::uint8_t>(bytes.begin(), bytes.end() - 10));
  const std::string message = test::ErrorMessage<AuditError>([&] { CompareModels(a(), b(), Tolerance{}); });
  EXPECT_EQ(message.rfind((b() / "means").string() + ": ", 0), 0u) << message;
}

TEST_F(AuditCompareTest, TextFilesGetALineDiff) {
  Text(b() / "feat.params", "-feat 1s_c_d_dd\n-cmn none\n");
  EXPECT_EQ(Run({}), 1);
  EXPECT_NE(out_.find("--- A/feat.params\n+++ B/feat.params\n@@ -1,2 +1,2 @@\n -feat 1s_c_d_dd\n--cmn batch\n+-cmn none\n"),
            std::string::npos)
      << out_;
}

TEST_F(AuditCompareTest, HtmlIsSelfContainedWithHeatMapAndLikelihoodPlot) {
  BumpMean(b(), 0.5f);
  WriteProvenance(b(), "exact", 1, "f00d", {-13.0, -12.25});
  const fs::path page = dir_ / "report.html";
  EXPECT_EQ(Run({"--format", "html", "--out", page.string()}), 1) << err_;
  const std::string html = ReadFileText(page);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<meta charset=\"utf-8\"/>"), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"per-state heat map of means\""), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"log-likelihood per frame by pass\""), std::string::npos);
  EXPECT_NE(html.find("<title>state 4 (B, emitting state 1): max |A-B| 0.5"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
}

// A NaN mean in B makes its state's largest |A-B| +inf: an outlined cell, not a colour, and the
// other states keep their colours (the scale is the largest finite difference).
TEST_F(AuditCompareTest, ANonFiniteMeanIsAnOutlinedHeatMapCell) {
  BumpMean(b(), std::numeric_limits<float>::quiet_NaN());
  GaussianParams means = ReadGaussianFile((b() / "means").string());
  means.data[means.Offset(1, 0, 0)] += 0.25f;
  WriteGaussianFile((b() / "means").string(), means);
  const fs::path page = dir_ / "report.html";
  EXPECT_EQ(Run({"--format", "html", "--out", page.string()}), 1) << err_;
  const std::string html = ReadFileText(page);
  const std::size_t svg = html.find("aria-label=\"per-state heat map of means\"");
  ASSERT_NE(svg, std::string::npos) << html;
  const std::string map = html.substr(svg, html.find("</svg>", svg) - svg);
  EXPECT_NE(map.find("<rect class=\"nonfinite\""), std::string::npos) << map;
  EXPECT_NE(map.find("<title>state 4 (B, emitting state 1): max |A-B| +inf (not a finite number), 1 differing, 1 outside tolerance"),
            std::string::npos)
      << map;
  EXPECT_NE(map.find("fill=\"#a50000\"><title>state 1"), std::string::npos) << map;  // the largest finite difference
  for (const char* bad : {"nan\"", "inf\""}) EXPECT_EQ(map.find(bad), std::string::npos) << bad << "\n" << map;
  const std::string command = "xmllint --noout " + page.string() + " 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << "xmllint rejects " << page;
}

// A log-likelihood of +-1e308 or infinity used to put cy="-nan" into the SVG (the axis span
// overflowed). Finite extremes are placed on a finite axis; infinite values are drawn as such (a
// marker on the edge and a label); the page stays well-formed (xmllint).
TEST_F(AuditCompareTest, ExtremeAndInfiniteLikelihoodsAreDrawnWithoutNanCoordinates) {
  WriteProvenance(a(), "exact", 1, "f00d", {-13.0, 1e308, -1e308});
  // Infinities as JSON can write them: numbers out of range (1e99999 parses as +inf).
  WriteProvenance(b(), "exact", 1, "f00d", {-1e308, 2.0, 3.0});
  std::string text = ReadFileText(b() / "provenance.json");
  const std::string key = "\"log_likelihood_per_frame\":";
  std::size_t at = text.find(key);
  for (const char* to : {"1e99999", "-1e99999"}) {  // passes 2 and 3
    ASSERT_NE(at, std::string::npos) << text;
    at = text.find(key, at + key.size());
    ASSERT_NE(at, std::string::npos) << text;
    const std::size_t begin = at + key.size(), end = text.find_first_of(",}", begin);
    text.replace(begin, end - begin, to);
  }
  Text(b() / "provenance.json", text);
  const fs::path page = dir_ / "report.html";
  EXPECT_EQ(Run({"--format", "html", "--out", page.string()}), 1) << err_;
  const std::string html = ReadFileText(page);
  const std::size_t svg = html.find("aria-label=\"log-likelihood per frame by pass\"");
  ASSERT_NE(svg, std::string::npos);
  const std::string plot = html.substr(svg, html.find("</svg>", svg) - svg);
  for (const char* bad : {"nan", "inf\"", "e+308\" r="}) EXPECT_EQ(plot.find(bad), std::string::npos) << bad << "\n" << plot;
  EXPECT_NE(plot.find("<circle cx="), std::string::npos) << plot;  // the finite points
  EXPECT_NE(plot.find(">B +inf</text>"), std::string::npos) << plot;
  EXPECT_NE(plot.find(">B -inf</text>"), std::string::npos) << plot;
  EXPECT_NE(plot.find("<title>B, pass 2: +inf (not a finite number)</title>"), std::string::npos) << plot;
  const std::string command = "xmllint --noout " + page.string() + " 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << "xmllint rejects " << page;
}

// Run `audit compare` in a child (RLIMIT_AS 1 GB, a 120 s alarm) and report its exit code, its
// maximum RSS (kB) and its standard error.
int CompareInChild(const std::vector<std::string>& args, const fs::path& err_file, long& max_rss_kb, std::string& err) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    struct rlimit limit {};
    limit.rlim_cur = limit.rlim_max = rlim_t{1} << 30;
#ifndef PSTRAIN_SANITIZED  // ASan's shadow memory needs more address space than the limit
    ::setrlimit(RLIMIT_AS, &limit);
#endif
    ::alarm(120);
    std::ostringstream out, e;
    const int code = RunReportingErrors("compare", RunCompareCommand, args, out, e);
    std::ofstream(err_file) << e.str() << out.str();
    ::_exit(code);
  }
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  max_rss_kb = usage.ru_maxrss;
  err = fs::exists(err_file) ? ReadFileText(err_file) : "";
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A 64 MB text file (50 MB in the issue) used to need 2.6 GB for its line diff, and a 1 GB sparse mdef 2.1 GB. Text
// files above kMaxLineDiffBytes are compared as bytes only and the report says so; an mdef above
// kMaxMdefBytes (or with a NUL byte) is trouble naming the file. Both in bounded memory.
TEST_F(AuditCompareTest, LargeTextFilesAndHugeMdefsNeedBoundedMemory) {
  {
    std::ofstream big_a(a() / "notes.txt"), big_b(b() / "notes.txt");
    for (int k = 0; k < 5'000'000; ++k) {
      big_a << "line " << k << "\n";
      big_b << "line " << (k % 1000 == 999 ? -k : k) << "\n";
    }
  }
  long rss = 0;
  std::string out;
  EXPECT_EQ(CompareInChild({a().string(), b().string()}, dir_ / "out.txt", rss, out), 1) << out;
  EXPECT_NE(out.find("notes.txt: not line-diffed: larger than the 4 MiB limit of the line diff (A "), std::string::npos) << out;
  EXPECT_NE(out.find("compared as bytes only, first difference at byte 8886"), std::string::npos) << out;
  EXPECT_LT(rss, 200 * 1024) << "max RSS in kB";
  fs::remove(a() / "notes.txt");
  fs::remove(b() / "notes.txt");

  fs::resize_file(b() / "mdef", std::uintmax_t{1} << 30);  // sparse: a 1 GB mdef of NUL bytes after the text
  EXPECT_EQ(CompareInChild({a().string(), b().string()}, dir_ / "out.txt", rss, out), 2) << out;
  EXPECT_NE(out.find((b() / "mdef").string() + ": 1073741824 bytes, larger than the 64 MiB the auditor reads as an mdef"),
            std::string::npos)
      << out;
  EXPECT_LT(rss, 200 * 1024) << "max RSS in kB";
  fs::resize_file(b() / "mdef", 4096);  // NUL bytes after the text
  EXPECT_EQ(Run({}), 2) << out_;
  EXPECT_NE(err_.find((b() / "mdef").string() + ": not an mdef (a text file): a NUL byte at offset "), std::string::npos) << err_;
}

// Run directories: no top-level provenance.json, so model/provenance.json and model/mdef explain
// and label; files outside model/ are compared too.
TEST_F(AuditCompareTest, RunDirectoriesUseTheirModelSubdirectory) {
  for (const fs::path& side : {a(), b()}) {
    fs::rename(side, dir_ / "tmp");
    fs::create_directories(PassDir(side, 1));
    fs::rename(dir_ / "tmp", side / "model");
    Text(PassDir(side, 1) / "pass.json", "{}\n");
  }
  Text(PassDir(b(), 1) / "pass.json", "{\"pass\": 1}\n");
  WriteProvenance(b() / "model", "exact", 2, "beef");
  const json::value report = RunJson({}, 1);
  EXPECT_EQ(report.at("model_dir").as_string(), "model/");
  EXPECT_TRUE(report.at("parameters_identical").as_bool());
  EXPECT_TRUE(HasCode(report, "explanations", "provenance-only")) << report;
  EXPECT_NE(std::string(report.at("explanations").at(0).at("text").as_string())
                .find("Every model file in model/ is byte-identical; of the model only model/provenance.json differs "
                      "(1 other files differ too"),
            std::string::npos)
      << report;
  EXPECT_TRUE(HasCode(report, "differences", "lines-differ")) << report;

  BumpMean(b() / "model", 0.5f);
  EXPECT_EQ(Run({}), 1);
  EXPECT_NE(out_.find("model/means: 1 of 36 elements differ"), std::string::npos) << out_;
  EXPECT_NE(out_.find("state 4 (B, emitting state 1)"), std::string::npos) << out_;
  EXPECT_NE(out_.find("B/model/means does not match the SHA-256 that B/model/provenance.json records"),
            std::string::npos)
      << out_;
}

// provenance.json's shard_nodes (written for Slurm runs) is a known, diagnostic field: listed once,
// among the fields that cannot change the numbers, not as a field this version does not know.
TEST_F(AuditCompareTest, ShardNodesIsAKnownDiagnosticField) {
  for (const auto& [dir, node] : {std::pair{a(), "n1"}, std::pair{b(), "n2"}}) {
    json::object p = json::parse(ReadFileText(dir / "provenance.json")).as_object();
    p["shard_nodes"] = json::array{json::object{{"pass", 1}, {"nodes", json::array{node}}}};
    Text(dir / "provenance.json", json::serialize(p) + "\n");
  }
  const ProvenanceDiff diff = DiffProvenance(json::parse(ReadFileText(a() / "provenance.json")), "A",
                                             json::parse(ReadFileText(b() / "provenance.json")), "B");
  std::size_t listed = 0;
  for (const FieldDiff& f : diff.fields) {
    if (f.field != "shard_nodes") continue;
    ++listed;
    EXPECT_FALSE(f.equal);
    EXPECT_FALSE(f.affects_numbers);
  }
  EXPECT_EQ(listed, 1u);
}

}  // namespace
}  // namespace pstrain::audit
