// The auditor's one error type: trouble that stops a command before it can give a verdict (a path
// that is missing or unreadable, a malformed file, a bad option). The message names the path or the
// option and the problem; `audit`'s main prints it as "audit COMMAND: MESSAGE" and exits 2. Verdicts
// (identical or different, pass or fail) are results, never errors.
#pragma once

#include <stdexcept>
#include <string>

#include "common/error.h"

namespace pstrain::audit {

class AuditError : public std::runtime_error {
 public:
  explicit AuditError(const std::string& message) : std::runtime_error(SanitizedMessage(message)) {}
};

// A command line the command cannot run: main adds "(see audit COMMAND --help)".
class UsageError : public AuditError {
 public:
  explicit UsageError(const std::string& message) : AuditError(message) {}
};

}  // namespace pstrain::audit
