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

// The JSON report (format "pstrain-gate-scope-2": call sites, "checked_if_reached"), one line, newline-terminated.
std::string RenderJson(const ScopeReport& report, const LedgerCrossCheck* ledger = nullptr);

// "produced files means, variances (at 46:33); copied inputs mdef (at 47:32)" — the CHECKED text
// of one gate (its calls that run on every path), or "nothing".
std::string CheckedSummary(const GateScope& gate);
// The same for its calls CHECKED if reached.
std::string IfReachedSummary(const GateScope& gate);
// "kind ...; declared shard counts ...; N passes. limitation" — one line per declaration, or
// "undeclared: ...".
std::string DescribesSummary(const Declaration& declaration);

}  // namespace pstrain::audit
