// Validation of a finished pass (RUNDIR/passes/NNN), as `pstrain validate` does it and as
// `audit mutate` reuses it: the expectations are read from the pass's pass.json, every shard
// artifact is validated (shards/artifact_validator.h), the shards are reduced and compared with the
// stored accum/ ("reduction"), and pass.json's outcome lists and exact totals are compared with what
// the artifacts say ("pass-summary").
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/error.h"
#include "coordinator/pass_file.h"
#include "provenance/fingerprints.h"
#include "shards/artifact_validator.h"

namespace pstrain {

// What pass.json of a finished pass says the pass was.
struct FinishedPass {
  PassExpectation expected;
  ReductionMode reduction = ReductionMode::kExact;
  PassFile file;  // pass.json as read (coordinator/pass_file.h)
};

// Reads PASS_DIR/pass.json. Throws InputError "PASS_DIR/pass.json: unreadable: ..." when it is
// missing, not JSON, lacks a field, has a field of the wrong type or out of range, or claims more
// shards than it has utterances or than the pass directory holds.
FinishedPass ReadFinishedPass(const std::filesystem::path& pass_dir);

// A finished pass rejected by a pass-level check ("reduction" or "pass-summary"): which check and
// which file. what() is `check "CHECK" (FILE): DETAIL`.
class PassRejected : public TrainingError {
 public:
  PassRejected(std::string check, std::string file, const std::string& detail);
  const std::string& check() const { return check_; }
  const std::string& file() const { return file_; }

 private:
  std::string check_;
  std::string file_;
};

// Validates the finished pass in `pass_dir` against `pass` (normally ReadFinishedPass(pass_dir)):
// every shard artifact, then the reduction and the summary. Returns the artifacts in shard order.
// Throws ArtifactRejected (a shard's check) or PassRejected (a pass-level check).
std::vector<ShardArtifact> ValidateFinishedPass(const std::filesystem::path& pass_dir, const FinishedPass& pass);

}  // namespace pstrain
