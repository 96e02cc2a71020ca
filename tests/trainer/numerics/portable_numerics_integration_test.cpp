// The pstrain binary computes nothing that feeds a deterministic file with libm's transcendental
// functions (glibc chooses their implementation by CPU features: the last bit depends on the
// machine) or with fused multiply-add instructions (present on some CPUs, not others). Read from
// the binary itself, so that a later change cannot quietly bring either back. And forcing an
// instruction-set level the CPU lacks is bad input (exit 2) naming the level.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_util.h"

namespace pstrain::testing {
namespace {

TEST(PortableNumerics, BinaryImportsNoLibmTranscendental) {
  const CommandResult nm = RunCommand("nm -D --undefined-only " + ShellQuote(PSTRAIN_BINARY));
  ASSERT_EQ(nm.exit_code, 0) << nm.output;
  // exp, log, log10, log2, exp2, exp10, pow, expm1, log1p and their float / long double variants.
  const std::regex transcendental(R"(^\s*U\s+(exp|log|log10|log2|exp2|exp10|pow|expm1|log1p)[fl]?(@.*)?$)");
  std::istringstream lines(nm.output);
  std::vector<std::string> found;
  std::size_t symbols = 0;
  for (std::string line; std::getline(lines, line);) {
    ++symbols;
    if (std::regex_match(line, transcendental)) found.push_back(line);
  }
  EXPECT_GT(symbols, 10u) << "nm listed almost nothing: " << nm.output;
  EXPECT_TRUE(found.empty()) << "pstrain imports libm transcendentals (use numerics/elementary.h):\n"
                             << [&] {
                                  std::string all;
                                  for (const std::string& f : found) all += f + "\n";
                                  return all;
                                }();
}

TEST(PortableNumerics, BinaryHasNoFusedMultiplyAdd) {
  const CommandResult dump = RunCommand("objdump -d --no-show-raw-insn " + ShellQuote(PSTRAIN_BINARY) +
                                        " | grep -cE '\\s(v?fn?m(add|sub)[0-9a-z]*)\\s' || true");
  ASSERT_EQ(dump.exit_code, 0) << dump.output;
  EXPECT_EQ(std::stoul(dump.output), 0u) << "fused multiply-add instructions in pstrain";
}

TEST(PortableNumerics, ForcedLevelTheCpuLacksIsBadInput) {
  for (const std::string level : {"avx512", "neon", "sse9"}) {
    const CommandResult run =
        RunCommand("PSTRAIN_ISA=" + level + " " + ShellQuote(PSTRAIN_BINARY) + " accumulate 2>&1");
    // avx512 may exist on the CPU that runs this test: then it is accepted.
    if (level == "avx512" && run.exit_code == 0) continue;
    EXPECT_EQ(run.exit_code, 2) << level << ": " << run.output;
    EXPECT_NE(run.output.find("PSTRAIN_ISA=" + level), std::string::npos) << run.output;
  }
}

}  // namespace
}  // namespace pstrain::testing
