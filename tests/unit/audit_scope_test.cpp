// `audit scope`: the extractor reads gate sources as text and separates what the assertion helpers
// check (CHECKED) from what the declaration describes (DESCRIBES); calls that are not compiled or
// not reachable do not count; the ledger cross-check and the docs/contract.md section check.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include <boost/json.hpp>
#include <filesystem>
#include <sstream>

#include "common/file_io.h"
#include "scope/cpp_lexer.h"
#include "scope/scope_command.h"
#include "scope/scope_doc.h"
#include "scope/scope_extractor.h"
#include "scope/scope_ledger.h"
#include "scope/scope_report.h"

namespace pstrain::audit {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

FileScope Extract(const std::string& source) { return ExtractFileScope("gates/x_gate.cpp", source); }

// The only gate of `source`.
GateScope Only(const std::string& source) {
  FileScope file = Extract(source);
  EXPECT_EQ(file.gates.size(), 1u);
  return file.gates.empty() ? GateScope{} : file.gates.front();
}

std::vector<std::string> Literals(const ValueList& list) {
  std::vector<std::string> out;
  for (const SourceValue& v : list.items) out.push_back(v.literal ? v.text : "<" + v.text + ">");
  return out;
}

bool Mentions(const std::vector<NotCounted>& items, const std::string& what, const std::string& reason) {
  for (const NotCounted& n : items) {
    if (n.what.find(what) != std::string::npos && n.reason.find(reason) != std::string::npos) return true;
  }
  return false;
}

std::string Describe(const std::vector<NotCounted>& items) {
  std::string out;
  for (const NotCounted& n : items) out += std::to_string(n.line) + ": " + n.what + " -- " + n.reason + "\n";
  return out;
}

// ---- CHECKED -------------------------------------------------------------------------------------

TEST(AuditScopeTest, HelperCallsBecomeCheckedEntriesWithTheirSubjects) {
  const GateScope gate = Only(R"cpp(
TEST(Gate, Everything) {
  Gate gate({"fixed-count-reproducibility", {2}, 3, "one machine"});
  gate.ExpectProducedFilesIdentical(a / "model", b / "model", {"means", "variances"});
  gate.ExpectCopiedInputsIdentical(a / "model", b / "model", {"mdef"});
  gate.ExpectJsonFieldsEqual(a / "pass.json", b / "pass.json", {"processed_ids", "totals.total_frames"});
  gate.ExpectProvenanceField(pa, pb, "effective_shard_count", FieldRelation::kDifferent);
  gate.ExpectRejected(copy.string(), r.exit_code, r.output, "stale-pass");
  gate.ExpectWithin("total log-likelihood", ours, theirs, 1e-5, 0.0);
  gate.ExpectProducedFilesIdentical(c, d, names);
}
)cpp");
  EXPECT_EQ(gate.FullName(), "Gate.Everything");
  ASSERT_EQ(gate.checks.size(), 7u);
  EXPECT_EQ(gate.checks[0].helper, "ExpectProducedFilesIdentical");
  EXPECT_EQ(Literals(gate.checks[0].subjects), (std::vector<std::string>{"means", "variances"}));
  EXPECT_EQ(gate.checks[0].line, 4u);
  EXPECT_EQ(Literals(gate.checks[3].subjects), (std::vector<std::string>{"effective_shard_count", "different"}));
  EXPECT_EQ(Literals(gate.checks[4].subjects), (std::vector<std::string>{"<copy.string()>", "stale-pass"}));
  EXPECT_EQ(Literals(gate.checks[5].subjects), (std::vector<std::string>{"total log-likelihood"}));
  EXPECT_FALSE(gate.checks[6].subjects.braced);
  EXPECT_EQ(gate.checks[6].subjects.expression, "names");
  EXPECT_EQ(CheckedSummary(gate),
            "produced files means, variances, `names` (not a literal list) (2 calls); copied inputs mdef; "
            "fields processed_ids, totals.total_frames; provenance fields effective_shard_count different; "
            "rejected `copy.string()` by check stale-pass; within tolerance \"total log-likelihood\" (rtol 1e-5, atol 0.0)");
  EXPECT_EQ(gate.bare_assertions, 0u);
  EXPECT_TRUE(gate.not_counted.empty()) << Describe(gate.not_counted);
}

TEST(AuditScopeTest, BareAssertsOnlyCheckNothing) {
  const GateScope gate = Only(R"cpp(
TEST(Gate, OnlyBareAsserts) {
  Gate gate({"multipron-sharding", {4}, 2, ""});
  ASSERT_EQ(RunOk(command).exit_code, 0);
  EXPECT_TRUE(FilesEqual(a, b)) << "means differ";
  EXPECT_EQ(Read(a / "means"), Read(b / "means"));
}
)cpp");
  EXPECT_TRUE(gate.checks.empty());
  EXPECT_EQ(gate.bare_assertions, 3u);
  EXPECT_EQ(CheckedSummary(gate), "nothing");
  ScopeReport report;
  report.gates_dir = "gates";
  report.files.push_back({"gates/x_gate.cpp", {gate}, {}, {}});
  const std::string md = RenderMarkdown(report);
  EXPECT_NE(md.find("CHECKED (mechanically asserted): nothing."), std::string::npos) << md;
  EXPECT_NE(md.find("1 check nothing"), std::string::npos) << md;
  EXPECT_NE(md.find("3 bare ASSERT_/EXPECT_ assertions"), std::string::npos) << md;
}

TEST(AuditScopeTest, AHelperCallWrappedInAnAssertionCountsAndIsNotBare) {
  const GateScope gate = Only(R"cpp(
TEST(Gate, Wrapped) {
  Gate gate({"k", {1}, 1, ""});
  ASSERT_TRUE(gate.ExpectJsonFieldsEqual(a, b, {"skipped"}));
}
)cpp");
  ASSERT_EQ(gate.checks.size(), 1u);
  EXPECT_EQ(gate.bare_assertions, 0u);
}

// ---- DESCRIBES -----------------------------------------------------------------------------------

TEST(AuditScopeTest, TheDeclarationIsDescribedAndCertifiesNothing) {
  const GateScope gate = Only(R"cpp(
TEST(Gate, Declared) {
  Gate gate({"cross-count-exact", {1, 2, 3, 4, 7}, 5u, "exact reduction only; "
                                                      "one corpus"});
}
)cpp");
  ASSERT_EQ(gate.declarations.size(), 1u);
  const Declaration& d = gate.declarations[0];
  EXPECT_TRUE(d.structured);
  EXPECT_EQ(d.variable, "gate");
  EXPECT_EQ(d.kind->text, "cross-count-exact");
  EXPECT_EQ(Literals(*d.shard_counts), (std::vector<std::string>{"1", "2", "3", "4", "7"}));
  EXPECT_EQ(d.passes->text, "5");
  EXPECT_EQ(d.limitation->text, "exact reduction only; one corpus");
  EXPECT_EQ(DescribesSummary(d),
            "kind cross-count-exact; declared shard counts 1, 2, 3, 4, 7; 5 passes. Limitation: exact reduction only; one corpus.");
  EXPECT_TRUE(gate.checks.empty());
}

TEST(AuditScopeTest, DeclarationFormsAndNonLiteralFields) {
  const FileScope file = Extract(R"cpp(
TEST(Gate, Designated) {
  pstrain::gates::Gate gate(GateDeclaration{.kind = "one-shard-reference", .shard_counts = {1}, .passes = ProfileValue(1, 4), .limitation = kWhy});
}
TEST(Gate, Braces) {
  Gate g{{"completion-order", {3}, 1, "forced orders."}};
  g.ExpectWithin("orders", seen, 3, 0.0, 0.0);
}
TEST(Gate, NotALiteral) {
  Gate gate(MakeDeclaration());
}
)cpp");
  ASSERT_EQ(file.gates.size(), 3u);
  const Declaration& a = file.gates[0].declarations.at(0);
  EXPECT_EQ(DescribesSummary(a),
            "kind one-shard-reference; declared shard counts 1; passes `ProfileValue(1, 4)`. Limitation `kWhy` (not a literal).");
  const Declaration& b = file.gates[1].declarations.at(0);
  EXPECT_EQ(b.variable, "g");
  EXPECT_EQ(DescribesSummary(b), "kind completion-order; declared shard counts 3; 1 pass. Limitation: forced orders.");
  EXPECT_EQ(file.gates[1].checks.size(), 1u);
  const Declaration& c = file.gates[2].declarations.at(0);
  EXPECT_FALSE(c.structured);
  EXPECT_EQ(DescribesSummary(c), "declaration `MakeDeclaration()` is not a literal; its fields are not read (`gate`).");
}

TEST(AuditScopeTest, ATestWithoutADeclarationIsUndeclaredWithItsChecks) {
  const GateScope gate = Only(R"cpp(
TEST_F(GateFixture, Undeclared) {
  gate_->ExpectProducedFilesIdentical(a, b, {"means"});
}
)cpp");
  EXPECT_FALSE(gate.declared());
  EXPECT_EQ(gate.macro, "TEST_F");
  ASSERT_EQ(gate.checks.size(), 1u);
  EXPECT_EQ(gate.checks[0].receiver, "gate_");
  ScopeReport report;
  report.files.push_back({"gates/x_gate.cpp", {gate}, {}, {}});
  const std::string md = RenderMarkdown(report);
  EXPECT_NE(md.find("`GateFixture.Undeclared` (TEST_F) — undeclared"), std::string::npos) << md;
  EXPECT_NE(md.find("CHECKED (mechanically asserted): produced files means."), std::string::npos) << md;
  EXPECT_NE(md.find("DESCRIBES (certifies nothing): undeclared"), std::string::npos) << md;
}

// ---- what does not count -------------------------------------------------------------------------

TEST(AuditScopeTest, HelperCallsAfterAnUnconditionalReturnAreDeadCode) {
  const GateScope gate = Only(R"cpp(
TEST(Gate, Dead) {
  Gate gate({"k", {1}, 1, ""});
  if (!Ready()) return;
  gate.ExpectProducedFilesIdentical(a, b, {"live-after-guarded-return"});
  for (int i = 0; i < 2; ++i) {
    if (i == 0) continue;
    gate.ExpectProducedFilesIdentical(a, b, {"live-in-loop"});
    {
      continue;
      gate.ExpectProducedFilesIdentical(a, b, {"dead-after-continue"});
    }
  }
  switch (mode) {
    case 1: return;
      gate.ExpectProducedFilesIdentical(a, b, {"dead-in-case"});
    case 2:
      gate.ExpectProducedFilesIdentical(a, b, {"live-after-label"});
  }
  auto f = [&] { return 1; };
  gate.ExpectProducedFilesIdentical(a, b, {"live-after-lambda"});
  return;
  gate.ExpectProducedFilesIdentical(a, b, {"dead-after-return"});
  Gate late({"late", {1}, 1, ""});
  if (x) { gate.ExpectJsonFieldsEqual(a, b, {"dead-nested"}); }
}
)cpp");
  std::vector<std::string> counted;
  for (const Check& c : gate.checks) counted.push_back(c.subjects.items.at(0).text);
  EXPECT_EQ(counted, (std::vector<std::string>{"live-after-guarded-return", "live-in-loop", "live-after-label",
                                               "live-after-lambda"}));
  EXPECT_EQ(gate.declarations.size(), 1u);
  const std::string nc = Describe(gate.not_counted);
  EXPECT_TRUE(Mentions(gate.not_counted, "dead-after-continue", "dead code after `continue;`")) << nc;
  EXPECT_TRUE(Mentions(gate.not_counted, "dead-in-case", "dead code after `return;`")) << nc;
  EXPECT_TRUE(Mentions(gate.not_counted, "ExpectProducedFilesIdentical(dead-after-return)", "dead code after `return;` (line 22)")) << nc;
  EXPECT_TRUE(Mentions(gate.not_counted, "Gate declaration late", "dead code")) << nc;
  EXPECT_TRUE(Mentions(gate.not_counted, "dead-nested", "dead code")) << nc;
  EXPECT_EQ(gate.not_counted.size(), 5u) << nc;
}

TEST(AuditScopeTest, GtestSkipAndFailEndTheBodyToo) {
  const GateScope gate = Only(R"cpp(
TEST(Gate, Skipped) {
  Gate gate({"k", {1}, 1, ""});
  if (!HaveBw()) GTEST_SKIP() << "no bw";
  gate.ExpectWithin("live", x, y, 0, 0);
  GTEST_SKIP() << "disabled for now";
  gate.ExpectWithin("dead", x, y, 0, 0);
}
)cpp");
  ASSERT_EQ(gate.checks.size(), 1u);
  EXPECT_EQ(gate.checks[0].subjects.items[0].text, "live");
  EXPECT_TRUE(Mentions(gate.not_counted, "dead", "dead code after `GTEST_SKIP() << \"disabled for now\";`"))
      << Describe(gate.not_counted);
}

TEST(AuditScopeTest, HelperCallsInIfZeroAreNotCompiledButOtherBranchesAre) {
  const GateScope gate = Only(R"cpp(
#define PSTRAIN_LOCAL_FLAG 0
TEST(Gate, Conditional) {
  Gate gate({"k", {1}, 1, ""});
#if 0
  gate.ExpectProducedFilesIdentical(a, b, {"in-if-0"});
#if 1
  gate.ExpectProducedFilesIdentical(a, b, {"nested-in-if-0"});
#endif
#else
  gate.ExpectProducedFilesIdentical(a, b, {"in-else-of-if-0"});
#endif
#if PSTRAIN_LOCAL_FLAG
  gate.ExpectProducedFilesIdentical(a, b, {"in-false-local-flag"});
#elif !PSTRAIN_LOCAL_FLAG && 1
  gate.ExpectProducedFilesIdentical(a, b, {"in-true-elif"});
#endif
#ifdef NDEBUG
  gate.ExpectProducedFilesIdentical(a, b, {"under-ndebug"});
#endif
}
)cpp");
  std::vector<std::string> counted;
  for (const Check& c : gate.checks) counted.push_back(c.subjects.items.at(0).text);
  EXPECT_EQ(counted, (std::vector<std::string>{"in-else-of-if-0", "in-true-elif", "under-ndebug"}));
  EXPECT_EQ(gate.checks[2].condition, "#ifdef NDEBUG (not evaluated)");
  EXPECT_TRUE(gate.checks[0].condition.empty());
  const std::string nc = Describe(gate.not_counted);
  EXPECT_TRUE(Mentions(gate.not_counted, "(in-if-0)", "not compiled: inside `#if 0`")) << nc;
  EXPECT_TRUE(Mentions(gate.not_counted, "(nested-in-if-0)", "#if 0")) << nc;
  EXPECT_TRUE(Mentions(gate.not_counted, "(in-false-local-flag)", "#if PSTRAIN_LOCAL_FLAG")) << nc;
  EXPECT_EQ(CheckedSummary(gate),
            "produced files in-else-of-if-0, in-true-elif, under-ndebug (3 calls) (compiled only if `#ifdef NDEBUG (not evaluated)`)");
}

TEST(AuditScopeTest, CommentsStringsAndCharactersAreNeverCodeAndDoNotBreakBraceMatching) {
  const FileScope file = Extract(R"cpp(
TEST(Gate, Quoted) {
  Gate gate({"k", {1}, 1, ""});
  // gate.ExpectProducedFilesIdentical(a, b, {"in-line-comment"}); }
  /* gate.ExpectProducedFilesIdentical(a, b, {"in-block-comment"});
     } } */
  const std::string s = "gate.ExpectProducedFilesIdentical(a, b, {\"in-string\"}); }";
  const char* raw = R"x(gate.ExpectCopiedInputsIdentical(a, b, {"in-raw-string"}); })" )x";
  const char brace = '}';
  const char quote = '"';
  const long big = 1'000'000;
  gate.ExpectJsonFieldsEqual(a, b, {"real"});
}
TEST(Gate, Second) {
  Gate gate({"second", {1}, 1, ""});
}
)cpp");
  ASSERT_EQ(file.gates.size(), 2u);
  const GateScope& gate = file.gates[0];
  ASSERT_EQ(gate.checks.size(), 1u);
  EXPECT_EQ(gate.checks[0].subjects.items[0].text, "real");
  EXPECT_TRUE(gate.not_counted.empty()) << Describe(gate.not_counted);  // comments and strings are not listed
  EXPECT_EQ(file.gates[1].name, "Second");
  EXPECT_EQ(file.gates[1].declarations.at(0).kind->text, "second");
  EXPECT_TRUE(file.unattributed.empty()) << Describe(file.unattributed);
}

// ---- macros --------------------------------------------------------------------------------------

TEST(AuditScopeTest, HelperCallsWrappedInFileLocalMacrosAreExpandedAndCount) {
  const GateScope gate = Only(R"cpp(
#define CHECK_FILES(...) gate.ExpectProducedFilesIdentical(__VA_ARGS__)
#define MODEL_FILES {"means", "variances"}
#define EXPECT_FIELD(field) gate.ExpectJsonFieldsEqual(a / "pass.json", b / "pass.json", {#field})
#define CHECK_NAMED(suffix, names) gate.ExpectCopied##suffix(a, b, names)
#define TWICE(x) x; x
TEST(Gate, Macros) {
  Gate gate({"k", {1}, 1, ""});
  CHECK_FILES(a, b, {"means", "mixture_weights"});
  gate.ExpectProducedFilesIdentical(a, b, MODEL_FILES);
  EXPECT_FIELD(total_frames);
  CHECK_NAMED(InputsIdentical, {"mdef"});
  TWICE(gate.ExpectWithin("twice", x, y, 0.0, 0.0));
}
)cpp");
  ASSERT_EQ(gate.checks.size(), 6u) << Describe(gate.not_counted);
  EXPECT_EQ(gate.checks[0].via_macro, "CHECK_FILES");
  EXPECT_EQ(gate.checks[0].line, 9u);
  EXPECT_EQ(Literals(gate.checks[0].subjects), (std::vector<std::string>{"means", "mixture_weights"}));
  EXPECT_EQ(Literals(gate.checks[1].subjects), (std::vector<std::string>{"means", "variances"}));
  EXPECT_EQ(gate.checks[2].helper, "ExpectJsonFieldsEqual");
  EXPECT_EQ(Literals(gate.checks[2].subjects), (std::vector<std::string>{"total_frames"}));
  EXPECT_EQ(gate.checks[3].helper, "ExpectCopiedInputsIdentical");
  EXPECT_EQ(Literals(gate.checks[3].subjects), (std::vector<std::string>{"mdef"}));
  EXPECT_EQ(gate.checks[4].helper, "ExpectWithin");
  EXPECT_EQ(gate.checks[5].helper, "ExpectWithin");
  EXPECT_TRUE(gate.not_counted.empty()) << Describe(gate.not_counted);
}

TEST(AuditScopeTest, MacrosTheAuditorCannotSeeIntoAreReportedNotCounted) {
  const FileScope file = Extract(R"cpp(
#include "some_header.h"
#define BROKEN(a, b) gate.ExpectProducedFilesIdentical(a, b, {"from-broken"})
#define OPTIONAL_CHECK(x, ...) gate.ExpectWithin(x __VA_OPT__(,) __VA_ARGS__)
TEST(Gate, Opaque) {
  Gate gate({"k", {1}, 1, ""});
  HEADER_CHECK(gate.ExpectProducedFilesIdentical(a, b, {"in-external-macro"}));
  BROKEN(a);
  OPTIONAL_CHECK("v", x, y, 0.0, 0.0);
  gate.ExpectJsonFieldsEqual(a, b, {"plain"});
}
)cpp");
  ASSERT_EQ(file.gates.size(), 1u);
  const GateScope& gate = file.gates[0];
  ASSERT_EQ(gate.checks.size(), 1u);
  EXPECT_EQ(gate.checks[0].subjects.items.at(0).text, "plain");
  const std::string nc = Describe(gate.not_counted);
  EXPECT_TRUE(Mentions(gate.not_counted, "HEADER_CHECK(ExpectProducedFilesIdentical(...))", "unrecognized macro, not counted")) << nc;
  EXPECT_TRUE(Mentions(gate.not_counted, "BROKEN(...)", "unrecognized macro, not counted: defined in this file but could not be expanded")) << nc;
  EXPECT_TRUE(Mentions(gate.not_counted, "OPTIONAL_CHECK(...)", "ExpectWithin")) << nc;
  EXPECT_EQ(gate.not_counted.size(), 3u) << nc;
  EXPECT_EQ(file.notes.size(), 2u);  // why each file-local macro was not expanded
  ScopeReport report;
  report.files.push_back(file);
  const std::string md = RenderMarkdown(report);
  EXPECT_NE(md.find("unrecognized macro, not counted"), std::string::npos) << md;
  EXPECT_NE(md.find("Source constructs the auditor did not understand"), std::string::npos) << md;
}

// ---- structure -----------------------------------------------------------------------------------

TEST(AuditScopeTest, TwoGatesInOneFileTestFAndTestPInSourceOrder) {
  const FileScope file = Extract(R"cpp(
namespace pstrain::gates {
namespace {
class GateTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = Fresh(); }
  fs::path dir_;
};
TEST_F(GateTest, First) {
  Gate gate({"first", {1}, 1, ""});
  gate.ExpectProducedFilesIdentical(a, b, {"one"});
}
class CountTest : public ::testing::TestWithParam<int> {};
TEST_P(CountTest, Second) {
  Gate gate({"second", {1, 2}, 1, ""});
  gate.ExpectJsonFieldsEqual(a, b, {"two"});
}
INSTANTIATE_TEST_SUITE_P(Counts, CountTest, ::testing::Values(1, 2));
TEST(Gate, Third) {
  Gate gate({"third", {1}, 1, ""});
}
}  // namespace
}  // namespace pstrain::gates
)cpp");
  ASSERT_EQ(file.gates.size(), 3u);
  EXPECT_EQ(file.gates[0].FullName(), "GateTest.First");
  EXPECT_EQ(file.gates[0].macro, "TEST_F");
  EXPECT_EQ(file.gates[1].FullName(), "CountTest.Second");
  EXPECT_EQ(file.gates[1].macro, "TEST_P");
  EXPECT_EQ(file.gates[2].FullName(), "Gate.Third");
  EXPECT_EQ(file.gates[0].checks.size(), 1u);
  EXPECT_EQ(file.gates[1].checks.size(), 1u);
  EXPECT_EQ(CheckedSummary(file.gates[2]), "nothing");
}

TEST(AuditScopeTest, HelperCallsInFunctionsTheGateCallsAreAttributedToIt) {
  const FileScope file = Extract(R"cpp(
void CompareModels(Gate& gate, const fs::path& a, const fs::path& b) {
  gate.ExpectProducedFilesIdentical(a, b, {"means", "variances"});
  return;
  gate.ExpectProducedFilesIdentical(a, b, {"dead-in-function"});
}
void CompareRuns(Gate& gate, const fs::path& a, const fs::path& b, int passes = 3) {
  for (int p = 1; p <= passes; ++p) CompareModels(gate, a / Pass(p), b / Pass(p));
}
void Unused(Gate& gate) { gate.ExpectWithin("never called", 1, 1, 0, 0); }
auto kLambda = [](Gate& gate) { gate.ExpectWithin("namespace-scope lambda", 1, 1, 0, 0); };
TEST(Gate, UsesFunctions) {
  Gate gate({"k", {1}, 1, ""});
  CompareRuns(gate, a, b);
  return;
  CompareModels(gate, a, b);
}
)cpp");
  ASSERT_EQ(file.gates.size(), 1u);
  const GateScope& gate = file.gates[0];
  ASSERT_EQ(gate.checks.size(), 1u) << Describe(gate.not_counted);
  EXPECT_EQ(gate.checks[0].via_function, "CompareModels");  // where the call is (reached through CompareRuns)
  EXPECT_EQ(gate.checks[0].line, 3u);
  const std::string nc = Describe(gate.not_counted);
  EXPECT_TRUE(Mentions(gate.not_counted, "in CompareModels(): ExpectProducedFilesIdentical(dead-in-function)", "dead code")) << nc;
  EXPECT_TRUE(Mentions(gate.not_counted, "CompareModels() (1 helper calls)", "dead code after `return;`")) << nc;
  const std::string un = Describe(file.unattributed);
  EXPECT_TRUE(Mentions(file.unattributed, "never called", "in Unused(), which no test in this file calls")) << un;
  EXPECT_TRUE(Mentions(file.unattributed, "namespace-scope lambda", "outside every test body")) << un;
}

TEST(AuditScopeTest, FixtureMembersAndSetUpCountForEveryTestOfTheFixture) {
  const FileScope file = Extract(R"cpp(
class GateTest : public ::testing::Test {
 protected:
  void SetUp() override { gate_.ExpectCopiedInputsIdentical(a, b, {"in-setup"}); }
  void TearDown() override;
  Gate gate_{{"fixture-kind", {2}, 3, ""}};
};
void GateTest::TearDown() { gate_.ExpectNewHelper("in-teardown"); }
struct Unused : ::testing::Test {
  void SetUp() override { gate.ExpectWithin("unused fixture", 1, 1, 0, 0); }
};
TEST_F(GateTest, One) { gate_.ExpectJsonFieldsEqual(a, b, {"in-body"}); }
TEST_F(GateTest, Two) {}
TEST(GateTest, NotAFixtureTest) {}
)cpp");
  ASSERT_EQ(file.gates.size(), 3u);
  for (std::size_t i = 0; i < 2; ++i) {
    const GateScope& gate = file.gates[i];
    ASSERT_EQ(gate.declarations.size(), 1u) << i;
    EXPECT_EQ(gate.declarations[0].variable, "GateTest::gate_");
    EXPECT_EQ(DescribesSummary(gate.declarations[0]), "kind fixture-kind; declared shard counts 2; 3 passes. No limitation declared.");
  }
  std::vector<std::string> helpers;
  for (const Check& c : file.gates[0].checks) helpers.push_back(c.helper + "@" + c.via_function);
  EXPECT_EQ(helpers, (std::vector<std::string>{"ExpectCopiedInputsIdentical@GateTest::SetUp", "ExpectJsonFieldsEqual@",
                                               "ExpectNewHelper@GateTest::TearDown"}));
  EXPECT_EQ(file.gates[1].checks.size(), 2u);
  EXPECT_FALSE(file.gates[2].declared());
  EXPECT_TRUE(file.gates[2].checks.empty());
  EXPECT_TRUE(Mentions(file.unattributed, "unused fixture", "in Unused::SetUp(), which no test in this file calls"))
      << Describe(file.unattributed);
}

TEST(AuditScopeLexerTest, LiteralsAreDecodedAndKeptWhole) {
  const std::vector<Token> tokens = Lex(R"cpp(f("", u8"a\tb\"", R"d(x)" y)d", L'}', 1'000, x->y) // }
/* { */ #)cpp");
  std::vector<std::string> values;
  for (const Token& t : tokens) values.push_back(t.value);
  EXPECT_EQ(values, (std::vector<std::string>{"f", "(", "", ",", "a\tb\"", ",", "x)\" y", ",", "}", ",", "1'000", ",", "x",
                                              "->", "y", ")", "#"}))
      << JoinSpellings(tokens);
  EXPECT_EQ(tokens[4].spelling, "u8\"a\\tb\\\"\"");
  EXPECT_EQ(tokens[8].kind, TokenKind::kChar);
  EXPECT_EQ(tokens[10].kind, TokenKind::kNumber);
  EXPECT_TRUE(tokens.back().bol);  // only a comment before it on its line: it starts a directive
}

// ---- reports -------------------------------------------------------------------------------------

class AuditScopeFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("audit_scope_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "gates");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& relative, const std::string& text) { WriteFileAtomic(dir_ / relative, text); }
  int Run(std::vector<std::string> args) {
    std::ostringstream out, err;
    const int code = RunScopeCommand(args, out, err);
    out_ = out.str();
    err_ = err.str();
    return code;
  }
  std::string gates() const { return (dir_ / "gates").string(); }
  fs::path dir_;
  std::string out_, err_;
};

constexpr char kTwoGates[] = R"cpp(
TEST(Gate, FixedCount) {
  Gate gate({"fixed-count-reproducibility", {2}, 3, "one machine"});
  gate.ExpectProducedFilesIdentical(a, b, {"means", "variances"});
  gate.ExpectRejected("flipped byte", r.exit_code, r.output, "payload-sha256");
}
TEST(Gate, BareOnly) {
  Gate gate({"multipron-sharding", {4}, 3, "bare asserts"});
  ASSERT_TRUE(Same(a, b));
}
)cpp";

TEST_F(AuditScopeFilesTest, MarkdownAndJsonAreDeterministicAndSorted) {
  Write("gates/b_gate.cpp", kTwoGates);
  Write("gates/a_gate.cpp", "TEST(Gate, A) {\n  Gate gate({\"a\", {1}, 1, \"\"});\n}\n");
  Write("gates/helper.cpp", "TEST(Gate, NotAGateFile) {}\nvoid Shared(Gate& g) { g.ExpectWithin(\"shared\", 1, 1, 0, 0); }\n");
  ASSERT_EQ(Run({"--gates", gates()}), 0) << err_;
  const std::string first = out_;
  ASSERT_EQ(Run({"--gates", gates()}), 0) << err_;
  EXPECT_EQ(out_, first);
  EXPECT_LT(first.find("### gates/a_gate.cpp"), first.find("### gates/b_gate.cpp")) << first;
  EXPECT_LT(first.find("`Gate.FixedCount`"), first.find("`Gate.BareOnly`")) << first;
  EXPECT_EQ(first.find("NotAGateFile"), std::string::npos);
  EXPECT_NE(first.find("### Helper calls in other sources of `gates/`"), std::string::npos) << first;
  EXPECT_NE(first.find("- gates/helper.cpp: ExpectWithin(shared) (line 2) — in Shared(), which no test in this file calls"),
            std::string::npos) << first;
  EXPECT_NE(first.find("3 gates in 2 files; 2 check nothing; 0 undeclared."), std::string::npos) << first;
  EXPECT_NE(first.find("   - CHECKED (mechanically asserted): produced files means, variances; rejected \"flipped byte\" by check payload-sha256.\n"
                       "   - DESCRIBES (certifies nothing): kind fixed-count-reproducibility; declared shard counts 2; 3 passes. Limitation: one machine.\n"),
            std::string::npos)
      << first;

  ASSERT_EQ(Run({"--gates", gates(), "--format", "json"}), 0) << err_;
  const json::object root = json::parse(out_).as_object();
  EXPECT_EQ(root.at("format").as_string(), "pstrain-gate-scope-1");
  const json::array& files = root.at("files").as_array();
  ASSERT_EQ(files.size(), 2u);
  const json::object& fixed = files[1].at("gates").as_array()[0].as_object();
  EXPECT_EQ(fixed.at("gate").as_string(), "Gate.FixedCount");
  EXPECT_EQ(json::serialize(fixed.at("checked").as_array()[0].at("subjects")), R"(["means","variances"])");
  EXPECT_EQ(fixed.at("describes").as_array()[0].at("certifies").as_string(), "nothing");
  EXPECT_EQ(json::serialize(fixed.at("describes").as_array()[0].at("shard_counts")), R"(["2"])");

  ASSERT_EQ(Run({"--gates", gates(), "--out", (dir_ / "scope.md").string()}), 0) << err_;
  EXPECT_TRUE(out_.empty());
  EXPECT_EQ(ReadFileText(dir_ / "scope.md"), first);
}

TEST_F(AuditScopeFilesTest, EmptyGatesDirectorySaysSo) {
  ASSERT_EQ(Run({"--gates", gates()}), 0) << err_;
  EXPECT_NE(out_.find("No gate sources: `gates/` has no `*_gate.cpp` file"), std::string::npos) << out_;
}

TEST_F(AuditScopeFilesTest, ErrorsExitTwoAndNameTheFile) {
  EXPECT_EQ(Run({"--gates", (dir_ / "nowhere").string()}), 2);
  EXPECT_NE(err_.find((dir_ / "nowhere").string()), std::string::npos) << err_;
  EXPECT_EQ(Run({"--gates", gates(), "--ledger", (dir_ / "no-ledger.jsonl").string()}), 2);
  EXPECT_NE(err_.find("no-ledger.jsonl"), std::string::npos) << err_;
  EXPECT_EQ(Run({"--format", "xml"}), 2);
  EXPECT_EQ(Run({"--bogus"}), 2);
  EXPECT_EQ(Run({"--check", "a", "--update", "b"}), 2);
  Write("ledger.jsonl", "{\"record\":\"declaration\",\"gate\":\"Gate.A\"}\nnot json\n");
  EXPECT_EQ(Run({"--gates", gates(), "--ledger", (dir_ / "ledger.jsonl").string()}), 2);
  EXPECT_NE(err_.find("ledger.jsonl:2: not JSON"), std::string::npos) << err_;
  EXPECT_EQ(Run({"--help"}), 0);
  EXPECT_NE(out_.find("usage: audit scope"), std::string::npos);
}

// ---- ledger cross-check --------------------------------------------------------------------------

std::string Declaration_(const std::string& gate) {
  return R"({"record":"declaration","gate":")" + gate + R"(","kind":"k","shard_counts":[2],"passes":3,"limitation":""})" "\n";
}
std::string CheckRecord(const std::string& gate, const std::string& helper, const std::string& subjects,
                        const std::string& result, const std::string& detail = "") {
  return R"({"record":"check","gate":")" + gate + R"(","helper":")" + helper + R"(","subjects":)" + subjects +
         R"(,"result":")" + result + R"(","detail":")" + detail + "\"}\n";
}

TEST_F(AuditScopeFilesTest, LedgerThatMatchesTheSourceHasNoProblems) {
  Write("gates/b_gate.cpp", kTwoGates);
  Write("ledger.jsonl", Declaration_("Gate.FixedCount") +
                            CheckRecord("Gate.FixedCount", "ExpectProducedFilesIdentical", R"(["means","variances"])", "pass") +
                            CheckRecord("Gate.FixedCount", "ExpectRejected", R"(["flipped byte","payload-sha256"])", "pass") +
                            Declaration_("Gate.BareOnly"));
  ASSERT_EQ(Run({"--gates", gates(), "--ledger", (dir_ / "ledger.jsonl").string()}), 0) << err_ << out_;
  EXPECT_NE(out_.find("4 records; 0 problems."), std::string::npos) << out_;
}

TEST_F(AuditScopeFilesTest, LedgerFlagsNeverExecutedFailedAndMissingDeclarations) {
  Write("gates/b_gate.cpp", kTwoGates);
  // FixedCount: the rejection never ran, the file comparison failed (twice); BareOnly never declared
  // itself; a gate the source does not have failed too; a record no source call accounts for.
  Write("ledger.jsonl", Declaration_("Gate.FixedCount") +
                            CheckRecord("Gate.FixedCount", "ExpectProducedFilesIdentical", R"(["means","variances"])", "fail", "means differs") +
                            CheckRecord("Gate.FixedCount", "ExpectProducedFilesIdentical", R"(["means","variances"])", "fail", "means differs") +
                            CheckRecord("Gate.FixedCount", "ExpectWithin", R"(["extra"])", "pass") +
                            CheckRecord("Gate.Elsewhere", "ExpectWithin", R"(["x"])", "fail", "1 vs 2"));
  ASSERT_EQ(Run({"--gates", gates(), "--ledger", (dir_ / "ledger.jsonl").string()}), 1) << err_ << out_;
  EXPECT_NE(err_.find("4 problems"), std::string::npos) << err_;
  EXPECT_NE(out_.find("- never executed: `Gate.FixedCount` ExpectRejected(flipped byte, payload-sha256) (gates/b_gate.cpp:5)"),
            std::string::npos) << out_;
  EXPECT_NE(out_.find("- failed: `Gate.FixedCount` ExpectProducedFilesIdentical(means, variances)"), std::string::npos) << out_;
  EXPECT_NE(out_.find("×2: means differs"), std::string::npos) << out_;
  EXPECT_NE(out_.find("- no declaration record: `Gate.BareOnly`"), std::string::npos) << out_;
  EXPECT_NE(out_.find("- failed: `Gate.Elsewhere` ExpectWithin(x)"), std::string::npos) << out_;
  EXPECT_NE(out_.find("- not in the source (note): `Gate.FixedCount` ExpectWithin(extra)"), std::string::npos) << out_;
  EXPECT_EQ(out_.find("- not in the source (note): `Gate.Elsewhere`"), std::string::npos) << out_;  // reported as failed

  ASSERT_EQ(Run({"--gates", gates(), "--ledger", (dir_ / "ledger.jsonl").string(), "--format", "json"}), 1);
  const json::object ledger = json::parse(out_).as_object().at("ledger").as_object();
  EXPECT_EQ(ledger.at("problems").to_number<int>(), 4);
}

TEST_F(AuditScopeFilesTest, RunRecordsAreAccountedToTheirGateOrNotedWhenNoSourceHasIt) {
  Write("gates/b_gate.cpp", kTwoGates);
  const std::string run = R"J({"record":"run","gate":"GATE","profile":"quick","shard_counts":[1,3],"passes":2,"corpus":{"name":"override","manifest":"/m","root":"/r","utterances":8,"fingerprint":"f"},"pstrain":"/p","overrides_applied":["PSTRAIN_GATE_SHARDS=1,3 (each count, on its own)"],"overrides_ignored":[]})J";
  const auto for_gate = [&](const std::string& gate) { return run.substr(0, run.find("GATE")) + gate + run.substr(run.find("GATE") + 4) + "\n"; };
  Write("ledger.jsonl", Declaration_("Gate.FixedCount") + for_gate("Gate.FixedCount") +
                            CheckRecord("Gate.FixedCount", "ExpectProducedFilesIdentical", R"(["means","variances"])", "pass") +
                            CheckRecord("Gate.FixedCount", "ExpectRejected", R"(["flipped byte","payload-sha256"])", "pass") +
                            Declaration_("Gate.BareOnly") + for_gate("Gate.Elsewhere"));
  ASSERT_EQ(Run({"--gates", gates(), "--ledger", (dir_ / "ledger.jsonl").string()}), 0) << err_ << out_;
  EXPECT_NE(out_.find("6 records; 0 problems."), std::string::npos) << out_;
  EXPECT_NE(out_.find("- not in the source (note): `Gate.Elsewhere` run"), std::string::npos) << out_;
  EXPECT_EQ(out_.find("`Gate.FixedCount` run"), std::string::npos) << out_;
}

TEST(AuditScopeLedgerTest, ExpressionSubjectsMatchAnyValueAndParameterizedNamesMatch) {
  const FileScope file = Extract(R"cpp(
TEST_P(CountTest, Loop) {
  Gate gate({"k", {1}, 1, ""});
  for (const auto& m : kMutations) gate.ExpectRejected(m.name, r.exit_code, r.output, m.check);
  gate.ExpectProducedFilesIdentical(a, b, names);
}
)cpp");
  ScopeReport report;
  report.files.push_back(file);
  const Ledger ledger = ParseLedger(
      Declaration_("Counts/CountTest.Loop/0") +
          CheckRecord("Counts/CountTest.Loop/0", "ExpectRejected", R"(["flipped","payload-sha256"])", "pass") +
          CheckRecord("Counts/CountTest.Loop/0", "ExpectProducedFilesIdentical", R"(["a","b","c"])", "pass"),
      "ledger.jsonl");
  const LedgerCrossCheck result = CrossCheck(report, ledger);
  EXPECT_EQ(result.problems(), 0u) << RenderLedgerMarkdown(result);
  EXPECT_TRUE(result.findings.empty()) << RenderLedgerMarkdown(result);
  GateScope plain = file.gates[0];
  plain.macro = "TEST";
  EXPECT_FALSE(LedgerGateMatches(plain, "Counts/CountTest.Loop/0"));
  EXPECT_TRUE(LedgerGateMatches(file.gates[0], "CountTest.Loop/3"));
}

// ---- docs/contract.md section --------------------------------------------------------------------

TEST_F(AuditScopeFilesTest, CheckReportsStaleAndCurrentAndUpdateRewritesTheSection) {
  Write("gates/b_gate.cpp", kTwoGates);
  const std::string doc = (dir_ / "contract.md").string();
  const std::string before = "# Contract\n\n## Generated gate scope\n\n";
  const std::string after = "\n## Hand-written limitations\n\nKept as written.\n";
  Write("contract.md", before + std::string(kBeginMarker) + "\nold text\n" + std::string(kEndMarker) + after);

  EXPECT_EQ(Run({"--gates", gates(), "--check", doc}), 1);
  EXPECT_NE(err_.find("is stale"), std::string::npos) << err_;
  EXPECT_NE(err_.find("-old text\n"), std::string::npos) << err_;
  EXPECT_NE(err_.find("+1. `Gate.FixedCount`\n"), std::string::npos) << err_;
  EXPECT_NE(err_.find("@@ -6 +1,"), std::string::npos) << err_;  // doc line numbers

  EXPECT_EQ(Run({"--gates", gates(), "--update", doc}), 0) << err_;
  const std::string updated = ReadFileText(doc);
  EXPECT_EQ(updated.rfind(before + std::string(kBeginMarker) + "\n<!-- Generated by `audit scope`", 0), 0u) << updated;
  EXPECT_TRUE(updated.ends_with(std::string(kEndMarker) + after)) << updated;
  EXPECT_EQ(fs::status(doc).permissions() & fs::perms::others_read, fs::perms::others_read);

  EXPECT_EQ(Run({"--gates", gates(), "--check", doc}), 0) << err_;
  EXPECT_NE(out_.find("is current"), std::string::npos) << out_;
  EXPECT_EQ(Run({"--gates", gates(), "--update", doc}), 0) << err_;
  EXPECT_NE(out_.find("already current"), std::string::npos) << out_;
  EXPECT_EQ(ReadFileText(doc), updated);

  // A gate changes: stale again, and the diff names what changed.
  Write("gates/b_gate.cpp", std::string(kTwoGates) + "TEST(Gate, Added) {\n  Gate gate({\"added\", {1}, 1, \"\"});\n}\n");
  EXPECT_EQ(Run({"--gates", gates(), "--check", doc}), 1);
  EXPECT_NE(err_.find("+3. `Gate.Added`"), std::string::npos) << err_;
}

TEST_F(AuditScopeFilesTest, CheckWithoutMarkersOrFileExitsTwo) {
  Write("contract.md", "# Contract\n\nno markers\n");
  EXPECT_EQ(Run({"--gates", gates(), "--check", (dir_ / "contract.md").string()}), 2);
  EXPECT_NE(err_.find("missing the marker line <!-- BEGIN GENERATED GATE SCOPE -->"), std::string::npos) << err_;
  Write("contract.md", std::string(kEndMarker) + "\n" + std::string(kBeginMarker) + "\n");
  EXPECT_EQ(Run({"--gates", gates(), "--update", (dir_ / "contract.md").string()}), 2);
  EXPECT_NE(err_.find("END marker comes before"), std::string::npos) << err_;
  EXPECT_EQ(Run({"--gates", gates(), "--check", (dir_ / "missing.md").string()}), 2);
  EXPECT_NE(err_.find("missing.md"), std::string::npos) << err_;
}

TEST(AuditScopeDocTest, UnifiedDiffOfEqualTextsIsEmpty) {
  EXPECT_EQ(UnifiedDiff("a\nb\n", "a\nb\n", "x", "y"), "");
  EXPECT_EQ(UnifiedDiff("a\nb\nc\n", "a\nB\nc\n", "x", "y"), "--- x\n+++ y\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
}

// ---- hostile sources (issue 13) -------------------------------------------------------------

// 20,000 nested namespaces or structs used to overflow the stack (SIGSEGV): the nesting is bounded
// (kMaxNestingDepth, 256) and deeper nesting is an error naming the file and the line, exit 2.
TEST_F(AuditScopeFilesTest, DeeplyNestedScopesAreAnErrorNotACrash) {
  for (const std::string opener : {"namespace n {", "struct S {", "("}) {
    std::string text = "TEST(Gate, A) {\n  Gate gate({\"a\", {1}, 1, \"\"});\n}\n";
    for (int k = 0; k < 20000; ++k) text += opener + "\n";
    Write("gates/deep_gate.cpp", text);
    EXPECT_EQ(Run({"--gates", gates()}), 2) << opener;
    // The 257th opener is on line 3 + 257.
    EXPECT_NE(err_.find("gates/deep_gate.cpp:260: brackets nested more than 256 deep"), std::string::npos) << err_;
  }
  std::string text = "#if ";
  for (int k = 0; k < 20000; ++k) text += "(";
  Write("gates/deep_gate.cpp", text + "1\n#endif\n");
  EXPECT_EQ(Run({"--gates", gates()}), 2);
  EXPECT_NE(err_.find("gates/deep_gate.cpp:1: #if expression nested more than 256 deep"), std::string::npos) << err_;
  // 250 namespaces (plus the test's braces and parentheses) are read.
  text.clear();
  for (int k = 0; k < 250; ++k) text += "namespace n {\n";
  text += "TEST(Gate, A) {\n  Gate gate({\"a\", {1}, 1, \"\"});\n}\n";
  for (int k = 1; k < 250; ++k) text += "}\n";
  Write("gates/deep_gate.cpp", text + "}\n");
  EXPECT_EQ(Run({"--gates", gates()}), 0) << err_;
}

// A 31-line macro bomb (X30 expands to 2^30 tokens) used to take 73 s and 3.5 GB before
// bad_alloc. The expansion is bounded (kMaxExpandedTokens tokens per file, kMaxMacroExpansionDepth
// levels): exit 2 with the reason, in seconds, in bounded memory. Run in a child process with
// RLIMIT_AS 1 GB and a 60 s alarm, so that the unbounded version cannot take the machine down.
TEST_F(AuditScopeFilesTest, MacroBombsAreStoppedByTheExpansionLimits) {
  auto run_limited = [&](const std::string& source, long& max_rss_kb, double& seconds) {
    Write("gates/bomb_gate.cpp", source);
    const fs::path err_file = dir_ / "err.txt";
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
      struct rlimit limit {};
      limit.rlim_cur = limit.rlim_max = rlim_t{1} << 30;
#ifndef PSTRAIN_SANITIZED  // ASan's shadow memory needs more address space than the limit
      ::setrlimit(RLIMIT_AS, &limit);
#endif
      ::alarm(60);
      std::ostringstream out, err;
      const int code = RunScopeCommand({"--gates", gates()}, out, err);
      WriteFileAtomic(err_file, err.str());
      ::_exit(code);
    }
    int status = 0;
    struct rusage usage {};
    ::wait4(pid, &status, 0, &usage);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    max_rss_kb = usage.ru_maxrss;
    err_ = fs::exists(err_file) ? ReadFileText(err_file) : "";
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  };
  std::string bomb = "#define X0 x\n";
  for (int k = 1; k <= 30; ++k) bomb += "#define X" + std::to_string(k) + " X" + std::to_string(k - 1) + " X" + std::to_string(k - 1) + "\n";
  bomb += "X30\n";
  long rss = 0;
  double seconds = 0;
  EXPECT_EQ(run_limited(bomb, rss, seconds), 2) << err_;
  EXPECT_NE(err_.find("gates/bomb_gate.cpp:32: macro X"), std::string::npos) << err_;
  EXPECT_NE(err_.find(": macro expansion produces more than 200000 tokens in this file"), std::string::npos) << err_;
  EXPECT_LT(seconds, 10.0);
  EXPECT_LT(rss, 256 * 1024) << "max RSS in kB";

  // A function-like bomb: the arguments are expanded too.
  std::string fbomb = "#define F0(a) a a\n";
  for (int k = 1; k <= 30; ++k) fbomb += "#define F" + std::to_string(k) + "(a) F" + std::to_string(k - 1) + "(a) F" + std::to_string(k - 1) + "(a)\n";
  fbomb += "F30(x)\n";
  EXPECT_EQ(run_limited(fbomb, rss, seconds), 2) << err_;
  EXPECT_NE(err_.find(": macro expansion produces more than 200000 tokens in this file"), std::string::npos) << err_;
  EXPECT_LT(seconds, 10.0);

  // A chain 100 macros deep.
  std::string chain = "#define D0 d\n";
  for (int k = 1; k <= 100; ++k) chain += "#define D" + std::to_string(k) + " D" + std::to_string(k - 1) + "\n";
  chain += "D100\n";
  EXPECT_EQ(run_limited(chain, rss, seconds), 2) << err_;
  EXPECT_NE(err_.find("gates/bomb_gate.cpp:102: macro D36: macro expansion nested more than 64 deep"), std::string::npos) << err_;
}

}  // namespace
}  // namespace pstrain::audit
