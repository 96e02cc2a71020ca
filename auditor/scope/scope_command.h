// `audit scope`: the gate-scope report (what each determinism gate CHECKS vs what it DESCRIBES),
// its cross-check with a run ledger, and the generated section of docs/contract.md.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace pstrain::audit {

extern const char* const kScopeUsage;

// Runs `audit scope ARGS...` (`args` without "scope"): the report goes to `out` (or --out), error
// messages to `err`. Returns the exit code: 0 ok, 1 a check failed (stale section, ledger problems),
// 2 an error (bad option, unreadable input — the message names the file).
int RunScopeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace pstrain::audit
