// `audit gates run` end to end: the built audit runs the built gate binary (gates/gate_tests) on the
// default corpus, quick profile, only the fixed-count-reproducibility gate (about a second), and
// summarizes it. (Exit 1 and 2 with fake gate binaries: tests/unit/audit_gates_test.cpp.)
//
// Needs the `audit` and `gate_tests` targets built (integration_tests depends on them). The gate's
// scratch directories go below audit's work directory (PSTRAIN_GATE_SCRATCH), so this test and
// ctest's own run of the same gate can run at the same moment.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>

#include "common/file_io.h"
#include "integration/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

TEST(AuditGatesRunTest, FixedCountGatePassesAndTheSummaryNamesItsChecks) {
  const fs::path audit = fs::path(PSTRAIN_BUILD_DIR) / "auditor" / "audit";
  const fs::path gate_tests = fs::path(PSTRAIN_BUILD_DIR) / "gates" / "gate_tests";
  ASSERT_TRUE(fs::exists(audit)) << audit << " is not built (cmake --build BUILD --target audit)";
  ASSERT_TRUE(fs::exists(gate_tests)) << gate_tests << " is not built (cmake --build BUILD --target gate_tests)";

  const fs::path dir = FreshDir("audit_gates_run");
  const CommandResult r = RunCommand(ShellQuote(audit.string()) + " gates run --profile quick --only fixed-count-reproducibility" +
                                     " --work-dir " + ShellQuote((dir / "work").string()) + " --json " +
                                     ShellQuote((dir / "summary.json").string()) + " --junit " +
                                     ShellQuote((dir / "junit.xml").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("PASS    Gate.FixedCountReproducibility"), std::string::npos) << r.output;

  const json::value summary = json::parse(ReadFileText(dir / "summary.json"));
  EXPECT_EQ(summary.at("exit_code").as_int64(), 0);
  EXPECT_EQ(summary.at("profile").as_string(), "quick");
  const json::array& gates = summary.at("gates").as_array();
  ASSERT_EQ(gates.size(), 1u) << summary;
  const json::object& gate = gates[0].as_object();
  EXPECT_EQ(gate.at("name").as_string(), "Gate.FixedCountReproducibility");
  EXPECT_EQ(gate.at("kind").as_string(), "fixed-count-reproducibility");
  EXPECT_EQ(gate.at("declared_in").as_string(), "ledger");
  EXPECT_EQ(gate.at("declared_shard_counts"), json::array({2}));
  EXPECT_EQ(gate.at("result").as_string(), "pass");
  EXPECT_GT(gate.at("checks").as_int64(), 0) << summary;
  EXPECT_EQ(gate.at("failed_checks").as_int64(), 0);
  EXPECT_TRUE(gate.at("first_failed_check").is_null());

  // The ledger is the run's own; the JUnit report is GoogleTest's.
  EXPECT_NE(ReadFileText(dir / "work" / "gate-ledger.jsonl").find("\"record\":\"declaration\""), std::string::npos);
  EXPECT_NE(ReadFileText(dir / "junit.xml").find("<testcase name=\"FixedCountReproducibility\""), std::string::npos);
}

}  // namespace
}  // namespace pstrain::testing
