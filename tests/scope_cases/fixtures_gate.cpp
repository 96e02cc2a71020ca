// Gate sources for `audit scope` (issue 14) beyond the tricks of tricks_gate.cpp: a TEST_F fixture
// that owns the Gate and checks in SetUp()/TearDown(), the kit's Gate named through a using
// declaration or a using directive, and helper arguments that come from macros. The unit test
// tests/unit/audit_scope_test.cpp states the exact lists for each test and each call site's ledger
// verdict after running this binary (scope_case_fixture_gates). Every check passes.
#include <gtest/gtest.h>

#include <cstdlib>

#include "gate_kit.h"

using pstrain::gates::Gate;

// ---- a fixture that owns the gate --------------------------------------------------------------

class Fixture : public ::testing::Test {
 protected:
  void SetUp() override { gate_.ExpectWithin("in SetUp", 1, 1, 0, 0); }
  void TearDown() override {
    if (std::getenv("PSTRAIN_SCOPE_CASES_NEVER_SET") != nullptr) gate_.ExpectWithin("in TearDown branch", 1, 1, 0, 0);
    gate_.ExpectWithin("in TearDown", 1, 1, 0, 0);
  }
  void Helper() { gate_.ExpectWithin("in fixture helper", 1, 1, 0, 0); }

  Gate gate_{{"fixture", {1}, 1, "a fixture's gate"}};
};

TEST_F(Fixture, BodyCallsTheMember) { gate_.ExpectWithin("fixture body", 1, 1, 0, 0); }

TEST_F(Fixture, BodyCallsAFixtureHelper) { Helper(); }

// A fixture whose SetUp() always skips: nothing in its tests' bodies runs (TearDown still does).
class SkippingFixture : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_SKIP() << "skipped on purpose"; }
  void TearDown() override { gate_.ExpectWithin("after skipping SetUp", 1, 1, 0, 0); }
  Gate gate_{{"skipping-fixture", {1}, 1, "SetUp skips"}};
};

TEST_F(SkippingFixture, BodyNeverRuns) { gate_.ExpectWithin("body after skip", 1, 1, 0, 0); }

// ---- the kit's Gate through `using` -------------------------------------------------------------

TEST(Using, GlobalUsingDeclaration) {
  Gate gate({"using-declaration", {1}, 1, "Gate named through a global using declaration"});
  gate.ExpectWithin("through using", 1, 1, 0, 0);
}

namespace directive {
using namespace pstrain::gates;
TEST(Using, UsingDirective) {
  Gate gate({"using-directive", {2}, 1, "Gate named through a using directive"});
  Gate& alias = gate;
  alias.ExpectWithin("through a reference", 1, 1, 0, 0);
}
}  // namespace directive

// ---- arguments from macros ----------------------------------------------------------------------

#define SUBJECT "macro subject"
#define RTOL 1e-9
#define ATOL (0.5 * 2)
#define COUNT 3
#define JOIN(a, b) a " " b
#define CHECK_NAME "size"

TEST(Macro, Literals) {
  Gate gate({"macro-literals", {COUNT}, COUNT, "arguments from macros"});
  gate.ExpectWithin(SUBJECT, 1, 1, RTOL, ATOL);
  gate.ExpectWithin(JOIN("joined", "subject"), COUNT, COUNT, 0, 0);
  gate.ExpectRejected(SUBJECT, 1, "rejected by check \"" CHECK_NAME "\"", CHECK_NAME);
}
