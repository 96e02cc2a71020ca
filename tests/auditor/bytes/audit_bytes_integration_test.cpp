// `audit bytes` on two real `pstrain train` run directories with the same job count: identical by
// the project's rule once telemetry (telemetry.json, worker.stderr; docs/contract.md) is ignored,
// different without that option because telemetry records PIDs and times.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

#include "support/html_check_util.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;

std::string TrainCommand(const fs::path& run_dir) {
  const fs::path corpus = CorpusDir();
  return Pstrain("train --model " + ShellQuote(An4Model().string()) + " --manifest " + ShellQuote(TrainManifest().string()) +
                 " --dict " + ShellQuote((corpus / "corpus.dic").string()) + " --filler " +
                 ShellQuote((corpus / "corpus.filler").string()) + " --out " + ShellQuote(run_dir.string()) +
                 " --jobs 2 --min-passes 2 --max-passes 2");
}

TEST(AuditBytes, TwoRunsWithTheSameJobCountDifferOnlyInTelemetry) {
  ASSERT_TRUE(fs::exists(AuditBinary())) << "the audit binary is missing: " << AuditBinary();
  const fs::path dir = FreshDir("audit-bytes");
  for (const char* name : {"a", "b"}) {
    CommandResult r = RunCommand(TrainCommand(dir / name));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  const std::string audit = ShellQuote(AuditBinary().string()) + " bytes " + ShellQuote((dir / "a").string()) + " " +
                            ShellQuote((dir / "b").string());

  CommandResult ignoring = RunCommand(audit + " --ignore-telemetry --format json");
  ASSERT_EQ(ignoring.exit_code, 0) << ignoring.output;
  const boost::json::value report = boost::json::parse(ignoring.output);
  EXPECT_EQ(report.at("result").as_string(), "identical");
  EXPECT_GT(report.at("counts").at("identical").to_number<int>(), 20);
  EXPECT_GT(report.at("counts").at("ignored").to_number<int>(), 0);

  CommandResult strict = RunCommand(audit);
  EXPECT_EQ(strict.exit_code, 1) << strict.output;
  EXPECT_NE(strict.output.find("telemetry.json"), std::string::npos) << strict.output;

  CommandResult html = RunCommand(audit + " --format html --out " + ShellQuote((dir / "report.html").string()));
  EXPECT_EQ(html.exit_code, 1) << html.output;
  EXPECT_EQ(XmlWellFormednessErrors(dir / "report.html"), "");
  EXPECT_EQ(ChromiumRenderErrors(dir / "report.html", dir / "report.png"), "");
}

// Every kind of entry the HTML page can show (only in A, only in B, a symlink, a differing file,
// a file against a directory) still gives well-formed XML that Chromium renders.
TEST(AuditBytes, HtmlWithEveryKindOfEntryIsWellFormed) {
  const fs::path dir = FreshDir("audit-bytes-html");
  fs::create_directories(dir / "a" / "sub");
  fs::create_directories(dir / "b" / "sub");
  auto write = [](const fs::path& path, const std::string& text) { std::ofstream(path) << text; };
  write(dir / "a" / "same", "x");
  write(dir / "b" / "same", "x");
  write(dir / "a" / "differs <&>", "abc");
  write(dir / "b" / "differs <&>", "abd");
  write(dir / "a" / "only-a", "1");
  write(dir / "b" / "sub" / "only-b", "2");
  fs::create_symlink("same", dir / "a" / "link");
  write(dir / "b" / "link", "x");
  write(dir / "a" / "file-or-dir", "f");
  fs::create_directories(dir / "b" / "file-or-dir");
  const CommandResult r = RunCommand(ShellQuote(AuditBinary().string()) + " bytes " + ShellQuote((dir / "a").string()) + " " +
                                     ShellQuote((dir / "b").string()) + " --format html --out " +
                                     ShellQuote((dir / "report.html").string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(XmlWellFormednessErrors(dir / "report.html"), "");
  EXPECT_EQ(ChromiumRenderErrors(dir / "report.html", dir / "report.png"), "");
}

}  // namespace
}  // namespace pstrain::testing
