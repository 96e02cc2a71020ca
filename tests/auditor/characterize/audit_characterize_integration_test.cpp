// `audit characterize` on the default corpus (93 utterances, 2 passes, --jobs 1 and 3): the exact
// control reports zero difference in every pass; float32 reports a non-zero difference of the
// means and the raw mean numerators; the JSON carries the per-pass fields and the convergence
// caveat; the HTML page is well-formed XML and renders in headless Chromium without errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>

#include "common/file_io.h"
#include "support/html_check_util.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::HasSubstr;

std::string Characterize(const fs::path& work, const std::string& extra) {
  const fs::path corpus = CorpusDir();
  return ShellQuote(AuditBinary().string()) + " characterize --manifest " + ShellQuote(TrainManifest().string()) + " --model " +
         ShellQuote(An4Model().string()) + " --dict " + ShellQuote((corpus / "corpus.dic").string()) + " --filler " +
         ShellQuote((corpus / "corpus.filler").string()) + " --pstrain " + ShellQuote(PSTRAIN_BINARY) + " --shards 1,3 --passes 2 --work-dir " +
         ShellQuote(work.string()) + " " + extra;
}

TEST(AuditCharacterize, ExactControlIsZeroAndFloat32DiffersOnTheDefaultCorpus) {
  ASSERT_TRUE(fs::exists(AuditBinary())) << AuditBinary();
  const fs::path dir = FreshDir("audit-characterize");
  const CommandResult r = RunCommand(Characterize(dir / "work", "--format json --out " + ShellQuote((dir / "report.json").string())));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json::object report = json::parse(ReadFileText(dir / "report.json")).as_object();
  EXPECT_EQ(report.at("tool").as_string(), "audit characterize");
  EXPECT_EQ(report.at("passes").to_number<int>(), 2);
  EXPECT_TRUE(report.at("control_zero_difference").as_bool());
  EXPECT_THAT(std::string(report.at("caveat").as_string()), HasSubstr("does not establish convergence"));

  const json::object& exact = report.at("exact").as_object();
  EXPECT_TRUE(exact.at("zero_difference").as_bool());
  EXPECT_EQ(exact.at("a").at("shard_count").to_number<int>(), 1);
  EXPECT_EQ(exact.at("b").at("shard_count").to_number<int>(), 3);
  ASSERT_EQ(exact.at("passes").as_array().size(), 2u);
  for (const json::value& p : exact.at("passes").as_array()) {
    EXPECT_EQ(p.at("means").at("max_relative_difference").to_number<double>(), 0.0);
    EXPECT_EQ(p.at("means").at("differing").to_number<int>(), 0);
    EXPECT_EQ(p.at("means").at("over_budget").to_number<int>(), 0);
    EXPECT_GT(p.at("means").at("elements").to_number<int>(), 0);
    EXPECT_EQ(p.at("mean_numerators").at("max_relative_difference").to_number<double>(), 0.0);
    EXPECT_TRUE(p.at("means_identical_bytes").as_bool());
    EXPECT_EQ(p.at("log_likelihood_gap").to_number<double>(), 0.0);
    EXPECT_TRUE(p.at("same_exact_log_likelihood").as_bool());
  }
  EXPECT_TRUE(exact.at("a").at("log_likelihood_monotonic").as_bool());

  const json::object& f32 = report.at("float32").as_object();
  EXPECT_FALSE(f32.at("zero_difference").as_bool());
  EXPECT_GT(f32.at("max_relative_difference_means").to_number<double>(), 0.0);
  EXPECT_GT(f32.at("max_relative_difference_mean_numerators").to_number<double>(), 0.0);
  const json::array& passes = f32.at("passes").as_array();
  ASSERT_EQ(passes.size(), 2u);
  // Pass 1 starts from the same initial model: same likelihood, but float32 partial sums already
  // give different numerators and means.
  EXPECT_EQ(passes[0].at("log_likelihood_gap").to_number<double>(), 0.0);
  EXPECT_GT(passes[0].at("mean_numerators").at("differing").to_number<int>(), 0);
  EXPECT_GT(passes[0].at("means").at("max_relative_difference").to_number<double>(), 0.0);
  EXPECT_EQ(f32.at("a").at("log_likelihood_per_frame").as_array().size(), 2u);

  // The same runs are reused (pstrain's cache), rendered as text and HTML.
  const CommandResult text = RunCommand(Characterize(dir / "work", ""));
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("control: the exact control shows zero difference in every pass"));
  EXPECT_THAT(text.output, HasSubstr("float32 reduction: arm A --jobs 1 -> 1 shard, arm B --jobs 3 -> 3 shards"));
  EXPECT_THAT(text.output, HasSubstr("(non-zero)"));
  EXPECT_THAT(text.output, HasSubstr("A handful of passes does not establish convergence to a common value"));

  const fs::path page = dir / "report.html";
  const CommandResult html = RunCommand(Characterize(dir / "work", "--format html --out " + ShellQuote(page.string())));
  ASSERT_EQ(html.exit_code, 0) << html.output;
  const std::string content = ReadFileText(page);
  EXPECT_THAT(content, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_THAT(content, HasSubstr("does not establish convergence"));
  EXPECT_THAT(content, ::testing::Not(HasSubstr("<script")));
  EXPECT_EQ(XmlWellFormednessErrors(page), "");
  EXPECT_EQ(ChromiumRenderErrors(page, dir / "report.png"), "");
}

TEST(AuditCharacterize, BadOptionsAndFailedRunsExitTwo) {
  const fs::path dir = FreshDir("audit-characterize-trouble");
  CommandResult r = RunCommand(ShellQuote(AuditBinary().string()) + " characterize --manifest m --model d --dict x --filler y --shards 2,2");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--shards must be two different job counts"));
  r = RunCommand(ShellQuote(AuditBinary().string()) + " characterize --model d");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--manifest is required"));
  // A training run that fails: its log is named.
  r = RunCommand(ShellQuote(AuditBinary().string()) + " characterize --manifest " + ShellQuote((dir / "no.manifest").string()) +
                 " --model d --dict x --filler y --pstrain " + ShellQuote(PSTRAIN_BINARY) + " --work-dir " + ShellQuote((dir / "work").string()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr((dir / "work" / "float32-jobs-1.log").string()));
}

}  // namespace
}  // namespace pstrain::testing
