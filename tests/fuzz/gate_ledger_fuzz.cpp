// Fuzz target: a gate-kit run ledger (JSON Lines, docs/gates.md), as audit scope --ledger reads it
// (auditor/scope_ledger.h ParseLedger) and as audit gates run summarizes it (auditor/gates_summary.h
// Summarize, which never throws: unreadable input is a problem, exit 2).
#include "audit_fuzz_target.h"
#include "gates/gates_summary.h"
#include "scope/scope_ledger.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pstrain::fuzz::ExpectOnlyAuditErrors([&] { pstrain::audit::ParseLedger(pstrain::fuzz::Text(data, size), "ledger.jsonl"); });
  pstrain::audit::SummarizeInput input;
  input.profile = "quick";
  input.ledger = pstrain::fuzz::WriteScratch("gates/ledger.jsonl", data, size);
  input.xml = pstrain::fuzz::ScratchDir() / "gates/missing.xml";
  pstrain::audit::RenderGatesJson(pstrain::audit::Summarize(input));
  return 0;
}
