// RUNDIR/model/provenance.json, "pstrain-provenance-1": the one module that writes it and lists its
// fields. `pstrain train` writes it (training/train_loop.cpp); `audit compare` reads it field by
// field from the same list (auditor/compare/provenance_diff.cpp), so a field the writer adds is
// known to the reader; tests/trainer/provenance/provenance_file_test.cpp checks that the two agree.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include <boost/json.hpp>

#include "provenance/provenance.h"

namespace pstrain {

inline constexpr const char* kProvenanceFormat = "pstrain-provenance-1";
// The most a reader of provenance.json reads (it holds every pass's pass.json).
inline constexpr std::size_t kMaxProvenanceBytes = 256u << 20;

// A field of provenance.json: its path ("inputs.config" for a member of an object), whether it is
// hashed into the training fingerprint (a difference there can change the numbers), and whether
// the writer omits it when it has nothing to say.
struct ProvenanceField {
  const char* path;
  bool fingerprinted;
  bool optional;
};

// Every field, in the order `audit compare` reports them.
std::span<const ProvenanceField> ProvenanceFields();

// What a finished run's provenance.json records beyond the training identity.
struct ProvenanceRecord {
  TrainingIdentity identity;
  std::string training_fingerprint;
  std::string launcher;
  std::string host;                 // diagnostic only
  boost::json::array shard_nodes;   // diagnostic only: per Slurm pass, the node of each shard; omitted when empty
  boost::json::array model_files;   // [{"file", "sha256"}] of the final model's files
  boost::json::array passes;        // one object per pass (coordinator/pass_summary)
  std::string stop_decision;
};

// The file's bytes: compact JSON and a final newline.
std::string ProvenanceJson(const ProvenanceRecord& record);

}  // namespace pstrain
