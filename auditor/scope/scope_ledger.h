// Cross-checking the gate scope (what the source says the gates check) with a run ledger (what the
// gate kit recorded while the gates ran; format in docs/gates.md), call site by call site.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "scope/scope_model.h"

namespace pstrain::audit {

struct LedgerRecord {
  std::size_t line = 0;    // line in the ledger file
  std::string record;      // "declaration", "run" (what the gate really ran) or "check"
  std::string gate;        // "Suite.Test" (as GoogleTest names the running test)
  std::string helper;      // checks
  std::vector<std::string> subjects;  // checks
  std::string result;      // checks: "pass" or "fail"
  std::string detail;      // checks
  int format = 1;          // "ledger_format" (absent: 1)
  std::string file;        // checks, format 2: the call site as the compiler named it
  std::size_t site_line = 0, site_column = 0;
};

struct Ledger {
  std::string name;  // how reports name it (the path as given)
  std::vector<LedgerRecord> records;
};

// Parses JSON Lines. Throws AuditError "NAME:LINE: what" for a line that is not a ledger
// record (not JSON, not an object, unknown record type or format, a missing or mistyped field, a
// check record without its call site: format 1, written before the kit recorded call sites).
Ledger ParseLedger(std::string_view text, const std::string& name);
// Throws AuditError naming the file when it cannot be read.
Ledger ReadLedger(const std::filesystem::path& path);

enum class FindingKind {
  kNoDeclarationRecord,  // the gate declares itself in the source; the ledger has no declaration record for it
  kPassed,               // a call site with check records, all passed (not a problem)
  kFailed,               // a call site (or a record of an unknown gate) with a failed check record
  kNeverExecuted,        // a CHECKED call site with no check record
  kNotReached,           // a call site CHECKED if reached with no check record (not a problem: the ledger decides)
  kUnderClaim,           // a check record of a known gate whose call site the static report lacks
  kNotInSource,          // a record of a gate no scanned source has (a note, not a problem)
};

struct LedgerFinding {
  FindingKind kind = FindingKind::kNeverExecuted;
  std::string gate;
  std::string where;    // "gates/x_gate.cpp:40:7" (call site) or "ledger.jsonl:7" (ledger)
  std::string what;     // "ExpectProducedFilesIdentical(means, variances)"
  std::string detail;   // failures: the first failed record's detail; under-claims: its call site
  std::size_t count = 1;  // records at the call site (passed, failed) or identical records noted
};

struct LedgerCrossCheck {
  std::string ledger;
  std::size_t records = 0;
  std::vector<LedgerFinding> findings;  // source order of the gates and call sites, then ledger order

  std::size_t problems() const;  // findings other than kPassed, kNotReached and kNotInSource
  std::size_t Count(FindingKind kind) const;
};

LedgerCrossCheck CrossCheck(const ScopeReport& scope, const Ledger& ledger);

// Whether a ledger gate name ("Suite.Test", or for TEST_P "Prefix/Suite.Test/0") is this gate.
bool LedgerGateMatches(const GateScope& gate, const std::string& ledger_gate);

const char* FindingLabel(FindingKind kind);

}  // namespace pstrain::audit
