// Fuzz target: a model's provenance.json as audit compare reads it (auditor/provenance_diff.h
// ReadProvenance, ProvenanceFactsOf, DiffProvenance).
#include "audit_fuzz_target.h"
#include "compare/provenance_diff.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path path = pstrain::fuzz::WriteScratch("model/provenance.json", data, size);
  pstrain::fuzz::ExpectOnlyAuditErrors([&] {
    const boost::json::value provenance = pstrain::audit::ReadProvenance(path.string());
    pstrain::audit::ProvenanceFactsOf(provenance, "a/provenance.json");
    pstrain::audit::DiffProvenance(provenance, "a/provenance.json", provenance, "b/provenance.json");
  });
  return 0;
}
