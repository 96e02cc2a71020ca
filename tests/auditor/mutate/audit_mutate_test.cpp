// `audit mutate`: the mutation table is well-formed data (unique names, a description, a known
// category, a predicate and an apply function each; the mutation classes are all present),
// the command's usage errors exit 2, and the exit status follows the report. Real passes are
// mutated in tests/auditor/mutate/audit_mutate_integration_test.cpp.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "common/error.h"
#include "common/file_io.h"
#include "mutate/mutate_command.h"
#include "report/audit_error.h"
#include "report/command_runner.h"
#include "mutate/mutate_engine.h"
#include "mutate/mutations.h"
#include "shards/run_layout.h"
#include "support/test_helpers.h"

namespace pstrain::audit {
namespace {

TEST(AuditMutateTable, RowsAreWellFormed) {
  const std::set<std::string> categories = {"payload", "artifact-json", "identity", "coverage", "outcomes", "path", "pass", "sidecar"};
  std::set<std::string> names;
  for (const Mutation& m : Mutations()) {
    SCOPED_TRACE(m.name);
    EXPECT_TRUE(names.insert(m.name).second) << "duplicate name";
    EXPECT_FALSE(m.description.empty());
    EXPECT_TRUE(categories.count(m.category)) << m.category;
    EXPECT_TRUE(m.not_applicable);
    EXPECT_TRUE(m.apply);
    EXPECT_FALSE(m.expected_checks.empty()) << "every mutation names the check that must kill it";
  }
  // The classes of issue #6.
  for (const char* name : {"payload-byte-flipped", "payload-truncated", "payload-missing", "artifact-json-missing", "artifact-json-truncated",
                           "stale-pass-number", "earlier-pass-replayed", "payloads-swapped-between-shards", "other-model-fingerprint",
                           "other-config-fingerprint", "other-manifest-fingerprint", "coverage-duplicate-across-shards", "coverage-missing",
                           "outcome-both-processed-and-skipped", "path-escape-parent", "payload-symlink-outside", "sidecar-header-wrong",
                           "sidecar-count-wrong", "sidecar-flag-two", "sidecar-truncated", "sidecar-missing"}) {
    EXPECT_TRUE(names.count(name)) << name;
  }
  // An artifact from another build (the code identity) is one of the identity mutations.
  const auto code = std::find_if(Mutations().begin(), Mutations().end(), [](const Mutation& m) { return m.name == "code-identity-of-another-build"; });
  ASSERT_NE(code, Mutations().end());
  EXPECT_EQ(code->category, "identity");
  EXPECT_EQ(code->expected_checks, std::vector<std::string>{"code-identity"});
}

TEST(AuditMutateCommand, UsageErrorsExitTwo) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {}, {"a", "b"}, {"run", "--format", "html"}, {"run", "--pass", "0"}, {"run", "--pass", "x"}, {"run", "--bogus"}}) {
    std::ostringstream out, err;
    EXPECT_EQ(RunReportingErrors("mutate", RunMutateCommand, args, out, err), 2) << err.str();
    EXPECT_NE(err.str().find("audit mutate: "), std::string::npos);
    EXPECT_TRUE(out.str().empty());
  }
  std::ostringstream out, err;
  EXPECT_EQ(RunReportingErrors("mutate", RunMutateCommand, {"--help"}, out, err), 0);
  EXPECT_EQ(out.str(), kMutateUsage);
}

// A run directory without the pass to mutate is the auditor's AuditError naming the directory; a
// pass.json the trainer's reader rejects stays the trainer's InputError (naming pass.json).
TEST(AuditMutateEngine, AMissingRunOrPassIsAnAuditErrorNamingTheDirectory) {
  namespace fs = std::filesystem;
  const fs::path run = fs::temp_directory_path() / ("audit_mutate_test_" + std::to_string(::getpid()));
  fs::remove_all(run);
  fs::create_directories(run);
  EXPECT_EQ(test::ErrorMessage<AuditError>([&] { LastCompletePass(run); }),
            PassesDir(run).string() + ": not a directory (is " + run.string() + " a pstrain run directory?)");
  fs::create_directories(PassDir(run, 1));
  EXPECT_EQ(test::ErrorMessage<AuditError>([&] { LastCompletePass(run); }),
            PassesDir(run).string() + ": no complete pass (no NNN/pass.json)");
  const PassValidator accept_all = [](const fs::path&) { return Verdict{}; };
  EXPECT_EQ(test::ErrorMessage<AuditError>([&] { RunMutations(run, 2, {}, accept_all, run / "work"); }),
            PassDir(run, 2).string() + ": no such pass directory");
  const std::string message = test::ErrorMessage<InputError>([&] { RunMutations(run, 1, {}, accept_all, run / "work"); });
  EXPECT_NE(message.find((PassDir(run, 1) / "pass.json").string()), std::string::npos) << message;
  fs::remove_all(run);
}

TEST(AuditMutateCommand, ExitStatusFollowsTheReport) {
  MutateReport report;
  EXPECT_EQ(MutateExitCode(report), 2);  // nothing applied
  MutationResult na;
  na.outcome = MutationOutcome::kNotApplicable;
  report.results.push_back(na);
  EXPECT_EQ(MutateExitCode(report), 2);
  MutationResult killed;
  killed.outcome = MutationOutcome::kKilled;
  report.results.push_back(killed);
  EXPECT_EQ(MutateExitCode(report), 0);
  MutationResult survived;
  survived.name = "x";
  survived.outcome = MutationOutcome::kSurvived;
  report.results.push_back(survived);
  EXPECT_EQ(MutateExitCode(report), 1);
  EXPECT_EQ(report.Survivors(), std::vector<std::string>{"x"});
}

}  // namespace
}  // namespace pstrain::audit
