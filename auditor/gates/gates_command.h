// `audit gates run`: runs the built determinism gates (gates/gate_tests, GoogleTest) in a profile,
// optionally only the gates of given kinds, with a fresh run ledger, and summarizes what ran, what
// each gate checked and where the first difference is (auditor/gates/gates_summary.h).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace pstrain::audit {

extern const char* const kGatesUsage;

// Runs `audit gates ARGS...` (`args` without "gates"). The summary goes to `out`, error messages to
// `err`. Returns the exit code: 0 every selected gate passed, 1 a gate failed, 2 the gates could not
// run (bad option, gate binary missing, no gate selected, the binary crashed without a report).
int RunGatesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// The option checks of `audit gates run` (exposed for tests). A positive integer of at most 6
// digits, else `problem` names `option` and the text.
std::uint32_t ParsePositive(const std::string& text, const std::string& option, std::string& problem);
// A --shards list ("1,2,4"; duplicates dropped, order kept), else `problem` says what is wrong.
std::vector<std::uint32_t> ParseShardCounts(const std::string& text, std::string& problem);
// Why a gate of `kind` cannot use the shard list `counts` ("" when it can, or ignores it); the
// rules of the gates' comments and docs/gates.md ("Overrides").
std::string ShardOverrideProblem(const std::string& kind, const std::vector<std::uint32_t>& counts);
// "KIND ignores OPTION (why)" for a gate whose shard count (--shards) or passes (--passes) are fixed
// by definition, else "".
std::string IgnoredOverride(const std::string& kind, const std::string& option);

}  // namespace pstrain::audit
