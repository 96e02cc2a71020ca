// `audit characterize`: the relative-difference statistics, the monotonicity rule, option errors,
// and the renderings of a synthetic report (the caveat in all three; the control's verdict). Real
// training runs are characterized in
// tests/auditor/characterize/audit_characterize_integration_test.cpp.
#include <gtest/gtest.h>

#include <unistd.h>

#include <boost/json.hpp>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>

#include "characterize/characterize_command.h"
#include "common/file_io.h"
#include "report/audit_error.h"
#include "report/command_runner.h"
#include "characterize/characterize_measure.h"
#include "characterize/characterize_report.h"
#include "shards/run_layout.h"
#include "support/test_helpers.h"

namespace pstrain::audit {
namespace {

TEST(AuditCharacterizeMeasure, RelativeDifferenceStatistics) {
  const DiffStats s = CompareArrays({1.0f, 0.0f, -2.0f, 4.0f, 0.0f}, {1.0f, 0.0f, -2.002f, 3.0f, 1e-30f}, 1e-2, "x");
  EXPECT_EQ(s.elements, 5u);
  EXPECT_EQ(s.differing, 3u);
  EXPECT_EQ(s.over_budget, 2u);  // 4 vs 3 (0.25) and 0 vs 1e-30 (1.0); -2 vs -2.002 is below 1e-2
  EXPECT_DOUBLE_EQ(s.max_relative, 1.0);
  EXPECT_EQ(s.max_index, 4u);
  const DiffStats same = CompareArrays({0.0f, 3.0f}, {0.0f, 3.0f}, 0.0, "x");
  EXPECT_EQ(same.differing, 0u);
  EXPECT_EQ(same.max_relative, 0.0);
  const DiffStats nan = CompareArrays({std::numeric_limits<float>::quiet_NaN()}, {1.0f}, 1.0, "x");
  EXPECT_TRUE(std::isinf(nan.max_relative));
  EXPECT_EQ(nan.over_budget, 1u);
  EXPECT_EQ(test::ErrorMessage<AuditError>([] { CompareArrays({1.0f}, {1.0f, 2.0f}, 0.0, "x"); }),
            "x: the two runs have 1 and 2 elements");
}

// A pass.json that is missing (the trainer's reader: translated) or says another pass is the
// auditor's AuditError naming the file.
TEST(AuditCharacterizeMeasure, AnUnreadablePassIsAnAuditErrorNamingItsPassJson) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("audit_characterize_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const fs::path a = dir / "a", b = dir / "b";
  const std::string pass_json = (PassDir(a, 1) / "pass.json").string();
  EXPECT_EQ(test::ErrorMessage<AuditError>([&] { CompareRuns("exact", a, 1, b, 2, 1, 0.0); }),
            pass_json + ": cannot open for reading: No such file or directory");
  fs::create_directories(PassDir(a, 1));
  WriteFileAtomic(pass_json, std::string("{\"pass\": 2}\n"));
  EXPECT_EQ(test::ErrorMessage<AuditError>([&] { CompareRuns("exact", a, 1, b, 2, 1, 0.0); }),
            pass_json + ": unreadable: \"pass\" is not 1");
  fs::remove_all(dir);
}

TEST(AuditCharacterizeMeasure, MonotonicLikelihood) {
  ArmRun arm;
  arm.log_likelihood_per_frame = {-13.0, -3.1, -2.2};
  EXPECT_TRUE(arm.Monotonic());
  arm.log_likelihood_per_frame = {-13.0, -3.1, -3.2, -2.0};
  EXPECT_FALSE(arm.Monotonic());
  EXPECT_EQ(arm.FirstFall(), 3u);
}

CharacterizeReport Synthetic(bool control_zero) {
  CharacterizeReport r;
  r.manifest = "m & <x>";
  r.model = "model";
  r.jobs_a = 1;
  r.jobs_b = 2;
  r.passes = 2;
  r.budget = 1e-6;
  for (ModeComparison* m : {&r.float32, &r.exact}) {
    const bool zero = m == &r.exact && control_zero;
    m->reduction = m == &r.exact ? "exact" : "float32";
    m->a = {1, 1, "runs/a", {-13.0, -3.0}, {"00", "01"}};
    m->b = {2, 2, "runs/b", {-13.0, zero ? -3.0 : -3.0000001}, {"00", zero ? "01" : "02"}};
    for (std::uint32_t p = 1; p <= 2; ++p) {
      PassComparison c;
      c.pass = p;
      c.means = {10, zero ? 0u : 3u, zero ? 0u : 1u, zero ? 0.0 : 1e-5 * p, 0};
      c.mean_numerators = c.means;
      c.means_identical_bytes = zero;
      c.same_exact_log_likelihood = zero || p == 1;
      c.log_likelihood_gap = zero || p == 1 ? 0.0 : -1e-7;
      m->passes.push_back(c);
    }
  }
  return r;
}

TEST(AuditCharacterizeReport, RenderingsSayTheCaveatAndTheControlVerdict) {
  const CharacterizeReport ok = Synthetic(true);
  const std::string text = RenderCharacterizeText(ok);
  EXPECT_NE(text.find(kConvergenceCaveat), std::string::npos);
  EXPECT_NE(text.find("control: the exact control shows zero difference"), std::string::npos);
  const boost::json::object j = boost::json::parse(RenderCharacterizeJson(ok)).as_object();
  EXPECT_TRUE(j.at("control_zero_difference").as_bool());
  EXPECT_FALSE(j.at("float32").at("zero_difference").as_bool());
  EXPECT_EQ(j.at("float32").at("passes").at(1).at("means").at("over_budget").to_number<int>(), 1);
  const std::string html = RenderCharacterizeHtml(ok);
  EXPECT_NE(html.find("m &amp; &lt;x&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("does not establish convergence"), std::string::npos);

  const CharacterizeReport bad = Synthetic(false);
  EXPECT_NE(RenderCharacterizeText(bad).find("THE EXACT CONTROL SHOWS A DIFFERENCE"), std::string::npos);
  EXPECT_FALSE(boost::json::parse(RenderCharacterizeJson(bad)).at("control_zero_difference").as_bool());
}

TEST(AuditCharacterizeCommand, UsageErrorsExitTwo) {
  const std::vector<std::string> required = {"--manifest", "m", "--model", "d", "--dict", "x", "--filler", "y"};
  for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{
           {"--shards", "1"}, {"--shards", "2,2"}, {"--shards", "0,1"}, {"--passes", "0"}, {"--budget", "-1"}, {"--budget", "x"},
           {"--format", "pdf"}, {"stray"}}) {
    std::vector<std::string> args = required;
    args.insert(args.end(), extra.begin(), extra.end());
    std::ostringstream out, err;
    EXPECT_EQ(RunReportingErrors("characterize", RunCharacterizeCommand, args, out, err), 2) << extra[0];
    EXPECT_NE(err.str().find("audit characterize: "), std::string::npos);
  }
  std::ostringstream out, err;
  EXPECT_EQ(RunReportingErrors("characterize", RunCharacterizeCommand, {"--model", "d"}, out, err), 2);
  EXPECT_NE(err.str().find("--manifest is required"), std::string::npos);
  std::ostringstream help, none;
  EXPECT_EQ(RunReportingErrors("characterize", RunCharacterizeCommand, {"--help"}, help, none), 0);
  EXPECT_EQ(help.str(), kCharacterizeUsage);
}

}  // namespace
}  // namespace pstrain::audit
