// Rendering the gate scope: Markdown for people (the generated section of docs/contract.md) and
// JSON for pipelines. Both are deterministic: files by path, gates and calls in source order, no
// time, host or absolute path.
#pragma once

#include <string>

#include "scope/scope_ledger.h"
#include "scope/scope_model.h"

namespace pstrain::audit {

// The Markdown report. Without a ledger it is exactly the generated section of docs/contract.md;
// with one, a "Ledger cross-check" part follows.
std::string RenderMarkdown(const ScopeReport& report, const LedgerCrossCheck* ledger = nullptr);
// The ledger part alone (for `--check ... --ledger`).
std::string RenderLedgerMarkdown(const LedgerCrossCheck& ledger);

// The JSON report (format "pstrain-gate-scope-1"), one line, newline-terminated.
std::string RenderJson(const ScopeReport& report, const LedgerCrossCheck* ledger = nullptr);

// "produced files means, variances; copied inputs mdef" — the CHECKED text of one gate, or
// "nothing".
std::string CheckedSummary(const GateScope& gate);
// "kind ...; declared shard counts ...; N passes. limitation" — one line per declaration, or
// "undeclared: ...".
std::string DescribesSummary(const Declaration& declaration);

}  // namespace pstrain::audit
