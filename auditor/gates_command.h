// `audit gates run`: runs the built determinism gates (gates/gate_tests, GoogleTest) in a profile,
// optionally only the gates of given kinds, with a fresh run ledger, and summarizes what ran, what
// each gate checked and where the first difference is (auditor/gates_summary.h).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace pstrain::audit {

extern const char* const kGatesUsage;

// Runs `audit gates ARGS...` (`args` without "gates"). The summary goes to `out`, error messages to
// `err`. Returns the exit code: 0 every selected gate passed, 1 a gate failed, 2 the gates could not
// run (bad option, gate binary missing, no gate selected, the binary crashed without a report).
int RunGatesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace pstrain::audit
