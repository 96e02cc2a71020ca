// Cross-checking the gate scope (what the source says the gates check) with a run ledger (what the
// gate kit recorded while the gates ran; format in docs/gates.md).
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
};

struct Ledger {
  std::string name;  // how reports name it (the path as given)
  std::vector<LedgerRecord> records;
};

// Parses JSON Lines. Throws pstrain::InputError "NAME:LINE: what" for a line that is not a ledger
// record (not JSON, not an object, unknown record type, a missing or mistyped field).
Ledger ParseLedger(std::string_view text, const std::string& name);
// Throws pstrain::InputError naming the file when it cannot be read.
Ledger ReadLedger(const std::filesystem::path& path);

enum class FindingKind {
  kNoDeclarationRecord,  // the gate declares itself in the source; the ledger has no declaration record for it
  kNeverExecuted,        // a helper call in the source has no check record (same gate, helper, subjects)
  kFailed,               // a check record with result "fail"
  kNotInSource,          // a ledger record no source gate or helper call accounts for (a note, not a problem)
};

struct LedgerFinding {
  FindingKind kind = FindingKind::kNeverExecuted;
  std::string gate;
  std::string where;    // "gates/x_gate.cpp:40" (source) or "ledger.jsonl:7" (ledger)
  std::string what;     // "ExpectProducedFilesIdentical(means, variances)"
  std::string detail;   // failures: the record's detail
  std::size_t count = 1;  // identical failed records are reported once, with their number
};

struct LedgerCrossCheck {
  std::string ledger;
  std::size_t records = 0;
  std::vector<LedgerFinding> findings;  // source order of the gates, then ledger order

  std::size_t problems() const;  // findings other than kNotInSource
};

LedgerCrossCheck CrossCheck(const ScopeReport& scope, const Ledger& ledger);

// Whether a ledger gate name ("Suite.Test", or for TEST_P "Prefix/Suite.Test/0") is this gate.
bool LedgerGateMatches(const GateScope& gate, const std::string& ledger_gate);

const char* FindingLabel(FindingKind kind);

}  // namespace pstrain::audit
