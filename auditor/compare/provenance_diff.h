// `audit compare`: the field-by-field comparison of two provenance.json files (written by
// trainer/training/train_loop.cpp, fields in docs/contract.md). Fields come in the order that
// explains numeric differences first: effective shard count, requested jobs, reduction mode,
// version, architecture, compiler, binary and library identities, fingerprints, configuration,
// stop rule, per-pass likelihoods; then the model file digests, launcher, host and format; then any
// field this version does not know, by name.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/value.hpp>

namespace pstrain::audit {

struct FieldDiff {
  std::string field;                   // "effective_shard_count", "inputs.config", ...
  std::optional<std::string> a, b;     // the values as text (JSON text for non-strings); nullopt = absent
  bool equal = true;
  bool affects_numbers = false;        // hashed into the training fingerprint (docs/contract.md)
  std::vector<std::string> details;    // e.g. "only in A: libm.so.6", "- abeam=1e-90", "+ abeam=1e-80"
};

struct PassLikelihood {
  std::uint32_t pass = 0;                  // 1-based
  std::optional<double> a, b;              // totals.log_likelihood_per_frame
};

// What one provenance.json says, for the explanations.
struct ProvenanceFacts {
  std::optional<std::uint64_t> effective_shard_count, requested_jobs;
  std::optional<std::string> reduction, training_fingerprint;
  std::map<std::string, std::string> model_files;  // file -> recorded SHA-256
};

struct ProvenanceDiff {
  std::vector<FieldDiff> fields;  // every field, equal or not, in the order above
  std::vector<PassLikelihood> likelihoods;
  ProvenanceFacts a, b;

  bool Identical() const;
  const FieldDiff* Find(const std::string& field) const;
  // The fields hashed into the training fingerprint that differ, other than the shard counts.
  std::vector<std::string> OtherNumericDifferences() const;
};

// Parses both files; throws AuditError naming the file when it cannot be read, is not
// JSON, is not an object, or a known field has the wrong type.
ProvenanceDiff DiffProvenanceFiles(const std::string& path_a, const std::string& path_b);
// The same on parsed values (`name_a`, `name_b` name the files in errors).
ProvenanceDiff DiffProvenance(const boost::json::value& a, const std::string& name_a, const boost::json::value& b,
                              const std::string& name_b);

// Reads and parses one provenance.json (for a file present on one side only, and for the facts).
boost::json::value ReadProvenance(const std::string& path);
ProvenanceFacts ProvenanceFactsOf(const boost::json::value& provenance, const std::string& name);

}  // namespace pstrain::audit
