// The auditor's one error type: trouble that stops a command before it can give a verdict (a path
// that is missing or unreadable, a malformed file, a bad option). The message names the path or the
// option and the problem; `audit`'s main prints it as "audit COMMAND: MESSAGE" and exits 2. Verdicts
// (identical or different, pass or fail) are results, never errors.
//
// Every error the auditor's own code throws is an AuditError (scripts/check-audit-errors.sh, ctest
// `auditor_error_type`, fails on a `throw` of one of the trainer's types in auditor/). What reaches
// RunReportingErrors (report/command_runner.h), and becomes exit 2 there, is therefore:
//   - AuditError (UsageError included) from the auditor;
//   - pstrain::InputError and pstrain::TrainingError from the trainer libraries a command calls
//     (the model and artifact readers, Mdef::Parse, ReadPassFile, ReadFileText, WriteFileAtomic, ...),
//     where the auditor passes them on unchanged; their messages name the file as AuditError's do;
//   - anything else (std::bad_alloc, a std::filesystem::filesystem_error) as the last resort.
// The auditor's parsers of untrusted input (audit_core's ledger, GoogleTest XML, provenance.json
// and gate-source readers) reject bad input with AuditError alone: where they read through a trainer
// function they translate its InputError at that call (AsAuditError below), and their fuzz
// targets (tests/fuzz/) treat any other exception as a crash.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

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

// "PATH: what": trouble with one file or directory (the auditor's pstrain::FileError).
inline AuditError AuditErrorIn(const std::string& path, const std::string& what) {
  return AuditError(path + ": " + what);
}

// "PATH:LINE: what": trouble with one record (line) of a text file, lines numbered from 1 (the
// auditor's pstrain::RecordError).
inline AuditError AuditErrorAt(const std::string& path, std::size_t line_number, const std::string& what) {
  return AuditError(path + ":" + std::to_string(line_number) + ": " + what);
}

// Returns what `call` (a call into a trainer library, e.g. ReadFileText) returns, rethrowing a
// pstrain::InputError it throws as an AuditError with the same message: for the auditor's parsers,
// whose only clean rejection is AuditError. Other exceptions pass unchanged.
template <class Call>
decltype(auto) AsAuditError(Call&& call) {
  try {
    return std::forward<Call>(call)();
  } catch (const InputError& error) {
    throw AuditError(error.what());
  }
}

}  // namespace pstrain::audit
