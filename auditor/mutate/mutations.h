// The mutations of `audit mutate` (issue #6), as data: each one breaks one thing in a scratch copy
// of a finished pass (RUNDIR/passes/NNN), and names the validator check(s) that should reject it.
// Adding a mutation is adding a row to the table in mutations.cpp.
//
// Foreign artifacts are built honestly where the run directory allows it (an earlier pass's real
// shard; the fingerprint of a real other model or configuration computed with the trainer's own
// functions); where it does not (another manifest), the fingerprint is rewritten. Every edit of
// artifact.json goes through the trainer's strict parser and canonical serializer, and every edit
// that is not meant to break the pass fingerprint or the payload digests recomputes them, so the
// artifact stays self-consistent apart from the one intended fault and the kill is due to the
// intended check.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "provenance/fingerprints.h"
#include "shards/artifact.h"

namespace pstrain::audit {

// What a mutation may look at and where it writes.
struct MutationContext {
  std::filesystem::path run_dir;        // the run directory (read only)
  std::filesystem::path foreign_run;    // another run directory (--foreign-run), or empty (read only)
  std::filesystem::path original_pass;  // RUN_DIR/passes/NNN (read only)
  std::filesystem::path copy;           // the scratch copy of the pass: the mutation changes this
  std::filesystem::path outside;        // an empty scratch directory outside the copy (symlink targets)
  std::uint32_t pass = 0;
  std::uint32_t shard_count = 0;
  ReductionMode reduction = ReductionMode::kExact;
  std::vector<ShardArtifact> artifacts;  // the original pass's artifacts (validated), shard order

  // The shard most mutations break: the last one, so that every shard before it is validated first.
  std::uint32_t TargetShard() const { return shard_count - 1; }
  std::filesystem::path ShardDir(std::uint32_t shard) const { return copy / ShardDirName(shard); }
};

// Thrown by Mutation::apply when the pass does not allow the mutation after all (reported as not
// applicable with the message). Any other exception is trouble (audit mutate exits 2).
class MutationNotApplicable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Mutation {
  std::string name;                          // stable id, e.g. "payload-byte-flipped"
  std::string category;                      // payload, artifact-json, identity, coverage, outcomes, path, pass, sidecar
  std::string description;                   // what it does, for people
  std::vector<std::string> expected_checks;  // the checks that should reject it; empty: any check
  // "" when the mutation applies to the pass, otherwise why not.
  std::function<std::string(const MutationContext&)> not_applicable;
  // Applies the mutation to ctx.copy; returns what was done (paths relative to the copy).
  std::function<std::string(const MutationContext&)> apply;
};

// The table, in report order.
const std::vector<Mutation>& Mutations();

}  // namespace pstrain::audit
