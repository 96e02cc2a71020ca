// Gate sources for `audit scope` (issue 14) beyond the tricks of tricks_gate.cpp: a TEST_F fixture
// that owns the Gate and checks in SetUp()/TearDown(), in its constructor, member initializers and
// destructor, the kit's Gate named through a using declaration or a using directive, and helper
// arguments that come from macros. The unit test tests/auditor/scope/audit_scope_test.cpp states the exact
// lists for each test and each call site's ledger verdict after running this binary
// (scope_case_fixture_gates). Every check passes; one test fails on purpose (its fixture's
// constructor throws).
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

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

// A fixture whose SetUp() calls a function that always skips: the function returns and SetUp()
// goes on, then GoogleTest sees the skip and does not run the body (TearDown still runs).
class SetUpHelperSkips : public ::testing::Test {
 protected:
  void SetUp() override {
    SkipAll();
    gate_.ExpectWithin("in SetUp after the skipping helper", 1, 1, 0, 0);
  }
  void SkipAll() { GTEST_SKIP() << "skipped by a helper of SetUp on purpose"; }
  Gate gate_{{"setup-helper-skips", {1}, 1, "a helper of SetUp skips"}};
  const bool constructed_ = gate_.ExpectWithin("in a default member initializer, implicit constructor", 1, 1, 0, 0);
};

TEST_F(SetUpHelperSkips, BodyNeverRuns) { gate_.ExpectWithin("body after a skipping SetUp helper", 1, 1, 0, 0); }

// A SetUp() that ends in a plain `return`: the test goes on.
class ReturningSetUp : public ::testing::Test {
 protected:
  void SetUp() override {
    gate_.ExpectWithin("in SetUp before return", 1, 1, 0, 0);
    return;
  }
  Gate gate_{{"returning-setup", {1}, 1, "SetUp returns"}};
};

TEST_F(ReturningSetUp, BodyRuns) { gate_.ExpectWithin("body after a returning SetUp", 1, 1, 0, 0); }

// ---- fixture constructors, member initializers and destructors ---------------------------------
// GoogleTest constructs the fixture before SetUp() and destroys it after TearDown(), for every test.

// The Gate member is initialized in the constructor's member-initializer list; a default member
// initializer, a member initializer and the constructor's body check before SetUp(), the destructor
// after TearDown(). A default member initializer that the list replaces never runs.
class ConstructedFixture : public ::testing::Test {
 protected:
  ConstructedFixture();
  ~ConstructedFixture() override;
  void SetUp() override { gate_.ExpectWithin("in SetUp after the constructor", 1, 1, 0, 0); }

  Gate gate_;
  const bool by_default_ = gate_.ExpectWithin("in a default member initializer", 1, 1, 0, 0);
  const bool listed_;
  const bool replaced_ = gate_.ExpectWithin("in a replaced default member initializer", 1, 1, 0, 0);
};

ConstructedFixture::ConstructedFixture()
    : gate_({"constructed-fixture", {1}, 1, "a Gate member initialized by the constructor"}),
      listed_(gate_.ExpectWithin("in a member initializer", 1, 1, 0, 0)),
      replaced_(true) {
  gate_.ExpectWithin("in the constructor", 1, 1, 0, 0);
}

ConstructedFixture::~ConstructedFixture() { gate_.ExpectWithin("in the destructor", 1, 1, 0, 0); }

TEST_F(ConstructedFixture, ConstructorBeforeAndDestructorAfterTheBody) {
  gate_.ExpectWithin("constructed fixture body", 1, 1, 0, 0);
}

// A constructor cannot spell GTEST_SKIP() (it returns a value), but a function it calls can: the
// constructor goes on, then GoogleTest sees the skip and runs neither SetUp(), the body nor
// TearDown(); it still destroys the fixture.
class SkippingConstructorFixture : public ::testing::Test {
 protected:
  SkippingConstructorFixture() {
    SkipAll();
    gate_.ExpectWithin("in the constructor after the skip", 1, 1, 0, 0);
  }
  ~SkippingConstructorFixture() override { gate_.ExpectWithin("in the destructor after a skip", 1, 1, 0, 0); }
  void SetUp() override { gate_.ExpectWithin("in SetUp after a skipping constructor", 1, 1, 0, 0); }
  void TearDown() override { gate_.ExpectWithin("in TearDown after a skipping constructor", 1, 1, 0, 0); }
  void SkipAll() { GTEST_SKIP() << "skipped by the constructor on purpose"; }

  Gate gate_{{"skipping-constructor", {1}, 1, "the constructor skips"}};
};

TEST_F(SkippingConstructorFixture, BodyNeverRuns) { gate_.ExpectWithin("body after a skipping constructor", 1, 1, 0, 0); }

// A base fixture that checks in its constructor and destructor, and a derived fixture whose
// constructor always throws: GoogleTest records the exception as the test's failure, and has no
// object to set up, run, tear down or destroy; C++ destroys the base, whose construction finished.
class CheckingBase : public ::testing::Test {
 protected:
  CheckingBase() { gate_.ExpectWithin("in the base constructor", 1, 1, 0, 0); }
  ~CheckingBase() override { gate_.ExpectWithin("in the base destructor", 1, 1, 0, 0); }
  Gate gate_{{"throwing-constructor", {1}, 1, "the derived constructor throws"}};
  const bool constructed_ = gate_.ExpectWithin("in the base's default member initializer", 1, 1, 0, 0);
};

class ThrowingFixture : public CheckingBase {
 protected:
  ThrowingFixture() {
    gate_.ExpectWithin("before the throw", 1, 1, 0, 0);
    throw std::runtime_error("thrown by the fixture's constructor on purpose");
    gate_.ExpectWithin("after the throw", 1, 1, 0, 0);
  }
  ~ThrowingFixture() override { gate_.ExpectWithin("in the derived destructor", 1, 1, 0, 0); }
  void SetUp() override { gate_.ExpectWithin("in SetUp after a throwing constructor", 1, 1, 0, 0); }
  void TearDown() override { gate_.ExpectWithin("in TearDown after a throwing constructor", 1, 1, 0, 0); }
};

TEST_F(ThrowingFixture, NothingRunsAfterTheThrow) { gate_.ExpectWithin("body after a throwing constructor", 1, 1, 0, 0); }

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

// ---- SetUp() and TearDown() are virtual ---------------------------------------------------------
// GoogleTest calls the most derived fixture's SetUp() and TearDown(): the base's SetUp() never
// runs here, and its TearDown() runs because the derived one calls it.
class SettingUpBase : public ::testing::Test {
 protected:
  void SetUp() override { gate_.ExpectWithin("in the replaced base SetUp", 1, 1, 0, 0); }
  void TearDown() override { gate_.ExpectWithin("in the base TearDown", 1, 1, 0, 0); }
  Gate gate_{{"overriding-fixture", {1}, 1, "the derived SetUp() replaces the base's"}};
};

class OverridingFixture : public SettingUpBase {
 protected:
  void SetUp() override { gate_.ExpectWithin("in the derived SetUp", 1, 1, 0, 0); }
  void TearDown() override {
    gate_.ExpectWithin("in the derived TearDown", 1, 1, 0, 0);
    SettingUpBase::TearDown();
  }
};

TEST_F(OverridingFixture, OnlyTheDerivedSetUpRuns) { gate_.ExpectWithin("body of the overriding fixture", 1, 1, 0, 0); }
