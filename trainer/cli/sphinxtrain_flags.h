// SphinxTrain-style command lines (`-name value` pairs) for the `bw` and `norm` front ends: the
// table of flags each tool accepts, which values pstrain supports, and errors in the form the
// SphinxTrain perl scripts detect (see FatalLine).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "common/error.h"

namespace pstrain::cli {

// One flag of a SphinxTrain tool.
struct SphinxFlagSpec {
  const char* name;       // with the leading '-', e.g. "-2passvar"
  const char* supported;  // values pstrain supports, '|'-separated ("yes|no"); "" = any value; nullptr = none
  const char* meaning;    // for the documentation and error messages
};

// A flag or value pstrain cannot honour: the message names the flag (and the value).
class SphinxFlagError : public std::runtime_error {
 public:
  explicit SphinxFlagError(const std::string& message) : std::runtime_error(SanitizedMessage(message)) {}
};

class SphinxFlags {
 public:
  // Parses argv[1..argc) as `-name value` pairs. An unknown flag, a flag without a value, a flag
  // given twice, a flag whose table entry supports no value (a feature pstrain lacks) and a value
  // outside the supported list are SphinxFlagErrors naming the flag.
  static SphinxFlags Parse(int argc, char** argv, std::span<const SphinxFlagSpec> table, const std::string& tool);

  std::optional<std::string> Get(const std::string& name) const;
  std::string GetOr(const std::string& name, const std::string& fallback) const;
  // The value of a required flag (SphinxFlagError naming it when absent).
  std::string Require(const std::string& name) const;
  // Numbers: SphinxFlagError naming the flag when the value is not one.
  double Number(const std::string& name, double fallback) const;
  std::optional<std::uint64_t> Count(const std::string& name) const;

 private:
  std::string tool_;
  std::map<std::string, std::string> values_;
};

// The flag tables (also printed by `pstrain bw -help` / `pstrain norm -help`).
std::span<const SphinxFlagSpec> BwFlagTable();
std::span<const SphinxFlagSpec> NormFlagTable();
// Prints a table as `-name  supported values  meaning` lines.
std::string DescribeFlags(std::span<const SphinxFlagSpec> table);

// The line by which the SphinxTrain scripts recognize a failed tool: SphinxBase's E_FATAL form
// `FATAL: "FILE", line N: MESSAGE` (RunTool in scripts/lib/SphinxTrain/Util.pm stops at a line
// matching /^FATAL:.*line \d+/ and marks the step FAILED; the tools' exit status is not checked).
// FILE and N are the pstrain source location that reported the error.
std::string FatalLine(const char* file, int line, const std::string& tool, const std::string& message);

// Runs a front end's body and reports any error as one FatalLine on stderr: exit 2 for bad flags,
// usage or input, 1 for anything else (a training failure, a write that did not happen).
int RunSphinxTool(const std::string& tool, const std::function<int()>& body);

}  // namespace pstrain::cli
