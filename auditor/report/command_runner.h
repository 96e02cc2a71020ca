// Runs one audit command and maps what escapes it to an exit code, as `audit`'s main does (and as
// the unit tests call the commands): a UsageError is "audit NAME: MESSAGE" plus "(see audit NAME
// --help)", any other exception (AuditError, a trainer InputError, ...: report/audit_error.h lists
// them) "audit NAME: MESSAGE"; both exit 2. Commands themselves only return verdicts (0, 1) or
// throw; `audit gates run` also returns 2 when its summary (written like any report) says the gates
// could not run, and `audit gates` alone prints the usage and returns 2.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace pstrain::audit {

using CommandFunction = int (*)(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

int RunReportingErrors(const char* name, CommandFunction run, const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err);

}  // namespace pstrain::audit
