// `audit scope` on the compiler's view (libclang): the trick gates of tests/scope_cases/ with the
// exact CHECKED, CHECKED-if-reached and not-counted lists and each call site's ledger verdict after
// running their compiled copy; the ledger keyed by call site; errors and limits (no compilation
// database, a source that does not compile, deep nesting, macro bombs); --check/--update.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "common/file_io.h"
#include "gates/gates_summary.h"
#include "scope/scope_command.h"
#include "report/command_runner.h"
#include "scope/scope_doc.h"
#include "scope/scope_extractor.h"
#include "scope/scope_frontend.h"
#include "scope/scope_ledger.h"
#include "scope/scope_pch.h"
#include "scope/scope_report.h"
#include "report/audit_error.h"
#include "support/test_helpers.h"

namespace pstrain::audit {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

const fs::path kTricks = fs::path(PSTRAIN_SOURCE_DIR) / "tests" / "scope_cases" / "tricks_gate.cpp";

// ---- the trick gates -----------------------------------------------------------------------------

struct Expected {
  std::vector<std::string> checked;     // DescribeCheck of the CHECKED calls, in source order
  std::vector<std::string> if_reached;  // ... of the calls CHECKED if reached
  std::vector<std::pair<std::string, std::string>> dead;  // not counted: what, a part of the reason
  std::map<std::string, std::string> verdicts;            // call (DescribeCheck) -> ledger finding label
};

const char* const kPassed = "executed and passed";
const char* const kFailed = "executed and failed";
const char* const kNotReached = "not reached (CHECKED if reached; not a problem)";

const std::map<std::string, Expected>& TrickExpectations() {
  static const std::map<std::string, Expected> kExpected = {
      {"Trick.NeverCalledLambda",
       {{"ExpectWithin(lambda called at once)"},
        {"ExpectWithin(lambda never called)"},
        {},
        {{"ExpectWithin(lambda called at once)", kPassed}, {"ExpectWithin(lambda never called)", kNotReached}}}},
      {"Trick.SkipInNestedBlock",
       {{"ExpectWithin(before skip)"}, {}, {{"ExpectWithin(after skip)", "dead code after `GTEST_SKIP(...)`"}}, {{"ExpectWithin(before skip)", kPassed}}}},
      {"Trick.ConstantFalse",
       {{"ExpectWithin(if constexpr else)"},
        {},
        {{"ExpectWithin(if false)", "is always false"}, {"ExpectWithin(if constexpr false)", "is always false"}},
        {{"ExpectWithin(if constexpr else)", kPassed}}}},
      {"Trick.AfterFatalAssertion",
       {{"ExpectWithin(before assert)"},
        {},
        {{"ExpectWithin(after assert)", "after `ASSERT_TRUE(...)`, a fatal assertion that always fails"}},
        {{"ExpectWithin(before assert)", kPassed}}}},
      {"Trick.NotAGate",
       {{"ExpectWithin(real gate)"},
        {},
        {{"Lookalike::ExpectWithin(\"lookalike\", 1, 1, 0, 0)", "not a kit helper"}},
        {{"ExpectWithin(real gate)", kPassed}}}},
      {"Trick.Unevaluated",
       {{"ExpectWithin(evaluated)"},
        {},
        {{"ExpectWithin(decltype)", "decltype"}, {"ExpectWithin(sizeof)", "operand of `sizeof`"}, {"ExpectWithin(noexcept)", "operand of `noexcept`"}},
        {{"ExpectWithin(evaluated)", kPassed}}}},
      {"Trick.ShortCircuit",
       {{"ExpectWithin(or left)"},
        {"ExpectWithin(or right)"},
        {{"ExpectWithin(or right of true)", "left operand of `||`"}},
        {{"ExpectWithin(or left)", kPassed}, {"ExpectWithin(or right)", kNotReached}}}},
      {"Trick.ZeroTripLoop",
       {{"ExpectWithin(braced-list loop)"},
        {"ExpectWithin(zero-trip loop)"},
        {},
        {{"ExpectWithin(braced-list loop)", kPassed}, {"ExpectWithin(zero-trip loop)", kNotReached}}}},
      {"Trick.CatchNeverEntered",
       {{"ExpectWithin(in try)"}, {"ExpectWithin(in catch)"}, {}, {{"ExpectWithin(in try)", kPassed}, {"ExpectWithin(in catch)", kNotReached}}}},
      {"Trick.IfdefUndefined",
       {{"ExpectWithin(under ifndef)"}, {}, {{"ExpectWithin(under ifdef)", "inactive preprocessor branch"}}, {{"ExpectWithin(under ifndef)", kPassed}}}},
      {"Trick.LineContinuation", {{"ExpectWithin(split name)"}, {}, {}, {{"ExpectWithin(split name)", kPassed}}}},
      {"Trick.GotoLabel",
       {{"ExpectWithin(after label)"}, {}, {{"ExpectWithin(jumped over)", "dead code after `goto`"}}, {{"ExpectWithin(after label)", kPassed}}}},
      {"Trick.CommentsAndStrings", {{"ExpectWithin(real call)"}, {}, {}, {{"ExpectWithin(real call)", kPassed}}}},
      {"Trick.IfZero",
       {{"ExpectWithin(after if 0)"}, {}, {{"ExpectWithin(under if 0)", "inactive preprocessor branch"}}, {{"ExpectWithin(after if 0)", kPassed}}}},
      {"Trick.Functions", {{"ExpectWithin(in called function)"}, {}, {}, {{"ExpectWithin(in called function)", kPassed}}}},
      {"Trick.AfterReturn",
       {{"ExpectWithin(before return)"}, {}, {{"ExpectWithin(after return)", "dead code after `return`"}}, {{"ExpectWithin(before return)", kPassed}}}},
      {"Trick.Macros",
       {{"ExpectWithin(file macro)", "ExpectWithin(inside EXPECT_TRUE)"},
        {},
        {},
        {{"ExpectWithin(file macro)", kPassed}, {"ExpectWithin(inside EXPECT_TRUE)", kPassed}}}},
      {"Trick.RuntimeBranch",
       {{},
        {"ExpectWithin(then branch)", "ExpectWithin(else branch)"},
        {},
        {{"ExpectWithin(then branch)", kNotReached}, {"ExpectWithin(else branch)", kPassed}}}},
      {"Trick.Failing", {{"ExpectWithin(fails on purpose)"}, {}, {}, {{"ExpectWithin(fails on purpose)", kFailed}}}},
      // A called function that always throws ends the flow like a `throw` in the body.
      {"Trick.AfterACallThatAlwaysThrows",
       {{"ExpectWithin(before the throwing call)"},
        {},
        {{"ExpectWithin(after the throwing call)", "dead code after `throw` in AlwaysThrows(), which the call at line"}},
        {{"ExpectWithin(before the throwing call)", kPassed}}}},
  };
  return kExpected;
}

// What the two suites over tests/scope_cases/ share: one parse of the case file and one run of its
// compiled copy (its gate ledger, and with kWritesXml its GoogleTest XML, in temp files) for the
// whole suite, the report over that one file, and a gate found by name. `Cases` (the suite itself)
// names the file (Source(), kRelative), the compiled copy (kBinary) and the temp files (kTag).
template <typename Cases>
class ScopeCasesSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // An exception here would make GoogleTest skip the suite; each test fails with it instead.
    try {
      scope_ = new FileScope(ExtractFileScope(Cases::Source(), PSTRAIN_COMPILE_COMMANDS, Cases::kRelative, Cases::Source().parent_path()));
    } catch (const std::exception& error) {
      setup_error_ = new std::string(error.what());
      scope_ = new FileScope();
    }
    const std::string stem = "pstrain-scope-" + std::string(Cases::kTag) + "-" + std::to_string(::getpid());
    ledger_path_ = new fs::path(fs::temp_directory_path() / (stem + ".jsonl"));
    fs::remove(*ledger_path_);
    std::string command = "PSTRAIN_GATE_LEDGER='" + ledger_path_->string() + "' '" + Cases::kBinary + "'";
    if (Cases::kWritesXml) {
      xml_path_ = new fs::path(fs::temp_directory_path() / (stem + ".xml"));
      fs::remove(*xml_path_);
      command += " --gtest_output=xml:'" + xml_path_->string() + "'";
    }
    command += " > /dev/null 2>&1";
    run_status_ = std::system(command.c_str());
  }
  static void TearDownTestSuite() {
    fs::remove(*ledger_path_);
    if (xml_path_ != nullptr) fs::remove(*xml_path_);
    delete xml_path_;
    xml_path_ = nullptr;
    delete scope_;
    delete ledger_path_;
    delete setup_error_;
    setup_error_ = nullptr;
  }
  void SetUp() override { ASSERT_EQ(setup_error_, nullptr) << "parsing " << Cases::kRelative << " failed: " << *setup_error_; }

  static ScopeReport Report() {
    ScopeReport report;
    report.gates_dir = "scope_cases";
    report.files.push_back(*scope_);
    return report;
  }

  static const GateScope* Find(const std::string& name) {
    for (const GateScope& g : scope_->gates) {
      if (g.FullName() == name) return &g;
    }
    return nullptr;
  }

  inline static FileScope* scope_ = nullptr;
  inline static fs::path* ledger_path_ = nullptr;
  inline static fs::path* xml_path_ = nullptr;  // only with Cases::kWritesXml
  inline static int run_status_ = 0;
  inline static std::string* setup_error_ = nullptr;
};

class ScopeTricksTest : public ScopeCasesSuite<ScopeTricksTest> {
 public:
  static fs::path Source() { return kTricks; }
  static constexpr const char* kRelative = "scope_cases/tricks_gate.cpp";
  static constexpr const char* kBinary = PSTRAIN_SCOPE_CASES_BINARY;
  static constexpr const char* kTag = "tricks";
  static constexpr bool kWritesXml = false;
};

TEST_F(ScopeTricksTest, EveryTrickGetsExactlyItsCheckedIfReachedAndDeadLists) {
  ASSERT_EQ(scope_->gates.size(), TrickExpectations().size());
  for (const auto& [name, expected] : TrickExpectations()) {
    SCOPED_TRACE(name);
    const GateScope* gate = Find(name);
    ASSERT_NE(gate, nullptr);
    std::vector<std::string> checked, if_reached;
    for (const Check& c : gate->checks) (c.unconditional() ? checked : if_reached).push_back(DescribeCheck(c));
    EXPECT_EQ(checked, expected.checked);
    EXPECT_EQ(if_reached, expected.if_reached);
    ASSERT_EQ(gate->not_counted.size(), expected.dead.size()) << RenderMarkdown(Report());
    for (std::size_t i = 0; i < expected.dead.size(); ++i) {
      EXPECT_EQ(gate->not_counted[i].what, expected.dead[i].first);
      EXPECT_NE(gate->not_counted[i].reason.find(expected.dead[i].second), std::string::npos) << gate->not_counted[i].reason;
    }
    ASSERT_EQ(gate->declarations.size(), 1u);
    EXPECT_EQ(gate->declarations[0].kind->text, "trick");
  }
  // The function no test calls is listed on its own.
  ASSERT_EQ(scope_->unattributed.size(), 1u);
  EXPECT_EQ(scope_->unattributed[0].what, "ExpectWithin(in uncalled function)");
}

TEST_F(ScopeTricksTest, CallsTheAstCannotDecideSayWhy) {
  const GateScope* loop = Find("Trick.ZeroTripLoop");
  ASSERT_NE(loop, nullptr);
  ASSERT_EQ(loop->checks.size(), 2u);
  EXPECT_NE(loop->checks[0].if_reached.find("may run zero times"), std::string::npos) << loop->checks[0].if_reached;
  const GateScope* lambda = Find("Trick.NeverCalledLambda");
  ASSERT_NE(lambda, nullptr);
  EXPECT_NE(lambda->checks[0].if_reached.find("lambda"), std::string::npos);
  const GateScope* shortcircuit = Find("Trick.ShortCircuit");
  EXPECT_NE(shortcircuit->checks[1].if_reached.find("right operand of `||`"), std::string::npos);
  const GateScope* caught = Find("Trick.CatchNeverEntered");
  EXPECT_NE(caught->checks[1].if_reached.find("`catch` handler"), std::string::npos);
  // The Markdown report has its own section for them.
  const std::string md = RenderMarkdown(Report());
  EXPECT_NE(md.find("   - CHECKED if reached (the ledger decides): within tolerance \"zero-trip loop\""), std::string::npos) << md;
}

TEST_F(ScopeTricksTest, TheLedgerOfTheCompiledCopyGivesEachCallSiteItsVerdict) {
  // The binary fails (Trick.AfterFatalAssertion, Trick.Failing and Trick.AfterACallThatAlwaysThrows
  // fail on purpose) but runs all.
  EXPECT_NE(run_status_, 0);
  const LedgerCrossCheck cross = CrossCheck(Report(), ReadLedger(*ledger_path_));
  std::map<std::pair<std::string, std::string>, std::string> verdicts;
  for (const LedgerFinding& f : cross.findings) {
    EXPECT_NE(f.kind, FindingKind::kUnderClaim) << f.gate << " " << f.what << " " << f.detail;
    EXPECT_NE(f.kind, FindingKind::kNeverExecuted) << f.gate << " " << f.what;
    if (f.kind != FindingKind::kNoDeclarationRecord) verdicts[{f.gate, f.what}] = FindingLabel(f.kind);
  }
  std::size_t sites = 0;
  for (const auto& [name, expected] : TrickExpectations()) {
    for (const auto& [call, verdict] : expected.verdicts) {
      EXPECT_EQ(verdicts[std::make_pair(name, call)], verdict) << name << " " << call;
      ++sites;
    }
  }
  EXPECT_EQ(verdicts.size(), sites);
  EXPECT_EQ(cross.problems(), 1u);  // Trick.Failing's check
  // The braced-list loop's call ran twice at one call site.
  for (const LedgerFinding& f : cross.findings) {
    if (f.what == "ExpectWithin(braced-list loop)") {
      EXPECT_EQ(f.count, 2u);
    }
  }
}

TEST_F(ScopeTricksTest, ARecordAtACallSiteTheReportLacksIsAnUnderClaimAndAMissingOneNeverExecuted) {
  Ledger ledger = ReadLedger(*ledger_path_);
  // Move the record of "before skip" to another line: its site is never executed, and the moved
  // record is an under-claim.
  bool moved = false;
  for (LedgerRecord& r : ledger.records) {
    if (r.record == "check" && !r.subjects.empty() && r.subjects[0] == "before skip") {
      r.site_line += 1000;
      moved = true;
    }
  }
  ASSERT_TRUE(moved);
  const LedgerCrossCheck cross = CrossCheck(Report(), ledger);
  std::size_t under = 0, never = 0;
  for (const LedgerFinding& f : cross.findings) {
    under += f.kind == FindingKind::kUnderClaim ? 1 : 0;
    if (f.kind == FindingKind::kNeverExecuted) {
      ++never;
      EXPECT_EQ(f.what, "ExpectWithin(before skip)");
    }
  }
  EXPECT_EQ(under, 1u);
  EXPECT_EQ(never, 1u);
  EXPECT_EQ(cross.problems(), 3u);
  const std::string md = RenderLedgerMarkdown(cross);
  EXPECT_NE(md.find("3 problems (1 never executed, 1 failed, 1 under-claimed"), std::string::npos) << md;
}

TEST_F(ScopeTricksTest, TheCommandExitsOneOnLedgerProblemsAndRendersJsonWithCallSites) {
  std::ostringstream out, err;
  const int code = RunReportingErrors("scope", RunScopeCommand, {"--gates", kTricks.string(), "--compile-commands", PSTRAIN_COMPILE_COMMANDS, "--format", "json", "--ledger",
                                    ledger_path_->string()},
                                   out, err);
  EXPECT_EQ(code, 1) << err.str();
  const json::object root = json::parse(out.str()).as_object();
  EXPECT_EQ(root.at("format").as_string(), "pstrain-gate-scope-2");
  const json::object& gate = root.at("files").as_array()[0].as_object().at("gates").as_array()[0].as_object();
  const json::object& checked = gate.at("checked").as_array()[0].as_object();
  EXPECT_EQ(checked.at("file").as_string(), "scope_cases/tricks_gate.cpp");
  EXPECT_GT(checked.at("line").to_number<int>(), 0);
  EXPECT_GT(checked.at("column").to_number<int>(), 0);
  EXPECT_EQ(gate.at("checked_if_reached").as_array().size(), 1u);
  EXPECT_EQ(root.at("ledger").as_object().at("failed").to_number<int>(), 1);
}

// ---- fixtures, using, macro arguments (tests/scope_cases/fixtures_gate.cpp) --------------------------

const fs::path kFixtures = fs::path(PSTRAIN_SOURCE_DIR) / "tests" / "scope_cases" / "fixtures_gate.cpp";

const std::map<std::string, Expected>& FixtureExpectations() {
  static const std::map<std::string, Expected> kExpected = {
      // SetUp() before the body, TearDown() after, for every TEST_F of the fixture.
      {"Fixture.BodyCallsTheMember",
       {{"ExpectWithin(in SetUp)", "ExpectWithin(fixture body)", "ExpectWithin(in TearDown)"},
        {"ExpectWithin(in TearDown branch)"},
        {},
        {{"ExpectWithin(in SetUp)", kPassed},
         {"ExpectWithin(fixture body)", kPassed},
         {"ExpectWithin(in TearDown)", kPassed},
         {"ExpectWithin(in TearDown branch)", kNotReached}}}},
      {"Fixture.BodyCallsAFixtureHelper",
       {{"ExpectWithin(in SetUp)", "ExpectWithin(in fixture helper)", "ExpectWithin(in TearDown)"},
        {"ExpectWithin(in TearDown branch)"},
        {},
        {{"ExpectWithin(in SetUp)", kPassed},
         {"ExpectWithin(in fixture helper)", kPassed},
         {"ExpectWithin(in TearDown)", kPassed},
         {"ExpectWithin(in TearDown branch)", kNotReached}}}},
      {"SkippingFixture.BodyNeverRuns",
       {{"ExpectWithin(after skipping SetUp)"},
        {},
        {{"ExpectWithin(body after skip)", "never runs: SkippingFixture::SetUp() always ends the test first (dead code after `GTEST_SKIP(...)`"}},
        {{"ExpectWithin(after skipping SetUp)", kPassed}}}},
      // A function SetUp() calls always skips: SetUp() goes on, the body does not run.
      {"SetUpHelperSkips.BodyNeverRuns",
       {{"ExpectWithin(in a default member initializer, implicit constructor)", "ExpectWithin(in SetUp after the skipping helper)"},
        {},
        {{"ExpectWithin(body after a skipping SetUp helper)",
          "never runs: SetUpHelperSkips::SetUp() always ends the test first (SetUpHelperSkips::SkipAll(): dead code after `GTEST_SKIP(...)`"}},
        {{"ExpectWithin(in a default member initializer, implicit constructor)", kPassed},
         {"ExpectWithin(in SetUp after the skipping helper)", kPassed}}}},
      // A plain `return` ends SetUp(), not the test.
      {"ReturningSetUp.BodyRuns",
       {{"ExpectWithin(in SetUp before return)", "ExpectWithin(body after a returning SetUp)"},
        {},
        {},
        {{"ExpectWithin(in SetUp before return)", kPassed}, {"ExpectWithin(body after a returning SetUp)", kPassed}}}},
      // The construction (member initializers, default member initializers, the constructor's
      // body) before SetUp(), the destructor after TearDown().
      {"ConstructedFixture.ConstructorBeforeAndDestructorAfterTheBody",
       {{"ExpectWithin(in a default member initializer)", "ExpectWithin(in a member initializer)", "ExpectWithin(in the constructor)",
         "ExpectWithin(in SetUp after the constructor)", "ExpectWithin(constructed fixture body)", "ExpectWithin(in the destructor)"},
        {},
        {{"in ConstructedFixture::ConstructedFixture(): ExpectWithin(in a replaced default member initializer)",
          "not evaluated: the default member initializer of `replaced_` is replaced by the member initializer at line"}},
        {{"ExpectWithin(in a default member initializer)", kPassed},
         {"ExpectWithin(in a member initializer)", kPassed},
         {"ExpectWithin(in the constructor)", kPassed},
         {"ExpectWithin(in SetUp after the constructor)", kPassed},
         {"ExpectWithin(constructed fixture body)", kPassed},
         {"ExpectWithin(in the destructor)", kPassed}}}},
      // A function the constructor calls always skips: neither SetUp(), the body nor TearDown()
      // runs; the rest of the constructor and the destructor do.
      {"SkippingConstructorFixture.BodyNeverRuns",
       {{"ExpectWithin(in the constructor after the skip)", "ExpectWithin(in the destructor after a skip)"},
        {},
        {{"in SkippingConstructorFixture::SetUp(): ExpectWithin(in SetUp after a skipping constructor)",
          "never runs: SkippingConstructorFixture::SkippingConstructorFixture() always ends the test first "
          "(SkippingConstructorFixture::SkipAll(): dead code after `GTEST_SKIP(...)`"},
         {"in SkippingConstructorFixture::TearDown(): ExpectWithin(in TearDown after a skipping constructor)",
          "never runs: SkippingConstructorFixture::SkippingConstructorFixture() always ends the test first"},
         {"ExpectWithin(body after a skipping constructor)", "never runs: SkippingConstructorFixture::SkippingConstructorFixture() always ends the test first"}},
        {{"ExpectWithin(in the constructor after the skip)", kPassed}, {"ExpectWithin(in the destructor after a skip)", kPassed}}}},
      // The derived constructor always throws: the base's construction and destructor run, nothing
      // of the derived class after the throw, nor SetUp(), the body or TearDown().
      {"ThrowingFixture.NothingRunsAfterTheThrow",
       {{"ExpectWithin(in the base's default member initializer)", "ExpectWithin(in the base constructor)", "ExpectWithin(before the throw)",
         "ExpectWithin(in the base destructor)"},
        {},
        {{"in ThrowingFixture::ThrowingFixture(): ExpectWithin(after the throw)", "dead code after `throw`"},
         {"in ThrowingFixture::~ThrowingFixture(): ExpectWithin(in the derived destructor)",
          "never runs: ThrowingFixture::ThrowingFixture() always throws first (dead code after `throw`"},
         {"in ThrowingFixture::SetUp(): ExpectWithin(in SetUp after a throwing constructor)", "never runs: ThrowingFixture::ThrowingFixture() always throws first"},
         {"in ThrowingFixture::TearDown(): ExpectWithin(in TearDown after a throwing constructor)",
          "never runs: ThrowingFixture::ThrowingFixture() always throws first"},
         {"ExpectWithin(body after a throwing constructor)", "never runs: ThrowingFixture::ThrowingFixture() always throws first"}},
        {{"ExpectWithin(in the base's default member initializer)", kPassed},
         {"ExpectWithin(in the base constructor)", kPassed},
         {"ExpectWithin(before the throw)", kPassed},
         {"ExpectWithin(in the base destructor)", kPassed}}}},
      // SetUp() and TearDown() are virtual: the derived ones run, the base's TearDown() because
      // the derived one calls it, the base's SetUp() never (it is not listed).
      {"OverridingFixture.OnlyTheDerivedSetUpRuns",
       {{"ExpectWithin(in the derived SetUp)", "ExpectWithin(body of the overriding fixture)", "ExpectWithin(in the derived TearDown)",
         "ExpectWithin(in the base TearDown)"},
        {},
        {},
        {{"ExpectWithin(in the derived SetUp)", kPassed},
         {"ExpectWithin(body of the overriding fixture)", kPassed},
         {"ExpectWithin(in the derived TearDown)", kPassed},
         {"ExpectWithin(in the base TearDown)", kPassed}}}},
      {"Using.GlobalUsingDeclaration", {{"ExpectWithin(through using)"}, {}, {}, {{"ExpectWithin(through using)", kPassed}}}},
      {"Using.UsingDirective", {{"ExpectWithin(through a reference)"}, {}, {}, {{"ExpectWithin(through a reference)", kPassed}}}},
      {"Macro.Literals",
       {{"ExpectWithin(macro subject)", "ExpectWithin(joined subject)", "ExpectRejected(macro subject, size)"},
        {},
        {},
        {{"ExpectWithin(macro subject)", kPassed}, {"ExpectWithin(joined subject)", kPassed}, {"ExpectRejected(macro subject, size)", kPassed}}}},
  };
  return kExpected;
}

class ScopeFixtureCasesTest : public ScopeCasesSuite<ScopeFixtureCasesTest> {
 public:
  static fs::path Source() { return kFixtures; }
  static constexpr const char* kRelative = "scope_cases/fixtures_gate.cpp";
  static constexpr const char* kBinary = PSTRAIN_SCOPE_FIXTURE_CASES_BINARY;
  static constexpr const char* kTag = "fixtures";
  static constexpr bool kWritesXml = true;
};

TEST_F(ScopeFixtureCasesTest, EachCaseGetsExactlyItsCheckedIfReachedAndDeadLists) {
  ASSERT_EQ(scope_->gates.size(), FixtureExpectations().size());
  for (const auto& [name, expected] : FixtureExpectations()) {
    SCOPED_TRACE(name);
    const GateScope* gate = Find(name);
    ASSERT_NE(gate, nullptr);
    std::vector<std::string> checked, if_reached;
    for (const Check& c : gate->checks) (c.unconditional() ? checked : if_reached).push_back(DescribeCheck(c));
    EXPECT_EQ(checked, expected.checked);
    EXPECT_EQ(if_reached, expected.if_reached);
    ASSERT_EQ(gate->not_counted.size(), expected.dead.size()) << RenderMarkdown(Report());
    for (std::size_t i = 0; i < expected.dead.size(); ++i) {
      EXPECT_EQ(gate->not_counted[i].what, expected.dead[i].first);
      EXPECT_NE(gate->not_counted[i].reason.find(expected.dead[i].second), std::string::npos) << gate->not_counted[i].reason;
    }
    // Every case is declared: the fixtures by their Gate member, the others through `using`.
    ASSERT_EQ(gate->declarations.size(), 1u) << RenderMarkdown(Report());
  }
  // Every SetUp, TearDown and Helper is reached, but the base SetUp() that OverridingFixture's
  // replaces: GoogleTest never calls it, so it is listed as a call no test makes, never as CHECKED.
  ASSERT_EQ(scope_->unattributed.size(), 1u) << RenderMarkdown(Report());
  EXPECT_EQ(scope_->unattributed[0].what, "ExpectWithin(in the replaced base SetUp)");
  EXPECT_NE(scope_->unattributed[0].reason.find("in SettingUpBase::SetUp(), which no test in this file calls"), std::string::npos)
      << scope_->unattributed[0].reason;
}

TEST_F(ScopeFixtureCasesTest, FixtureMembersAndCallsInSetUpAndTearDownAreTheTests) {
  const GateScope* gate = Find("Fixture.BodyCallsTheMember");
  ASSERT_NE(gate, nullptr);
  EXPECT_EQ(gate->declarations[0].variable, "gate_");
  EXPECT_EQ(gate->declarations[0].kind->text, "fixture");
  ASSERT_EQ(gate->checks.size(), 4u);
  EXPECT_EQ(gate->checks[0].via_function, "Fixture::SetUp");
  EXPECT_EQ(gate->checks[1].via_function, "");
  EXPECT_EQ(gate->checks[1].receiver, "gate_");
  EXPECT_EQ(gate->checks[3].via_function, "Fixture::TearDown");
  EXPECT_EQ(Find("Using.UsingDirective")->declarations[0].kind->text, "using-directive");
}

TEST_F(ScopeFixtureCasesTest, ConstructorsAndDestructorsRunAroundSetUpAndTearDown) {
  // The Gate member initialized in the constructor's member-initializer list is the declaration,
  // with the list's argument.
  const GateScope* constructed = Find("ConstructedFixture.ConstructorBeforeAndDestructorAfterTheBody");
  ASSERT_NE(constructed, nullptr);
  ASSERT_EQ(constructed->declarations.size(), 1u);
  EXPECT_EQ(constructed->declarations[0].variable, "gate_");
  ASSERT_TRUE(constructed->declarations[0].kind);
  EXPECT_EQ(constructed->declarations[0].kind->text, "constructed-fixture");
  ASSERT_EQ(constructed->checks.size(), 6u);
  EXPECT_EQ(constructed->checks[0].via_function, "ConstructedFixture::ConstructedFixture");
  EXPECT_EQ(constructed->checks[2].via_function, "ConstructedFixture::ConstructedFixture");
  EXPECT_EQ(constructed->checks[3].via_function, "ConstructedFixture::SetUp");
  EXPECT_EQ(constructed->checks[5].via_function, "ConstructedFixture::~ConstructedFixture");
  // A kit call in a default member initializer is where GCC's std::source_location puts it: at the
  // constructor that uses the initializer, on the `)` that closes its member-initializer list, not
  // at the call's `(`; the ledger test below checks each call site against the compiled copy.
  const std::string source = ReadFileText(kFixtures);
  const std::size_t list_end = source.find("replaced_(true) {");
  ASSERT_NE(list_end, std::string::npos);
  const std::size_t line_start = source.rfind('\n', list_end) + 1;
  EXPECT_EQ(constructed->checks[0].line, 1 + static_cast<std::size_t>(std::count(source.begin(), source.begin() + list_end, '\n')));
  EXPECT_EQ(constructed->checks[0].column, list_end - line_start + std::string("replaced_(true").size() + 1);
  // The base's declaration counts for the derived fixture's test; the throw leaves none dead.
  const GateScope* throwing = Find("ThrowingFixture.NothingRunsAfterTheThrow");
  ASSERT_NE(throwing, nullptr);
  ASSERT_EQ(throwing->declarations.size(), 1u);
  EXPECT_EQ(throwing->declarations[0].kind->text, "throwing-constructor");
  EXPECT_EQ(throwing->checks.back().via_function, "CheckingBase::~CheckingBase");
}

TEST_F(ScopeFixtureCasesTest, ArgumentsFromMacrosShowTheValueTheCompilerSees) {
  const GateScope* gate = Find("Macro.Literals");
  ASSERT_NE(gate, nullptr);
  ASSERT_EQ(gate->checks.size(), 3u);
  const Check& within = gate->checks[0];
  ASSERT_EQ(within.parameters.size(), 2u);
  EXPECT_EQ(within.parameters[0], (std::pair<std::string, SourceValue>{"rtol", SourceValue::Literal("1e-09")}));  // RTOL: 1e-9
  EXPECT_EQ(within.parameters[1], (std::pair<std::string, SourceValue>{"atol", SourceValue::Literal("1")}));      // ATOL: (0.5 * 2)
  // The arguments as written name the macros.
  EXPECT_EQ(within.arguments, "SUBJECT, 1, 1, RTOL, ATOL");
  const Declaration& d = gate->declarations[0];
  ASSERT_TRUE(d.shard_counts && d.shard_counts->braced);
  ASSERT_EQ(d.shard_counts->items.size(), 1u);
  EXPECT_EQ(d.shard_counts->items[0], SourceValue::Literal("3"));  // {COUNT}
  EXPECT_EQ(*d.passes, SourceValue::Literal("3"));
}

TEST_F(ScopeFixtureCasesTest, TheLedgerOfTheCompiledCopyGivesEachCallSiteItsVerdict) {
  // Every case passes or skips, but the throwing constructor's test, which GoogleTest fails.
  EXPECT_NE(run_status_, 0);
  std::map<std::string, std::string> outcomes;
  for (const XmlTestCase& c : ParseGtestXml(*xml_path_)) outcomes[c.name] = !c.failures.empty() ? "failed" : c.result;
  EXPECT_EQ(outcomes.size(), FixtureExpectations().size());
  for (const auto& [name, outcome] : outcomes) {
    const std::string expected = name == "ThrowingFixture.NothingRunsAfterTheThrow" ? "failed"
                                 : name.ends_with(".BodyNeverRuns")                 ? "skipped"
                                                                                    : "completed";
    EXPECT_EQ(outcome, expected) << name;
  }
  const LedgerCrossCheck cross = CrossCheck(Report(), ReadLedger(*ledger_path_));
  std::map<std::pair<std::string, std::string>, std::string> verdicts;
  std::map<std::pair<std::string, std::string>, std::size_t> counts;
  for (const LedgerFinding& f : cross.findings) {
    EXPECT_NE(f.kind, FindingKind::kUnderClaim) << f.gate << " " << f.what << " " << f.detail;
    EXPECT_NE(f.kind, FindingKind::kNeverExecuted) << f.gate << " " << f.what;
    if (f.kind != FindingKind::kNoDeclarationRecord) {
      verdicts[{f.gate, f.what}] = FindingLabel(f.kind);
      counts[{f.gate, f.what}] = f.count;
    }
  }
  std::size_t sites = 0;
  for (const auto& [name, expected] : FixtureExpectations()) {
    for (const auto& [call, verdict] : expected.verdicts) {
      EXPECT_EQ(verdicts[std::make_pair(name, call)], verdict) << name << " " << call;
      ++sites;
    }
  }
  EXPECT_EQ(verdicts.size(), sites);
  EXPECT_EQ(cross.problems(), 0u) << RenderLedgerMarkdown(cross);
  // SetUp's one call site ran once for each test of the fixture, each recorded under its test.
  EXPECT_EQ((counts[{"Fixture.BodyCallsTheMember", "ExpectWithin(in SetUp)"}]), 1u);
  EXPECT_EQ((counts[{"Fixture.BodyCallsAFixtureHelper", "ExpectWithin(in SetUp)"}]), 1u);
}

// ---- the ledger, by call site -------------------------------------------------------------------

TEST(AuditScopeLedgerTest, ADeadCallWithTheSameSubjectsAsALiveOneIsNotVouchedForByIt) {
  ScopeReport report;
  report.gates_dir = "gates";
  FileScope file;
  file.path = "gates/x_gate.cpp";
  GateScope gate;
  gate.file = file.path;
  gate.macro = "TEST";
  gate.suite = "Gate";
  gate.name = "X";
  for (std::size_t line : {10u, 20u}) {
    Check c;
    c.helper = "ExpectWithin";
    c.line = line;
    c.column = 7;
    c.file = file.path;
    c.site_path = "/src/gates/x_gate.cpp";
    c.subjects.braced = true;
    c.subjects.items = {SourceValue::Literal("same")};
    gate.checks.push_back(c);
  }
  file.gates.push_back(gate);
  report.files.push_back(file);
  const Ledger ledger = ParseLedger(
      "{\"ledger_format\":2,\"record\":\"check\",\"gate\":\"Gate.X\",\"helper\":\"ExpectWithin\",\"subjects\":[\"same\"],"
      "\"result\":\"pass\",\"detail\":\"\",\"file\":\"/src/gates/x_gate.cpp\",\"line\":10,\"column\":7}\n",
      "l.jsonl");
  const LedgerCrossCheck cross = CrossCheck(report, ledger);
  ASSERT_EQ(cross.findings.size(), 2u);
  EXPECT_EQ(cross.findings[0].kind, FindingKind::kPassed);
  EXPECT_EQ(cross.findings[1].kind, FindingKind::kNeverExecuted);
  EXPECT_EQ(cross.findings[1].where, "gates/x_gate.cpp:20:7");
  EXPECT_EQ(cross.problems(), 1u);
}

// The ledger reader throws the auditor's AuditError "NAME:LINE: what", also for a file the trainer's
// reader cannot open.
TEST(AuditScopeLedgerTest, ABadRecordIsAnAuditErrorNamingTheFileAndLine) {
  const std::string declaration = "{\"record\":\"declaration\",\"gate\":\"G.X\"}\n";
  EXPECT_EQ(test::ErrorMessage<AuditError>([&] { ParseLedger(declaration + "\n[1]\n", "l.jsonl"); }), "l.jsonl:3: not a JSON object");
  EXPECT_EQ(test::ErrorMessage<AuditError>([&] { ParseLedger(declaration + "{\"record\":\"check\"}\n", "l.jsonl"); }),
            "l.jsonl:2: field \"gate\" missing or not a string");
  EXPECT_EQ(test::ErrorMessage<AuditError>([] { ParseLedger("{\"record\":\"x\",\"gate\":\"G.X\"}", "l.jsonl"); }),
            "l.jsonl:1: unknown record type \"x\"");
  const fs::path missing = fs::temp_directory_path() / "pstrain-no-such-dir" / "ledger.jsonl";
  EXPECT_EQ(test::ErrorMessage<AuditError>([&] { ReadLedger(missing); }),
            missing.string() + ": cannot open for reading: No such file or directory");
}

TEST(AuditScopeLedgerTest, FormatOneCheckRecordsAndUnknownFormatsAreRejected) {
  const std::string v1 = "{\"record\":\"check\",\"gate\":\"G.X\",\"helper\":\"ExpectWithin\",\"subjects\":[\"a\"],\"result\":\"pass\",\"detail\":\"\"}";
  try {
    ParseLedger(v1, "old.jsonl");
    FAIL() << "a format 1 check record was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("old.jsonl:1: a check record without its call site (ledger format 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ParseLedger("{\"ledger_format\":3,\"record\":\"run\",\"gate\":\"G.X\"}", "l"), std::exception);
  // Declaration and run records of format 1 are still read.
  EXPECT_EQ(ParseLedger("{\"record\":\"declaration\",\"gate\":\"G.X\"}", "l").records.size(), 1u);
}

// ---- errors and limits --------------------------------------------------------------------------

class AuditScopeFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pstrain-scope-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "gates");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes gates/NAME and a compile_commands.json that compiles it against the kit.
  fs::path Source(const std::string& name, const std::string& text) {
    const fs::path file = dir_ / "gates" / name;
    WriteFileAtomic(file, text);
    json::array entries;
    for (const auto& entry : fs::directory_iterator(dir_ / "gates")) {
      if (entry.path().extension() != ".cpp") continue;
      json::array args = {"c++", "-std=c++20", "-I" + (fs::path(PSTRAIN_SOURCE_DIR) / "gates").string(), "-c", entry.path().string()};
      entries.push_back(json::object{{"directory", dir_.string()}, {"file", entry.path().string()}, {"arguments", std::move(args)}});
    }
    WriteFileAtomic(dir_ / "compile_commands.json", json::serialize(entries));
    return file;
  }

  int Run(std::vector<std::string> args) {
    out_.str("");
    err_.str("");
    return RunReportingErrors("scope", RunScopeCommand, args, out_, err_);
  }
  std::vector<std::string> Base() const {
    return {"--gates", (dir_ / "gates").string(), "--compile-commands", (dir_ / "compile_commands.json").string()};
  }

  fs::path dir_;
  std::ostringstream out_, err_;
};

const char* const kSmallGate =
    "#include <gtest/gtest.h>\n#include \"gate_kit.h\"\nusing namespace pstrain::gates;\n"
    "TEST(Gate, Small) {\n  Gate gate({\"small\", {1}, 1, \"a test\"});\n  gate.ExpectWithin(\"one\", 1, 1, 0.0, 0.0);\n}\n";

TEST_F(AuditScopeFilesTest, ASourceThatDoesNotCompileExitsTwoWithTheCompilersDiagnostic) {
  Source("broken_gate.cpp", "#include \"gate_kit.h\"\nvoid f() { undeclared_thing(); }\n");
  EXPECT_EQ(Run(Base()), 2);
  EXPECT_NE(err_.str().find("broken_gate.cpp: does not compile"), std::string::npos) << err_.str();
  EXPECT_NE(err_.str().find("broken_gate.cpp:2:12: error: use of undeclared identifier 'undeclared_thing'"), std::string::npos) << err_.str();
}

TEST_F(AuditScopeFilesTest, AMissingCompilationDatabaseExitsTwoNamingItAndHowToProduceIt) {
  Source("small_gate.cpp", kSmallGate);
  std::vector<std::string> args = {"--gates", (dir_ / "gates").string(), "--compile-commands", (dir_ / "nowhere" / "compile_commands.json").string()};
  EXPECT_EQ(Run(args), 2);
  EXPECT_NE(err_.str().find((dir_ / "nowhere" / "compile_commands.json").string() + ": no compilation database"), std::string::npos) << err_.str();
  EXPECT_NE(err_.str().find("CMAKE_EXPORT_COMPILE_COMMANDS"), std::string::npos) << err_.str();
  // A gate source the database does not compile is named too.
  Source("small_gate.cpp", kSmallGate);
  WriteFileAtomic(dir_ / "compile_commands.json", "[]");
  EXPECT_EQ(Run(Base()), 2);
  EXPECT_NE(err_.str().find("small_gate.cpp: no entry in"), std::string::npos) << err_.str();
}

TEST_F(AuditScopeFilesTest, DeepNestingEndsWithExitTwoNotACrash) {
  // Brackets beyond clang's bracket depth (256): the compiler's diagnostic.
  std::string braces = "void f() {";
  for (int i = 0; i < 300; ++i) braces += "{";
  for (int i = 0; i < 300; ++i) braces += "}";
  Source("braces_gate.cpp", braces + "}\n");
  EXPECT_EQ(Run(Base()), 2);
  EXPECT_NE(err_.str().find("bracket nesting level exceeded maximum of 256"), std::string::npos) << err_.str();
  // Statements nested without brackets: the auditor's own walk stops at kMaxAstDepth.
  fs::remove(dir_ / "gates" / "braces_gate.cpp");
  std::string ifs = "#include \"gate_kit.h\"\nvoid f(bool c) {\n";
  for (int i = 0; i < 1000; ++i) ifs += "if (c) ";
  // The nested ifs are walked when a test calls f.
  Source("ifs_gate.cpp", "#include <gtest/gtest.h>\n" + ifs + ";\n}\nTEST(Gate, Deep) { f(true); }\n");
  EXPECT_EQ(Run(Base()), 2);
  EXPECT_NE(err_.str().find("nested more than " + std::to_string(kMaxAstDepth) + " deep"), std::string::npos) << err_.str();
}

TEST_F(AuditScopeFilesTest, MacroBombsEndWithExitTwoInBoundedMemory) {
  // 2^30 tokens: the parse outgrows the front end's memory limit (kFrontEndMemoryBytes, in the
  // child process) and is stopped; audit itself never holds them.
  std::string bomb = "#define X0 +1\n";
  for (int i = 1; i <= 30; ++i) bomb += "#define X" + std::to_string(i) + " X" + std::to_string(i - 1) + " X" + std::to_string(i - 1) + "\n";
  Source("bomb_gate.cpp", bomb + "int v = 0 X30;\n");
  EXPECT_EQ(Run(Base()), 2);
  const std::string limit = std::to_string(kFrontEndMemoryBytes >> 30) + " GiB memory limit";
  EXPECT_NE(err_.str().find(limit), std::string::npos) << err_.str();
  EXPECT_NE(err_.str().find("bomb_gate.cpp"), std::string::npos) << err_.str();
}

// ---- the shared precompiled header ---------------------------------------------------------------

TEST_F(AuditScopeFilesTest, TheSharedPchHoldsTheSystemHeadersEverySourceOpensWith) {
  const std::string test = "TEST(Gate, T) {}\n";
  const fs::path a = Source("a_gate.cpp", "// a comment first\n#include <gtest/gtest.h>\n#include <string>\n#include <vector>\n" + test);
  const fs::path b = Source("b_gate.cpp", "#include <gtest/gtest.h>\n/* between */ #include <map>\n#include <string>\n\n#include \"gate_kit.h\"\n" + test);
  // Opens with a project header through -I: it stays out (not a system header).
  const fs::path c = Source("c_gate.cpp", "#include <gtest/gtest.h>\n#include <gate_kit.h>\n#include <string>\n" + test);
  // Opens with something else: it parses alone.
  const fs::path d = Source("d_gate.cpp", "#define LOCAL_MACRO 1\n#include <gtest/gtest.h>\n" + test);
  const fs::path e = Source("e_gate.cpp", "#include \"gate_kit.h\"\n#include <gtest/gtest.h>\n" + test);
  const std::vector<std::string> args = CompileArguments(dir_ / "compile_commands.json", a);
  const std::optional<SharedPch> pch = BuildSharedPch({a, b, c, d, e}, args, dir_);
  ASSERT_TRUE(pch.has_value());
  EXPECT_EQ(pch->headers, (std::vector<std::string>{"gtest/gtest.h", "string"}));
  EXPECT_EQ(pch->applies, (std::vector<bool>{true, true, true, false, false}));
  EXPECT_TRUE(fs::is_regular_file(pch->file));
  // It round-trips through the child process's pipe.
  const std::optional<SharedPch> back = SharedPchFromJson(SharedPchToJson(pch));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->headers, pch->headers);
  EXPECT_EQ(back->applies, pch->applies);
  EXPECT_FALSE(SharedPchFromJson(SharedPchToJson(std::nullopt)).has_value());
  // One source that opens with system headers is not enough to share them.
  EXPECT_FALSE(BuildSharedPch({a, d, e}, args, dir_).has_value());
}

TEST_F(AuditScopeFilesTest, WithTheSharedPchABrokenSourceStillGivesTheCompilersDiagnostic) {
  Source("small_gate.cpp", kSmallGate);
  Source("broken_gate.cpp", "#include <gtest/gtest.h>\n#include \"gate_kit.h\"\nvoid f() { undeclared_thing(); }\n");
  EXPECT_EQ(Run(Base()), 2);
  EXPECT_NE(err_.str().find("broken_gate.cpp:3:12: error: use of undeclared identifier 'undeclared_thing'"), std::string::npos) << err_.str();
}

TEST_F(AuditScopeFilesTest, ADatabaseForASourceWrittenOutsideTheBuildGivesTheFlagsOfItsModel) {
  // The build's database has "command" entries (CMake); this test's own has "arguments".
  const fs::path source = Source("small_gate.cpp", kSmallGate);
  const fs::path copy = dir_ / "copy";
  fs::create_directories(copy);
  const fs::path database = WriteCompileCommandsLike(PSTRAIN_COMPILE_COMMANDS, "gates/fixed_count_gate.cpp", copy / "x_gate.cpp", copy);
  EXPECT_EQ(database, copy / "compile_commands.json");
  const std::vector<std::string> args = CompileArguments(database, copy / "x_gate.cpp");
  EXPECT_EQ(args, CompileArguments(PSTRAIN_COMPILE_COMMANDS, fs::path(PSTRAIN_SOURCE_DIR) / "gates" / "fixed_count_gate.cpp"));
  const fs::path again = WriteCompileCommandsLike(dir_ / "compile_commands.json", "gates/small_gate.cpp", copy / "y_gate.cpp", copy);
  EXPECT_EQ(CompileArguments(again, copy / "y_gate.cpp"), CompileArguments(dir_ / "compile_commands.json", source));
  try {
    WriteCompileCommandsLike(PSTRAIN_COMPILE_COMMANDS, "gates/no_such_gate.cpp", copy / "z_gate.cpp", copy);
    ADD_FAILURE() << "no error";
  } catch (const AuditError& e) {
    EXPECT_EQ(std::string(e.what()),
              std::string(PSTRAIN_COMPILE_COMMANDS) + ": has no entry for a file ending in gates/no_such_gate.cpp");
  }
  const std::string missing = (dir_ / "none" / "compile_commands.json").string();
  EXPECT_EQ(test::ErrorMessage<AuditError>([&] { WriteCompileCommandsLike(missing, "gates/x_gate.cpp", copy / "z_gate.cpp", copy); }),
            missing + ": cannot open for reading: No such file or directory");
  const fs::path no_gates = dir_ / "no_gates";
  EXPECT_EQ(test::ErrorMessage<AuditError>([&] { ExtractScope(no_gates, PSTRAIN_COMPILE_COMMANDS, false); }),
            no_gates.string() + ": no such file or directory");
}

TEST(AuditScopePchTest, TheReportIsTheSameWithAndWithoutTheSharedPch) {
  // Both scope case sources compile with the same flags and open with <gtest/gtest.h>: they share
  // the precompiled header (the report of the real gates is compared the same way in docs/audit.md).
  const fs::path cases = fs::path(PSTRAIN_SOURCE_DIR) / "tests" / "scope_cases";
  const std::vector<std::string> args = CompileArguments(PSTRAIN_COMPILE_COMMANDS, cases / "tricks_gate.cpp");
  ASSERT_EQ(args, CompileArguments(PSTRAIN_COMPILE_COMMANDS, cases / "fixtures_gate.cpp"));
  const TemporaryDirectory scratch("pstrain-scope-pch-test-");
  const std::optional<SharedPch> pch = BuildSharedPch({cases / "tricks_gate.cpp", cases / "fixtures_gate.cpp"}, args, scratch.path());
  ASSERT_TRUE(pch.has_value());
  EXPECT_EQ(pch->applies, (std::vector<bool>{true, true}));
  const ScopeReport shared = ExtractScope(cases, PSTRAIN_COMPILE_COMMANDS, /*shared_pch=*/true);
  const ScopeReport alone = ExtractScope(cases, PSTRAIN_COMPILE_COMMANDS, /*shared_pch=*/false);
  ASSERT_EQ(shared.files.size(), 2u);
  EXPECT_EQ(RenderJson(shared, nullptr), RenderJson(alone, nullptr));
  EXPECT_EQ(RenderMarkdown(shared), RenderMarkdown(alone));
}

TEST_F(AuditScopeFilesTest, CheckReportsStaleAndCurrentAndUpdateRewritesTheSection) {
  Source("small_gate.cpp", kSmallGate);
  const fs::path doc = dir_ / "contract.md";
  WriteFileAtomic(doc, "# Contract\n\n<!-- BEGIN GENERATED GATE SCOPE -->\nold\n<!-- END GENERATED GATE SCOPE -->\n\nafter\n");
  std::vector<std::string> check = Base(), update = Base();
  check.insert(check.end(), {"--check", doc.string()});
  update.insert(update.end(), {"--update", doc.string()});
  EXPECT_EQ(Run(check), 1);
  EXPECT_NE(err_.str().find("stale"), std::string::npos);
  EXPECT_EQ(Run(update), 0) << err_.str();
  EXPECT_EQ(Run(check), 0) << err_.str();
  const std::string text = ReadFileText(doc);
  EXPECT_NE(text.find("CHECKED (mechanically asserted): within tolerance \"one\" (rtol 0.0, atol 0.0) (at 6:20)."), std::string::npos) << text;
  EXPECT_NE(text.find("\n\nafter\n"), std::string::npos);
}

}  // namespace
}  // namespace pstrain::audit
