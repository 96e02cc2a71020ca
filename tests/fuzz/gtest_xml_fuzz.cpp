// Fuzz target: a GoogleTest XML (JUnit-style) report as audit gates run reads it
// (auditor/gates_summary.h ParseGtestXmlText, and Summarize on the report as a file, which never
// throws).
#include "audit_fuzz_target.h"
#include "gates/gates_summary.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pstrain::fuzz::ExpectOnlyAuditErrors([&] { pstrain::audit::ParseGtestXmlText(pstrain::fuzz::Text(data, size), "gates.xml"); });
  pstrain::audit::SummarizeInput input;
  input.profile = "quick";
  input.xml = pstrain::fuzz::WriteScratch("gates/gates.xml", data, size);
  input.ledger = pstrain::fuzz::ScratchDir() / "gates/missing.jsonl";
  pstrain::audit::RenderGatesJson(pstrain::audit::Summarize(input));
  return 0;
}
