// Gate sources written to fool `audit scope` (issue 14): one test per trick. The unit test
// tests/auditor/scope/audit_scope_test.cpp states what the report must list for each (CHECKED, CHECKED if
// reached, not counted) and, after running this binary with a ledger, each call site's verdict.
// Every check is ExpectWithin("<name>", 1, 1, 0, 0) (passes) unless its name says it fails.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

#include "gate_kit.h"

namespace pstrain::gates {
namespace {

// A runtime value the compiler cannot fold (always false here: the variable is never set).
bool Runtime() { return std::getenv("PSTRAIN_SCOPE_CASES_NEVER_SET") != nullptr; }

// Not a kit type: its method has the kit helper's name.
struct Lookalike {
  bool ExpectWithin(const char*, double, double, double, double) { return true; }
};

#define CHECK_ONE(g) g.ExpectWithin("file macro", 1, 1, 0, 0)

void Called(Gate& gate) { gate.ExpectWithin("in called function", 1, 1, 0, 0); }
[[maybe_unused]] void Uncalled(Gate& gate) { gate.ExpectWithin("in uncalled function", 1, 1, 0, 0); }

TEST(Trick, NeverCalledLambda) {
  Gate gate({"trick", {1}, 1, "lambdas"});
  [[maybe_unused]] auto never = [&] { gate.ExpectWithin("lambda never called", 1, 1, 0, 0); };
  [&] { gate.ExpectWithin("lambda called at once", 1, 1, 0, 0); }();
}

TEST(Trick, SkipInNestedBlock) {
  Gate gate({"trick", {1}, 1, "skip"});
  gate.ExpectWithin("before skip", 1, 1, 0, 0);
  {
    GTEST_SKIP() << "skipped on purpose";
  }
  gate.ExpectWithin("after skip", 1, 1, 0, 0);
}

TEST(Trick, ConstantFalse) {
  Gate gate({"trick", {1}, 1, "if false"});
  if (false) gate.ExpectWithin("if false", 1, 1, 0, 0);
  if constexpr (false) {
    gate.ExpectWithin("if constexpr false", 1, 1, 0, 0);
  } else {
    gate.ExpectWithin("if constexpr else", 1, 1, 0, 0);
  }
}

TEST(Trick, AfterFatalAssertion) {
  Gate gate({"trick", {1}, 1, "assert"});
  gate.ExpectWithin("before assert", 1, 1, 0, 0);
  ASSERT_TRUE(false) << "fails on purpose";
  gate.ExpectWithin("after assert", 1, 1, 0, 0);
}

TEST(Trick, NotAGate) {
  Gate gate({"trick", {1}, 1, "lookalike"});
  Lookalike other;
  other.ExpectWithin("lookalike", 1, 1, 0, 0);
  gate.ExpectWithin("real gate", 1, 1, 0, 0);
}

TEST(Trick, Unevaluated) {
  Gate gate({"trick", {1}, 1, "unevaluated"});
  [[maybe_unused]] decltype(gate.ExpectWithin("decltype", 1, 1, 0, 0)) typed = true;
  [[maybe_unused]] const std::size_t size = sizeof(gate.ExpectWithin("sizeof", 1, 1, 0, 0));
  [[maybe_unused]] const bool never_throws = noexcept(gate.ExpectWithin("noexcept", 1, 1, 0, 0));
  gate.ExpectWithin("evaluated", 1, 1, 0, 0);
}

TEST(Trick, ShortCircuit) {
  Gate gate({"trick", {1}, 1, "or"});
  const bool left = gate.ExpectWithin("or left", 1, 1, 0, 0);
  if (left || gate.ExpectWithin("or right", 1, 1, 0, 0)) {
  }
  [[maybe_unused]] const bool constant = true || gate.ExpectWithin("or right of true", 1, 1, 0, 0);
}

TEST(Trick, ZeroTripLoop) {
  Gate gate({"trick", {1}, 1, "loops"});
  const int trips = Runtime() ? 3 : 0;
  for (int i = 0; i < trips; ++i) gate.ExpectWithin("zero-trip loop", 1, 1, 0, 0);
  for (const double x : {1.0, 2.0}) gate.ExpectWithin("braced-list loop", x, x, 0, 0);
}

TEST(Trick, CatchNeverEntered) {
  Gate gate({"trick", {1}, 1, "catch"});
  try {
    gate.ExpectWithin("in try", 1, 1, 0, 0);
  } catch (const std::exception&) {
    gate.ExpectWithin("in catch", 1, 1, 0, 0);
  }
}

TEST(Trick, IfdefUndefined) {
  Gate gate({"trick", {1}, 1, "ifdef"});
#ifdef PSTRAIN_SCOPE_CASES_UNDEFINED
  gate.ExpectWithin("under ifdef", 1, 1, 0, 0);
#endif
#ifndef PSTRAIN_SCOPE_CASES_UNDEFINED
  gate.ExpectWithin("under ifndef", 1, 1, 0, 0);
#endif
}

TEST(Trick, LineContinuation) {
  Gate gate({"trick", {1}, 1, "continuation"});
  gate.ExpectWi\
thin("split name", 1, 1, 0, 0);
}

TEST(Trick, GotoLabel) {
  Gate gate({"trick", {1}, 1, "goto"});
  goto checks;
  gate.ExpectWithin("jumped over", 1, 1, 0, 0);
checks:
  gate.ExpectWithin("after label", 1, 1, 0, 0);
}

TEST(Trick, CommentsAndStrings) {
  Gate gate({"trick", {1}, 1, "text"});
  // gate.ExpectWithin("in a comment", 1, 1, 0, 0);
  /* gate.ExpectWithin("in a block comment", 1, 1, 0, 0); */
  [[maybe_unused]] const char* text = "gate.ExpectWithin(\"in a string\", 1, 1, 0, 0);";
  [[maybe_unused]] const char* raw = R"(gate.ExpectWithin("in a raw string", 1, 1, 0, 0);)";
  gate.ExpectWithin("real call", 1, 1, 0, 0);
}

TEST(Trick, IfZero) {
  Gate gate({"trick", {1}, 1, "if 0"});
#if 0
  gate.ExpectWithin("under if 0", 1, 1, 0, 0);
#endif
  gate.ExpectWithin("after if 0", 1, 1, 0, 0);
}

TEST(Trick, Functions) {
  Gate gate({"trick", {1}, 1, "functions"});
  Called(gate);
}

TEST(Trick, AfterReturn) {
  Gate gate({"trick", {1}, 1, "return"});
  gate.ExpectWithin("before return", 1, 1, 0, 0);
  return;
  gate.ExpectWithin("after return", 1, 1, 0, 0);
}

TEST(Trick, Macros) {
  Gate gate({"trick", {1}, 1, "macros"});
  CHECK_ONE(gate);
  EXPECT_TRUE(gate.ExpectWithin("inside EXPECT_TRUE", 1, 1, 0, 0));
}

TEST(Trick, RuntimeBranch) {
  Gate gate({"trick", {1}, 1, "branch"});
  if (Runtime()) {
    gate.ExpectWithin("then branch", 1, 1, 0, 0);
  } else {
    gate.ExpectWithin("else branch", 1, 1, 0, 0);
  }
}

TEST(Trick, Failing) {
  Gate gate({"trick", {1}, 1, "failing"});
  gate.ExpectWithin("fails on purpose", 1, 2, 0, 0);
}

// A function that always throws does not return: the call ends the test's flow (GoogleTest catches
// the exception and fails the test).
void AlwaysThrows() { throw std::runtime_error("thrown by a called function on purpose"); }

TEST(Trick, AfterACallThatAlwaysThrows) {
  Gate gate({"trick", {1}, 1, "a called function throws"});
  gate.ExpectWithin("before the throwing call", 1, 1, 0, 0);
  AlwaysThrows();
  gate.ExpectWithin("after the throwing call", 1, 1, 0, 0);
}

}  // namespace
}  // namespace pstrain::gates
