// `audit gates run`: summarizing a gate run from GoogleTest's XML report and the gate-kit ledger
// (canned files), and the command around it with fake gate binaries (shell scripts that write a
// report and a ledger, or crash). The end-to-end run on the real gates is in
// tests/auditor/gates/audit_gates_integration_test.cpp.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "common/file_io.h"
#include "report/audit_error.h"
#include "support/test_helpers.h"
#include "gates/gates_command.h"
#include "report/command_runner.h"
#include "gates/gates_summary.h"
#include "scope/scope_frontend.h"

namespace pstrain::audit {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

fs::path Scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("audit_gates_test_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

constexpr const char* kPassingXml = R"(<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="2" failures="0" disabled="0" errors="0" time="3" name="AllTests">
  <testsuite name="Gate" tests="2" failures="0" disabled="0" skipped="0" errors="0" time="3">
    <testcase name="FixedCountReproducibility" status="run" result="completed" time="2.5" classname="Gate" />
    <testcase name="NoLedger" status="run" result="completed" time="0.5" classname="Gate" />
  </testsuite>
</testsuites>
)";

constexpr const char* kFailingXml = R"(<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="2" failures="1" disabled="0" errors="0" time="3" name="AllTests">
  <testsuite name="Gate" tests="2" failures="1" disabled="0" skipped="1" errors="0" time="3">
    <testcase name="CrossCountExact" status="run" result="completed" time="2" classname="Gate">
      <failure message="gates/gate_kit.cpp:120&#x0A;produced files differ: means" type=""><![CDATA[gates/gate_kit.cpp:120
produced files differ: means]]></failure>
    </testcase>
    <testcase name="PeerAgreement" status="run" result="skipped" time="0" classname="Gate">
      <skipped message="no bw"><![CDATA[no bw]]></skipped>
    </testcase>
  </testsuite>
</testsuites>
)";

constexpr const char* kLedger =
    R"({"record":"declaration","gate":"Gate.FixedCountReproducibility","kind":"fixed-count-reproducibility","shard_counts":[2],"passes":3,"limitation":"one machine"})"
    "\n"
    R"({"record":"check","gate":"Gate.FixedCountReproducibility","helper":"ExpectProducedFilesIdentical","subjects":["means","variances"],"result":"pass","detail":""})"
    "\n"
    R"({"record":"check","gate":"Gate.FixedCountReproducibility","helper":"ExpectCopiedInputsIdentical","subjects":["mdef"],"result":"pass","detail":""})"
    "\n";

constexpr const char* kFailingLedger =
    R"({"record":"declaration","gate":"Gate.CrossCountExact","kind":"cross-count-exact","shard_counts":[1,2,3,4,7],"passes":5,"limitation":"exact"})"
    "\n"
    R"({"record":"check","gate":"Gate.CrossCountExact","helper":"ExpectProducedFilesIdentical","subjects":["mixture_weights"],"result":"pass","detail":""})"
    "\n"
    R"({"record":"check","gate":"Gate.CrossCountExact","helper":"ExpectProducedFilesIdentical","subjects":["means","variances"],"result":"fail","detail":"means: 3f2a... vs 91c0..."})"
    "\n"
    R"({"record":"check","gate":"Gate.CrossCountExact","helper":"ExpectJsonFieldsEqual","subjects":["totals.total_frames"],"result":"fail","detail":"totals.total_frames: 100 vs 101"})"
    "\n";

SummarizeInput Input(const fs::path& dir, const std::string& xml, const std::string& ledger) {
  SummarizeInput input;
  input.profile = "quick";
  input.gate_binary = "gate_tests";
  input.xml = dir / "report.xml";
  input.ledger = dir / "ledger.jsonl";
  if (!xml.empty()) WriteFileAtomic(input.xml, xml);
  if (!ledger.empty()) WriteFileAtomic(input.ledger, ledger);
  return input;
}

const GateSummary& Find(const GatesRunSummary& s, const std::string& name) {
  for (const GateSummary& g : s.gates) {
    if (g.name == name) return g;
  }
  static const GateSummary none;
  ADD_FAILURE() << "no gate " << name;
  return none;
}

TEST(AuditGatesSummaryTest, PassingGatesCountTheirChecksAndExitZero) {
  const fs::path dir = Scratch("pass");
  SummarizeInput input = Input(dir, kPassingXml, kLedger);
  input.sources = {{"Gate.NoLedger", "no-ledger-kind", {1, 2}, 4, "gates/x_gate.cpp:3"}};
  const GatesRunSummary s = Summarize(input);
  EXPECT_EQ(s.exit_code, 0);
  EXPECT_TRUE(s.problems.empty());
  ASSERT_EQ(s.gates.size(), 2u);
  const GateSummary& fixed = Find(s, "Gate.FixedCountReproducibility");
  EXPECT_EQ(fixed.result, "pass");
  EXPECT_EQ(fixed.kind, "fixed-count-reproducibility");
  EXPECT_EQ(fixed.shard_counts, (std::vector<std::uint32_t>{2}));
  EXPECT_EQ(fixed.passes, 3u);
  EXPECT_EQ(fixed.declared_in, "ledger");
  EXPECT_EQ(fixed.checks, 2u);
  EXPECT_EQ(fixed.failed_checks, 0u);
  EXPECT_FALSE(fixed.first_failed_check);
  EXPECT_DOUBLE_EQ(fixed.seconds, 2.5);

  // A gate with no ledger record passes GoogleTest but checked nothing through the kit; its
  // declaration comes from the source.
  const GateSummary& none = Find(s, "Gate.NoLedger");
  EXPECT_EQ(none.result, "pass");
  EXPECT_EQ(none.checks, 0u);
  EXPECT_EQ(none.declared_in, "source");
  EXPECT_EQ(none.kind, "no-ledger-kind");
  EXPECT_EQ(none.passes, 4u);

  const json::value j = json::parse(RenderGatesJson(s));
  EXPECT_EQ(j.at("exit_code").as_int64(), 0);
  EXPECT_EQ(j.at("result").as_string(), "pass");
  EXPECT_EQ(j.at("totals").at("passed").as_int64(), 2);
  EXPECT_EQ(j.at("gates").at(0).at("name").as_string(), "Gate.FixedCountReproducibility");
  EXPECT_EQ(j.at("gates").at(0).at("checks").as_int64(), 2);
  EXPECT_EQ(j.at("gates").at(0).at("declared_passes").as_int64(), 3);
  EXPECT_TRUE(j.at("gates").at(0).at("first_failed_check").is_null());
  EXPECT_EQ(j.at("gates").at(1).at("checks").as_int64(), 0);

  const std::string text = RenderGatesText(s);
  EXPECT_NE(text.find("PASS    Gate.FixedCountReproducibility"), std::string::npos) << text;
  EXPECT_NE(text.find("2 checks recorded, 0 failed"), std::string::npos) << text;
  EXPECT_NE(text.find("0 checks recorded"), std::string::npos) << text;
}

TEST(AuditGatesSummaryTest, AFailedCheckNamesWhatWasComparedAndExitsOne) {
  const fs::path dir = Scratch("fail");
  const GatesRunSummary s = Summarize(Input(dir, kFailingXml, kFailingLedger));
  EXPECT_EQ(s.exit_code, 1);
  const GateSummary& exact = Find(s, "Gate.CrossCountExact");
  EXPECT_EQ(exact.result, "fail");
  EXPECT_EQ(exact.kind, "cross-count-exact");
  EXPECT_EQ(exact.shard_counts, (std::vector<std::uint32_t>{1, 2, 3, 4, 7}));
  EXPECT_EQ(exact.checks, 3u);
  EXPECT_EQ(exact.failed_checks, 2u);
  ASSERT_TRUE(exact.first_failed_check);
  EXPECT_EQ(exact.first_failed_check->helper, "ExpectProducedFilesIdentical");
  EXPECT_EQ(exact.first_failed_check->subjects, (std::vector<std::string>{"means", "variances"}));
  EXPECT_EQ(exact.first_failed_check->detail, "means: 3f2a... vs 91c0...");
  EXPECT_EQ(exact.first_failed_check->line, 3u);
  EXPECT_EQ(exact.reason, "gates/gate_kit.cpp:120 | produced files differ: means");
  // A skipped gate did not run (a failure elsewhere decides the exit code: 1).
  EXPECT_EQ(Find(s, "Gate.PeerAgreement").result, "not-run");
  EXPECT_EQ(Find(s, "Gate.PeerAgreement").reason, "skipped: no bw");

  const json::value j = json::parse(RenderGatesJson(s));
  EXPECT_EQ(j.at("result").as_string(), "fail");
  const json::value& f = j.at("gates").at(0).at("first_failed_check");
  EXPECT_EQ(f.at("helper").as_string(), "ExpectProducedFilesIdentical");
  EXPECT_EQ(f.at("subjects").at(1).as_string(), "variances");
  EXPECT_EQ(f.at("detail").as_string(), "means: 3f2a... vs 91c0...");
  const std::string text = RenderGatesText(s);
  EXPECT_NE(text.find("first failed check: ExpectProducedFilesIdentical [means, variances]: means: 3f2a... vs 91c0..."),
            std::string::npos)
      << text;
  const std::string junit = RenderGatesJunit(s);
  EXPECT_NE(junit.find("<failure message="), std::string::npos) << junit;
  EXPECT_NE(junit.find("<error message=\"skipped: no bw\""), std::string::npos) << junit;
}

TEST(AuditGatesSummaryTest, ASkippedOrMissingSelectedGateWithoutFailuresExitsTwo) {
  const fs::path dir = Scratch("notrun");
  SummarizeInput input = Input(dir, kPassingXml, kLedger);
  input.selected = {"Gate.FixedCountReproducibility", "Gate.Absent"};
  const GatesRunSummary s = Summarize(input);
  EXPECT_EQ(s.exit_code, 2);
  EXPECT_EQ(Find(s, "Gate.Absent").result, "not-run");
  ASSERT_FALSE(s.problems.empty());
  EXPECT_NE(s.problems.front().find("Gate.Absent did not run"), std::string::npos) << s.problems.front();
}

TEST(AuditGatesSummaryTest, AMissingXmlReportExitsTwoButKeepsTheLedger) {
  const fs::path dir = Scratch("noxml");
  SummarizeInput input = Input(dir, "", kFailingLedger);
  input.selected = {"Gate.CrossCountExact"};
  input.run_problem = "the gate binary was killed by signal 11 (Segmentation fault) without an XML report";
  const GatesRunSummary s = Summarize(input);
  EXPECT_EQ(s.exit_code, 2);
  ASSERT_EQ(s.problems.size(), 2u);
  EXPECT_NE(s.problems[0].find("signal 11"), std::string::npos);
  EXPECT_NE(s.problems[1].find("wrote no XML report"), std::string::npos);
  ASSERT_EQ(s.gates.size(), 1u);
  EXPECT_EQ(s.gates[0].failed_checks, 2u);  // what the ledger recorded before the crash
  EXPECT_EQ(json::parse(RenderGatesJson(s)).at("result").as_string(), "not-run");
  EXPECT_NE(RenderGatesText(s).find("could not run: "), std::string::npos);
  // JUnit from the summary parses as a GoogleTest-style report.
  WriteFileAtomic(dir / "junit.xml", RenderGatesJunit(s));
  EXPECT_EQ(ParseGtestXml(dir / "junit.xml").size(), 1u);
}

TEST(AuditGatesSummaryTest, NoGateInTheReportAndBadInputsExitTwo) {
  const fs::path dir = Scratch("empty");
  const GatesRunSummary empty = Summarize(Input(dir, "<testsuites tests=\"0\"></testsuites>\n", ""));
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_TRUE(empty.gates.empty());

  const GatesRunSummary bad_xml = Summarize(Input(Scratch("badxml"), "<html>no</html>\n", kLedger));
  EXPECT_EQ(bad_xml.exit_code, 2);
  const GatesRunSummary bad_ledger = Summarize(Input(Scratch("badledger"), kPassingXml, "{not json\n"));
  EXPECT_EQ(bad_ledger.exit_code, 2);
  ASSERT_FALSE(bad_ledger.problems.empty());
  EXPECT_NE(bad_ledger.problems[0].find("ledger.jsonl:1"), std::string::npos) << bad_ledger.problems[0];
}

TEST(AuditGatesSummaryTest, ParsesGoogleTestXml) {
  const fs::path dir = Scratch("xml");
  WriteFileAtomic(dir / "r.xml", kFailingXml);
  const std::vector<XmlTestCase> cases = ParseGtestXml(dir / "r.xml");
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].name, "Gate.CrossCountExact");
  ASSERT_EQ(cases[0].failures.size(), 1u);
  EXPECT_EQ(cases[0].failures[0], "gates/gate_kit.cpp:120\nproduced files differ: means");
  EXPECT_EQ(cases[1].result, "skipped");
  EXPECT_THROW(ParseGtestXml(dir / "missing.xml"), std::exception);
}

// The XML and ledger readers throw the auditor's AuditError, naming the file (and the line).
TEST(AuditGatesSummaryTest, BadReportsAreAuditErrorsNamingTheFileAndLine) {
  EXPECT_EQ(test::ErrorMessage<AuditError>([] { ParseGtestXmlText("<html>no</html>\n", "r.xml"); }),
            "r.xml: not a GoogleTest XML report (no <testsuites>)");
  const fs::path dir = Scratch("errors");
  const std::string missing = (dir / "missing.xml").string();
  EXPECT_EQ(test::ErrorMessage<AuditError>([&] { ParseGtestXml(missing); }),
            missing + ": cannot read the GoogleTest XML report: " + missing + ": cannot open for reading: No such file or directory");
  const SummarizeInput input = Input(dir, kPassingXml, std::string(kLedger) + "[1, 2]\n");
  const GatesRunSummary s = Summarize(input);
  ASSERT_FALSE(s.problems.empty());
  const std::size_t line = static_cast<std::size_t>(std::count(kLedger, kLedger + std::strlen(kLedger), '\n')) + 1;
  EXPECT_EQ(s.problems[0], "unreadable ledger: " + input.ledger.string() + ":" + std::to_string(line) + ": not a JSON object");
}

// ---- the command, with fake gate binaries --------------------------------------------------------

// Gate sources declaring two gates, so that --only can select them: real C++ that compiles against
// the kit, because `audit gates run` reads the declarations with `audit scope`'s front end. They
// are compiled (for the front end only) with the flags the build's compilation database gives
// gates/fixed_count_gate.cpp, written to DIR/compile_commands.json, which `audit gates run` finds
// beside the fake binary DIR/bin/fake_gate_tests (as BUILD/compile_commands.json beside
// BUILD/gates/gate_tests).
fs::path GateSources(const fs::path& dir) {
  fs::create_directories(dir / "gates");
  const fs::path source = dir / "gates" / "exact_gate.cpp";
  WriteFileAtomic(source, R"cpp(#include <gtest/gtest.h>

#include <filesystem>

#include "gate_kit.h"

namespace pstrain::gates {
namespace {

TEST(Gate, CrossCountExact) {
  Gate gate({"cross-count-exact", {1, 2}, 5, "exact"});
  const std::filesystem::path a = "a", b = "b";
  gate.ExpectProducedFilesIdentical(a, b, {"means"});
}
TEST(Gate, Fixed) {
  Gate gate({"fixed-count-reproducibility", {2}, 3, "one machine"});
  const std::filesystem::path a = "a", b = "b";
  gate.ExpectProducedFilesIdentical(a, b, {"means"});
}

}  // namespace
}  // namespace pstrain::gates
)cpp");
  WriteCompileCommandsLike(PSTRAIN_COMPILE_COMMANDS, "gates/fixed_count_gate.cpp", source, dir);
  return dir / "gates";
}

// A fake gate_tests: records its arguments and environment, writes `xml` to the --gtest_output
// file and `ledger` to $PSTRAIN_GATE_LEDGER, exits `code`; with `crash`, kills itself instead.
fs::path FakeGateBinary(const fs::path& dir, const std::string& xml, const std::string& ledger, int code,
                        bool crash = false) {
  WriteFileAtomic(dir / "fake.xml", xml);
  WriteFileAtomic(dir / "fake.jsonl", ledger);
  fs::create_directories(dir / "bin");
  const fs::path script = dir / "bin" / "fake_gate_tests";
  std::ostringstream s;
  s << "#!/bin/sh\n"
    << "echo \"$@\" > '" << (dir / "args").string() << "'\n"
    << "echo \"$PSTRAIN_GATE_PROFILE $PSTRAIN_GATE_LEDGER\" > '" << (dir / "env").string() << "'\n"
    << "env | grep '^PSTRAIN_GATE_' | grep -v '_PROFILE=\\|_LEDGER=\\|_SCRATCH=' | sort > '" << (dir / "overrides").string() << "'\n"
    << "echo 'gate output line'\n"
    << "cat '" << (dir / "fake.jsonl").string() << "' >> \"$PSTRAIN_GATE_LEDGER\"\n";
  if (crash) {
    s << "kill -SEGV $$\n";
  } else {
    s << "for a in \"$@\"; do case \"$a\" in --gtest_output=xml:*) cp '" << (dir / "fake.xml").string()
      << "' \"${a#--gtest_output=xml:}\";; esac; done\n"
      << "exit " << code << "\n";
  }
  WriteFileAtomic(script, s.str());
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

int RunGates(const std::vector<std::string>& args, std::string& out, std::string& err) {
  std::ostringstream o, e;
  const int code = RunReportingErrors("gates", RunGatesCommand, args, o, e);
  out = o.str();
  err = e.str();
  return code;
}

TEST(AuditGatesCommandTest, BadUsageExitsTwo) {
  std::string out, err;
  EXPECT_EQ(RunGates({"run", "--profile", "fast"}, out, err), 2);
  EXPECT_NE(err.find("quick or full"), std::string::npos) << err;
  EXPECT_EQ(RunGates({"frobnicate"}, out, err), 2);
  EXPECT_EQ(RunGates({}, out, err), 2);
  EXPECT_EQ(RunGates({"run", "--help"}, out, err), 0);
  EXPECT_NE(out.find("usage: audit gates run"), std::string::npos);
  EXPECT_NE(out.find("--shards LIST"), std::string::npos);
}

TEST(AuditGatesCommandTest, ParsesShardListsAndPasses) {
  std::string problem;
  EXPECT_EQ(ParseShardCounts("1,2,4", problem), (std::vector<std::uint32_t>{1, 2, 4}));
  EXPECT_EQ(problem, "");
  EXPECT_EQ(ParseShardCounts("3,1,3", problem), (std::vector<std::uint32_t>{3, 1}));  // duplicates dropped, order kept
  for (const char* bad : {"", "0", "1,0", "a", "1,,2", "1,", "-1", "1.5", "1 2", "9999999"}) {
    problem.clear();
    ParseShardCounts(bad, problem);
    EXPECT_NE(problem.find("--shards"), std::string::npos) << "'" << bad << "' was accepted";
  }
  problem.clear();
  EXPECT_EQ(ParsePositive("12", "--passes", problem), 12u);
  EXPECT_EQ(problem, "");
  ParsePositive("0", "--passes", problem);
  EXPECT_EQ(problem, "--passes: '0' is not a positive integer (at most 6 digits)");

  EXPECT_EQ(ShardOverrideProblem("fixed-count-reproducibility", {3}), "");
  EXPECT_EQ(ShardOverrideProblem("cross-count-exact", {1, 3}), "");
  EXPECT_NE(ShardOverrideProblem("cross-count-exact", {3}).find("at least 2 distinct counts"), std::string::npos);
  EXPECT_NE(ShardOverrideProblem("cross-count-discrete-state", {2}), "");
  EXPECT_NE(ShardOverrideProblem("multipron-sharding", {4}), "");
  EXPECT_NE(ShardOverrideProblem("provenance-comparison", {2}), "");
  EXPECT_EQ(ShardOverrideProblem("completion-order", {1, 2}), "");
  EXPECT_NE(ShardOverrideProblem("completion-order", {1}), "");
  EXPECT_EQ(ShardOverrideProblem("one-shard-reference", {5}), "");  // ignored, not refused
  EXPECT_EQ(IgnoredOverride("one-shard-reference", "--shards"), "one-shard-reference ignores --shards (one shard by definition)");
  EXPECT_NE(IgnoredOverride("artifact-validation", "--passes"), "");
  EXPECT_EQ(IgnoredOverride("cross-count-exact", "--shards"), "");
}

TEST(AuditGatesCommandTest, BadOverridesExitTwoBeforeAnyGateRuns) {
  const fs::path dir = Scratch("cmd_bad_overrides");
  const fs::path binary = FakeGateBinary(dir, kPassingXml, kLedger, 0);
  const std::string gates = GateSources(dir).string();
  WriteFileAtomic(dir / "not-a-manifest", "hello\n");
  std::string out, err;
  const auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", "--gate-binary", binary.string(), "--gates", gates, "--work-dir", (dir / "work").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunGates(args, out, err);
  };
  EXPECT_EQ(run({"--shards", "1,x"}), 2);
  EXPECT_NE(err.find("--shards: 'x' is not a positive integer"), std::string::npos) << err;
  EXPECT_EQ(run({"--passes", "0"}), 2);
  EXPECT_NE(err.find("--passes: '0' is not a positive integer"), std::string::npos) << err;
  // One count: cross-count-exact (selected by default: every gate of the sources) cannot use it.
  EXPECT_EQ(run({"--shards", "3"}), 2);
  EXPECT_NE(err.find("--shards 3 cannot be used: cross-count-exact compares every count"), std::string::npos) << err;
  EXPECT_EQ(run({"--corpus", (dir / "missing.manifest").string()}), 2);
  EXPECT_NE(err.find("--corpus: the manifest " + (dir / "missing.manifest").string() + " does not exist"), std::string::npos) << err;
  EXPECT_EQ(run({"--corpus", (dir / "not-a-manifest").string()}), 2);
  EXPECT_NE(err.find("--corpus: the manifest does not load: "), std::string::npos) << err;
  EXPECT_NE(err.find("not-a-manifest"), std::string::npos) << err;
  EXPECT_EQ(run({"--dict", (dir / "x.dic").string()}), 2);
  EXPECT_NE(err.find("--dict needs --corpus MANIFEST"), std::string::npos) << err;
  EXPECT_EQ(run({"--pstrain", (dir / "no-pstrain").string()}), 2);
  EXPECT_NE(err.find("--pstrain: " + (dir / "no-pstrain").string() + " is not an executable file"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir / "args")) << "the binary must not run";
}

TEST(AuditGatesCommandTest, OverridesReachTheGatesAsEnvironmentAndTheRunRecordIsPrinted) {
  const fs::path dir = Scratch("cmd_overrides");
  const std::string ledger = std::string(kLedger) +
      R"J({"record":"run","gate":"Gate.FixedCountReproducibility","profile":"quick","shard_counts":[1,3],"passes":2,"corpus":{"name":"override","manifest":"/c/small.manifest","root":"/c","utterances":8,"fingerprint":"0123456789abcdef"},"pstrain":"/bin/pstrain","overrides_applied":["PSTRAIN_GATE_SHARDS=1,3 (each count, on its own)","PSTRAIN_GATE_PASSES=2"],"overrides_ignored":[]})J"
      "\n";
  const fs::path binary = FakeGateBinary(dir, kPassingXml, ledger, 0);
  const fs::path pstrain = dir / "my-pstrain";
  WriteFileAtomic(pstrain, "#!/bin/sh\n");
  fs::permissions(pstrain, fs::perms::owner_all);
  std::string out, err;
  ::setenv("PSTRAIN_GATE_CORPUS", "/stale/from/the/shell", 1);  // not passed on: not on this command line
  const int code = RunGates({"run", "--gate-binary", binary.string(), "--gates", GateSources(dir).string(), "--shards", "1,3", "--passes", "2", "--pstrain", pstrain.string(),
                             "--work-dir", (dir / "work").string(), "--json", (dir / "s.json").string(), "--junit",
                             (dir / "junit.xml").string()},
                            out, err);
  ::unsetenv("PSTRAIN_GATE_CORPUS");
  EXPECT_EQ(code, 0) << out << err;
  EXPECT_EQ(ReadFileText(dir / "overrides"),
            "PSTRAIN_GATE_PASSES=2\nPSTRAIN_GATE_PSTRAIN=" + pstrain.string() + "\nPSTRAIN_GATE_SHARDS=1,3\n");
  EXPECT_NE(out.find("audit gates: override PSTRAIN_GATE_SHARDS=1,3"), std::string::npos) << out;
  EXPECT_NE(out.find("ran:       shard counts {1, 3}, 2 passes, corpus override /c/small.manifest (8 utterances, sha256 0123456789ab)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("override applied: PSTRAIN_GATE_PASSES=2"), std::string::npos) << out;
  EXPECT_NE(out.find("ran:       (no run record in the ledger)"), std::string::npos) << out;  // Gate.NoLedger
  const json::value j = json::parse(ReadFileText(dir / "s.json"));
  EXPECT_EQ(j.at("overrides").as_array().size(), 3u);
  const json::value& run = j.at("gates").at(0).at("run");
  EXPECT_EQ(run.at("shard_counts"), json::array({1, 3}));
  EXPECT_EQ(run.at("passes").as_int64(), 2);
  EXPECT_EQ(run.at("corpus").at("utterances").as_int64(), 8);
  EXPECT_EQ(run.at("corpus").at("manifest").as_string(), "/c/small.manifest");
  EXPECT_TRUE(j.at("gates").at(1).at("run").is_null());
}

TEST(AuditGatesSummaryTest, TheJunitReportCarriesTheRunAsProperties) {
  const fs::path dir = Scratch("junit_run");
  const std::string ledger = std::string(kLedger) +
      R"J({"record":"run","gate":"Gate.FixedCountReproducibility","profile":"quick","shard_counts":[2],"passes":3,"corpus":{"name":"default","manifest":"/c/train.manifest","root":"/c","utterances":93,"fingerprint":"abc"},"pstrain":"/bin/pstrain","overrides_applied":[],"overrides_ignored":["PSTRAIN_GATE_SHARDS=5: ignored"]})J"
      "\n";
  const GatesRunSummary s = Summarize(Input(dir, kPassingXml, ledger));
  const std::string junit = RenderGatesJunit(s);
  EXPECT_NE(junit.find("<property name=\"run\" value=\"shard counts {2}, 3 passes, corpus default /c/train.manifest (93 utterances"),
            std::string::npos)
      << junit;
  EXPECT_NE(junit.find("<property name=\"run_overrides_ignored\" value=\"PSTRAIN_GATE_SHARDS=5: ignored\"/>"), std::string::npos) << junit;
  EXPECT_EQ(ParseGtestXml(dir / "report.xml").size(), 2u);
  WriteFileAtomic(dir / "junit.xml", junit);
  EXPECT_EQ(ParseGtestXml(dir / "junit.xml").size(), 2u);  // still well-formed
}

TEST(AuditGatesCommandTest, AMissingBinaryOrAnUnknownKindExitsTwo) {
  const fs::path dir = Scratch("cmd_missing");
  std::string out, err;
  EXPECT_EQ(RunGates({"run", "--gate-binary", (dir / "nope").string()}, out, err), 2);
  EXPECT_NE(err.find("missing or not executable"), std::string::npos) << err;

  const fs::path binary = FakeGateBinary(dir, kPassingXml, kLedger, 0);
  EXPECT_EQ(RunGates({"run", "--gate-binary", binary.string(), "--gates", GateSources(dir).string(), "--only", "no-such-kind"},
                out, err),
            2);
  EXPECT_NE(err.find("no gate in"), std::string::npos) << err;
  EXPECT_NE(err.find("known kinds: cross-count-exact fixed-count-reproducibility"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir / "args")) << "the binary must not run";
}

TEST(AuditGatesCommandTest, AFailingGateBinaryExitsOneWithTheFirstDifference) {
  const fs::path dir = Scratch("cmd_fail");
  const fs::path binary = FakeGateBinary(dir, kFailingXml, kFailingLedger, 1);
  const fs::path ledger = dir / "run-ledger.jsonl";
  WriteFileAtomic(ledger, "stale line from an earlier run\n");  // the ledger starts fresh
  std::string out, err;
  const int code = RunGates({"run", "--gate-binary", binary.string(), "--gates", GateSources(dir).string(), "--only",
                        "cross-count-exact", "--profile", "full", "--ledger", ledger.string(), "--work-dir",
                        (dir / "work").string(), "--json", (dir / "s.json").string(), "--junit",
                        (dir / "junit.xml").string()},
                       out, err);
  EXPECT_EQ(code, 1) << out << err;
  EXPECT_NE(ReadFileText(dir / "args").find("--gtest_filter=Gate.CrossCountExact"), std::string::npos);
  EXPECT_EQ(ReadFileText(dir / "env"), "full " + fs::absolute(ledger).string() + "\n");
  EXPECT_NE(out.find("FAIL    Gate.CrossCountExact"), std::string::npos) << out;
  EXPECT_NE(out.find("first failed check: ExpectProducedFilesIdentical [means, variances]: means: 3f2a... vs 91c0..."),
            std::string::npos)
      << out;
  EXPECT_NE(err.find("gates failed"), std::string::npos) << err;
  const json::value j = json::parse(ReadFileText(dir / "s.json"));
  EXPECT_EQ(j.at("exit_code").as_int64(), 1);
  EXPECT_EQ(j.at("profile").as_string(), "full");
  EXPECT_EQ(j.at("gates").at(0).at("failed_checks").as_int64(), 2);
  EXPECT_EQ(ReadFileText(dir / "junit.xml"), kFailingXml);  // GoogleTest's report, copied
  EXPECT_EQ(ReadFileText(dir / "work" / "gate-output.log"), "gate output line\n");
}

TEST(AuditGatesCommandTest, ACrashWithoutXmlExitsTwo) {
  const fs::path dir = Scratch("cmd_crash");
  const fs::path binary = FakeGateBinary(dir, kPassingXml, kLedger, 0, /*crash=*/true);
  std::string out, err;
  const int code = RunGates({"run", "--gate-binary", binary.string(), "--gates", GateSources(dir).string(), "--work-dir",
                        (dir / "work").string(), "--json", (dir / "s.json").string(), "--junit",
                        (dir / "junit.xml").string()},
                       out, err);
  EXPECT_EQ(code, 2) << out << err;
  EXPECT_NE(out.find("killed by signal 11"), std::string::npos) << out;
  EXPECT_NE(out.find("gate output line"), std::string::npos) << out;  // the tail of its output
  const json::value j = json::parse(ReadFileText(dir / "s.json"));
  EXPECT_EQ(j.at("result").as_string(), "not-run");
  // The declared gates (2 in the sources) and the gates the ledger recorded before the crash (1
  // more) are still listed, none as passed.
  EXPECT_EQ(j.at("totals").at("gates").as_int64(), 3);
  EXPECT_EQ(j.at("totals").at("passed").as_int64(), 0);
  EXPECT_NE(out.find("NOT RUN Gate.FixedCountReproducibility"), std::string::npos) << out;
  EXPECT_NE(out.find("2 checks recorded, 0 failed"), std::string::npos) << out;
  EXPECT_EQ(ParseGtestXml(dir / "junit.xml").size(), 3u);
}

TEST(AuditGatesCommandTest, APassingGateBinaryExitsZero) {
  const fs::path dir = Scratch("cmd_pass");
  const fs::path binary = FakeGateBinary(dir, kPassingXml, kLedger, 0);
  std::string out, err;
  EXPECT_EQ(RunGates({"run", "--gate-binary", binary.string(), "--gates", GateSources(dir).string(), "--work-dir",
                 (dir / "work").string()},
                out, err),
            0)
      << out << err;
  EXPECT_EQ(ReadFileText(dir / "args").find("--gtest_filter"), std::string::npos);  // every gate
  EXPECT_NE(out.find("2 gates: 2 passed, 0 failed, 0 not run"), std::string::npos) << out;
}

// A gate binary writing a 100,000-deep XML report used to crash `audit gates run` (SIGSEGV in the
// recursive XML parser): the report is unreadable, exit 2 naming it (docs/gates.md).
TEST(AuditGatesCommandTest, ADeeplyNestedXmlReportIsUnreadableAndExitsTwo) {
  const fs::path dir = Scratch("cmd_deep_xml");
  std::string xml = "<?xml version=\"1.0\"?>\n<testsuites>";
  for (int k = 0; k < 100000; ++k) xml += "<a>";
  for (int k = 0; k < 100000; ++k) xml += "</a>";
  xml += "</testsuites>\n";
  const fs::path binary = FakeGateBinary(dir, xml, kLedger, 0);
  std::string out, err;
  const int code = RunGates({"run", "--gate-binary", binary.string(), "--gates", GateSources(dir).string(), "--work-dir",
                             (dir / "work").string(), "--json", (dir / "s.json").string(), "--junit",
                             (dir / "junit.xml").string()},
                            out, err);
  EXPECT_EQ(code, 2) << out << err;
  const std::string report = (dir / "work" / "gtest-report.xml").string();
  EXPECT_NE(out.find(report + ": not a GoogleTest XML report: elements nested more than 64 deep"), std::string::npos)
      << out;
  EXPECT_EQ(json::parse(ReadFileText(dir / "s.json")).at("exit_code").as_int64(), 2);
  // The JUnit file is made from the summary, not copied from the unreadable report.
  EXPECT_EQ(ParseGtestXml(dir / "junit.xml").size(), 3u);
}

// Right after a build, without the corpus the ctest fixture builds, every gate used to be FAILED
// (exit 1, "default corpus missing at build/corpus/default"). A gate that fails only for lack of its
// corpus did not run: NOT RUN, exit 2, with the command that prepares it.
TEST(AuditGatesCommandTest, AGateWithoutItsCorpusIsNotRunWithTheCommandThatPreparesIt) {
  const fs::path dir = Scratch("cmd_no_corpus");
  const std::string missing =
      "C++ exception with description &quot;default corpus missing at /b/corpus/default (the prepare_default_corpus "
      "test fixture builds it)&quot; thrown in the test body.";
  const std::string xml = std::string(R"(<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="2" failures="2" disabled="0" errors="0" time="0" name="AllTests">
  <testsuite name="Gate" tests="2" failures="2" disabled="0" skipped="0" errors="0" time="0">
    <testcase name="FixedCountReproducibility" status="run" result="completed" time="0" classname="Gate">
      <failure message=")") + missing + R"(" type=""/>
    </testcase>
    <testcase name="NoLedger" status="run" result="completed" time="0" classname="Gate">
      <failure message=")" + missing + R"(" type=""/>
    </testcase>
  </testsuite>
</testsuites>
)";
  const fs::path binary = FakeGateBinary(dir, xml, "", 1);
  std::string out, err;
  const int code = RunGates({"run", "--gate-binary", binary.string(), "--gates", GateSources(dir).string(), "--work-dir",
                             (dir / "work").string(), "--json", (dir / "s.json").string()},
                            out, err);
  EXPECT_EQ(code, 2) << out << err;
  EXPECT_NE(out.find("NOT RUN Gate.FixedCountReproducibility"), std::string::npos) << out;
  EXPECT_NE(out.find("its fixture is missing: no corpus at /b/corpus/default; prepare it with: bash "
                     "scripts/prepare-corpus.sh /b/corpus/default"),
            std::string::npos)
      << out;
  const json::value j = json::parse(ReadFileText(dir / "s.json"));
  EXPECT_EQ(j.at("totals").at("failed").as_int64(), 0);
  EXPECT_EQ(j.at("result").as_string(), "not-run");
  // A fake binary outside a build tree: no corpus is prepared, and the output says so.
  EXPECT_NE(out.find("is not in a build tree (no CMakeCache.txt two levels up): the default corpus is not prepared"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace pstrain::audit
