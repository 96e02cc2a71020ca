// `audit mutate` on real passes (issue #6): a small real `pstrain train --jobs 2` run (the eight
// utterances of the small corpus, two passes) is mutated in every way of the table; the real
// validator must kill every applicable mutation by the expected check, and a deliberately weakened
// validator (a test fixture that ignores digest mismatches; production has no such switch) must let
// mutations survive, and the report must say so. Mutations that cannot apply (two-shard mutations on
// a one-shard pass, the multipron sidecar on a pass without one) are reported as not applicable,
// never as killed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "common/file_io.h"
#include "mutate/mutate_engine.h"
#include "mutate/mutate_report.h"
#include "mutate/mutations.h"
#include "support/shard_fixture.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::HasSubstr;

// The current test's name, so that tests running in parallel (ctest -j) use their own directories.
std::string TestName() { return ::testing::UnitTest::GetInstance()->current_test_info()->name(); }

// A small real run, trained on first use by the current test: the 8 utterances of the small corpus,
// `jobs` jobs, exactly `passes` passes.
fs::path SmallRun(const std::string& jobs, const std::string& passes, const std::string& extra = "") {
  static std::map<std::string, fs::path> runs;
  std::string suffix;
  for (char ch : extra) suffix += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  const std::string key = TestName() + "-" + jobs + "-" + passes + (extra.empty() ? "" : "-" + suffix);
  if (auto it = runs.find(key); it != runs.end()) return it->second;
  const fs::path dir = FreshDir("audit-mutate-run-" + key);
  const CorpusFixture corpus = SmallCorpus(dir);
  const fs::path run = dir / "run";
  const CommandResult r =
      RunCommand(TrainCommand(corpus, run, "--jobs " + jobs + " --min-passes " + passes + " --max-passes " + passes + " --quiet " + extra));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  runs[key] = run;
  return run;
}

CommandResult Mutate(const fs::path& run, const std::string& extra) {
  return RunCommand(ShellQuote(AuditBinary().string()) + " mutate " + ShellQuote(run.string()) + " " + extra);
}

std::set<std::string> Names(const json::array& mutations, const char* outcome) {
  std::set<std::string> names;
  for (const json::value& m : mutations) {
    if (m.at("outcome").as_string() == outcome) names.emplace(m.at("name").as_string());
  }
  return names;
}

std::set<std::string> SidecarMutations() {
  std::set<std::string> names;
  for (const audit::Mutation& m : audit::Mutations()) {
    if (m.category == "sidecar") names.insert(m.name);
  }
  return names;
}

TEST(AuditMutate, RealTwoShardPassKillsEveryApplicableMutation) {
  ASSERT_TRUE(fs::exists(AuditBinary())) << AuditBinary();
  const fs::path run = SmallRun("2", "2");
  // A real foreign run: the same corpus and shard count with another configuration.
  const fs::path foreign = SmallRun("2", "2", "--abeam 1e-80");
  const fs::path work = FreshDir("audit-mutate-work-" + TestName());
  const CommandResult r =
      Mutate(run, "--format json --work-dir " + ShellQuote(work.string()) + " --foreign-run " + ShellQuote(foreign.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json::object report = json::parse(r.output).as_object();
  EXPECT_EQ(report.at("tool").as_string(), "audit mutate");
  EXPECT_EQ(report.at("pass").to_number<int>(), 2);  // the last complete pass by default
  EXPECT_EQ(report.at("shard_count").to_number<int>(), 2);
  EXPECT_EQ(report.at("result").as_string(), "all-killed");
  EXPECT_EQ(report.at("score").to_number<double>(), 1.0);
  EXPECT_TRUE(report.at("survivors").as_array().empty());
  const json::array& mutations = report.at("mutations").as_array();
  ASSERT_EQ(mutations.size(), audit::Mutations().size());
  // Only the sidecar mutations do not apply (this pass has no fallback_senones file).
  EXPECT_EQ(report.at("foreign_run").as_string(), foreign.string());
  EXPECT_EQ(Names(mutations, "not-applicable"), SidecarMutations());
  EXPECT_TRUE(Names(mutations, "survived").empty());
  EXPECT_GE(Names(mutations, "killed").size(), 40u);
  for (const json::value& v : mutations) {
    const json::object& m = v.as_object();
    SCOPED_TRACE(std::string(m.at("name").as_string()));
    if (m.at("outcome").as_string() != "killed") {
      EXPECT_THAT(std::string(m.at("reason").as_string()), HasSubstr("fallback_senones"));
      continue;
    }
    // Killed by the check the mutation aims at, with the validator's reason, paths relative to the pass.
    EXPECT_TRUE(m.at("expected_check").as_bool()) << json::serialize(m);
    EXPECT_THAT(std::string(m.at("reason").as_string()), HasSubstr("check \"" + std::string(m.at("check").as_string()) + "\""));
    EXPECT_THAT(std::string(m.at("reason").as_string()), ::testing::Not(HasSubstr(work.string())));
  }
  const json::object counts = report.at("counts").as_object();
  EXPECT_EQ(counts.at("killed_by_unexpected_check").to_number<int>(), 0);
  EXPECT_EQ(counts.at("survived").to_number<int>(), 0);
  // Every mutated copy was removed; the run itself is untouched (still valid).
  EXPECT_TRUE(fs::is_empty(work)) << work;
  EXPECT_EQ(RunCommand(Pstrain("validate " + ShellQuote(PassDir(run, 2).string()))).exit_code, 0);

  // Pass 2 of the foreign run started from its own pass-1 model, so the model fingerprint (checked
  // before the configuration's) is the first to differ.
  for (const json::value& m : mutations) {
    if (m.at("name").as_string() == "foreign-run-artifact") {
      EXPECT_EQ(m.at("check").as_string(), "model-fingerprint");
    }
  }

  // The text report (without a foreign run): one line per mutation, the score and the result.
  const CommandResult text = Mutate(run, "");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  const std::size_t applied = audit::Mutations().size() - SidecarMutations().size() - 1;
  EXPECT_THAT(text.output, HasSubstr("mutation score: " + std::to_string(applied) + "/" + std::to_string(applied) + " = 1.000"));
  // The one literal shard directory in this file: the report names a mutated file as it lies on disk.
  EXPECT_THAT(text.output, HasSubstr("KILLED    payload-byte-flipped: shard-001/gauden_counts"));
  EXPECT_THAT(text.output, HasSubstr("shard 1 rejected by check \"payload-sha256\" (" + InShard(1, "gauden_counts") + ")"));
  EXPECT_THAT(text.output, HasSubstr("N/A       sidecar-missing: no shard of this pass has a fallback_senones file"));
  EXPECT_THAT(text.output, HasSubstr("N/A       foreign-run-artifact: no --foreign-run given"));
  EXPECT_THAT(text.output, HasSubstr("survivors: none\nresult: ALL KILLED\n"));
}

TEST(AuditMutate, MutationsThatCannotApplyAreNotApplicableNotKilled) {
  // Pass 1 of a one-shard run: no earlier pass, no second shard.
  const fs::path run = SmallRun("1", "1");
  const fs::path out = FreshDir("audit-mutate-one-shard") / "report.json";
  const CommandResult r = Mutate(run, "--pass 1 --format json --out " + ShellQuote(out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json::object report = json::parse(ReadFileText(out)).as_object();
  EXPECT_EQ(report.at("shard_count").to_number<int>(), 1);
  const json::array& mutations = report.at("mutations").as_array();
  std::set<std::string> expected = SidecarMutations();
  expected.insert({"payloads-swapped-between-shards", "other-shard-in-directory", "coverage-duplicate-across-shards",
                   "earlier-pass-replayed", "earlier-pass-relabeled", "foreign-run-artifact"});
  EXPECT_EQ(Names(mutations, "not-applicable"), expected);
  for (const json::value& v : mutations) {
    const std::string name(v.at("name").as_string());
    if (name == "payloads-swapped-between-shards") {
      EXPECT_THAT(std::string(v.at("reason").as_string()), HasSubstr("1 shard"));
    }
    if (name == "earlier-pass-replayed") {
      EXPECT_THAT(std::string(v.at("reason").as_string()), HasSubstr("no earlier pass"));
    }
  }
  EXPECT_EQ(report.at("counts").at("killed").to_number<std::size_t>(), mutations.size() - expected.size());
  EXPECT_EQ(report.at("result").as_string(), "all-killed");
}

// The fixture: the real validator, except that a rejection by "payload-sha256" is reported as
// accepted (a validator that trusted payloads would behave like this).
audit::PassValidator IgnoringDigestMismatches() {
  return [real = audit::RealPassValidator()](const fs::path& pass_dir) {
    audit::Verdict v = real(pass_dir);
    if (v.rejected && v.check == "payload-sha256") return audit::Verdict{};
    return v;
  };
}

TEST(AuditMutate, WeakenedValidatorLetsMutationsSurviveAndIsReported) {
  const fs::path run = SmallRun("2", "2");
  const fs::path work = FreshDir("audit-mutate-weakened");
  const audit::MutateReport report = audit::RunMutations(run, 2, audit::Mutations(), IgnoringDigestMismatches(), work);
  const std::vector<std::string> survivors = report.Survivors();
  EXPECT_THAT(survivors, ::testing::ElementsAre("payload-byte-flipped", "payloads-swapped-between-shards"));
  EXPECT_EQ(audit::MutateExitCode(report), 1);
  const std::string text = audit::RenderMutateText(report);
  EXPECT_THAT(text, HasSubstr("SURVIVED  payload-byte-flipped: " + InShard(1, "gauden_counts") + ": bit 0 of byte"));
  EXPECT_THAT(text, HasSubstr("survivors: payload-byte-flipped, payloads-swapped-between-shards\nresult: SURVIVORS\n"));
  const json::object j = json::parse(audit::RenderMutateJson(report)).as_object();
  EXPECT_LT(j.at("score").to_number<double>(), 1.0);
  EXPECT_EQ(j.at("result").as_string(), "survivors");
  EXPECT_EQ(j.at("survivors").as_array().size(), 2u);
}

TEST(AuditMutate, MultipronPassKillsTheSidecarMutationsToo) {
  // A real multipron run (--multipron): every shard has the fallback_senones sidecar, listed in its
  // payload, so the sidecar mutations apply, and the validator's sidecar checks kill each one.
  const fs::path run = SmallRun("2", "2", "--multipron");
  const audit::MutateReport report =
      audit::RunMutations(run, 2, audit::Mutations(), audit::RealPassValidator(), FreshDir("audit-mutate-multipron-work"));
  EXPECT_TRUE(report.Survivors().empty());
  EXPECT_EQ(audit::MutateExitCode(report), 0);
  const CommandResult r = Mutate(run, "--format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json::value parsed = json::parse(r.output);
  const json::array& mutations = parsed.at("mutations").as_array();
  std::set<std::string> killed = Names(mutations, "killed");
  for (const std::string& name : SidecarMutations()) {
    EXPECT_TRUE(killed.count(name)) << name << " was not killed";
  }
  for (const json::value& v : mutations) {
    const json::object& m = v.as_object();
    if (std::string(m.at("name").as_string()).rfind("sidecar-", 0) != 0) continue;
    EXPECT_TRUE(m.at("expected_check").as_bool()) << json::serialize(m);
  }
}

TEST(AuditMutate, TroubleExitsTwo) {
  const fs::path empty = FreshDir("audit-mutate-trouble");
  CommandResult r = Mutate(empty, "");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr(PassesDir(empty).string()));
  r = Mutate(SmallRun("2", "2"), "--pass 9");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr(PassKey(9)));
  r = Mutate(SmallRun("2", "2"), "--format html");
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

// Issue 13 C: the auditor removes only what it created. A work directory that already holds
// something (here a user's file in D/000-unmodified/, the name of the auditor's own first copy) is
// refused with exit 2 naming it, and nothing in it is touched.
TEST(AuditMutate, NonEmptyWorkDirIsRefusedAndLeftAlone) {
  const fs::path work = FreshDir("audit-mutate-nonempty-" + TestName());
  fs::create_directories(work / "000-unmodified");
  WriteFileAtomic(work / "000-unmodified" / "notes.txt", std::string("the user's own file\n"));
  const CommandResult r = Mutate(SmallRun("2", "2"), "--work-dir " + ShellQuote(work.string()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr(work.string()));
  EXPECT_THAT(r.output, HasSubstr("not empty"));
  ASSERT_TRUE(fs::is_regular_file(work / "000-unmodified" / "notes.txt")) << "audit mutate deleted a file it did not create";
  EXPECT_EQ(ReadFileText(work / "000-unmodified" / "notes.txt"), "the user's own file\n");
}

}  // namespace
}  // namespace pstrain::testing
