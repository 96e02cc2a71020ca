// Pass summaries from a pass's results: the value of RUNDIR/passes/NNN/pass.json (its format is
// coordinator/pass_file.h's) and ACCUMDIR/summary.json (accumulate). No times, PIDs, host names or
// absolute paths, so identical runs write identical bytes. Layouts in docs/formats.md.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/parallel_for.h"
#include "coordinator/pass_file.h"
#include "reestimate/reestimate.h"
#include "shards/artifact.h"
#include "shards/reducer.h"
#include "estep/corpus_pass.h"

namespace pstrain {

struct PassRecordInput {
  std::uint32_t pass = 0;
  std::string training_fingerprint;
  std::uint32_t requested_jobs = 1;
  std::uint32_t shard_count = 1;
  std::string reduction;
  PassFingerprints fingerprints;
  std::string code_identity;  // the build every shard was validated against (PassExpectation::code_identity)
  const std::vector<ShardArtifact>* artifacts = nullptr;  // shard order
  const ReducedPass* reduced = nullptr;
  const ReestimationReport* report = nullptr;
  std::string stop_decision;
  double gain = 0.0;
  bool has_gain = false;
  std::vector<PassFileDigest> files;  // PassFileDigests of the pass directory (model/ and accum/)
};

// The SHA-256 of every file of the pass's model/ (the model files, in their fixed order) and accum/
// (by name): "model/means", ..., recorded in pass.json and verified on resume. `which` selects
// model/, accum/ or both (the list is then the model part followed by the accum part); the files are
// hashed on up to `threads` threads (common/parallel_for.h). A file listed in `hashed` (the same
// relative name, e.g. one this process hashed as it finished writing it) takes that digest instead
// of being read again.
enum class PassFiles { kModel, kAccum, kAll };
std::vector<PassFileDigest> PassFileDigests(const std::filesystem::path& pass_dir, PassFiles which = PassFiles::kAll,
                                            unsigned threads = CheckParallelism(), const std::vector<PassFileDigest>& hashed = {});

// pass.json's value for a finished pass (SerializePassFile gives its bytes).
PassFile PassFileFrom(const PassRecordInput& input);

// The outcomes of pass.json that follow from the shard artifacts and the reduction; `pstrain
// validate` recomputes them.
PassOutcomes OutcomesFrom(const std::vector<ShardArtifact>& artifacts, const ReducedPass& reduced);

// The per-utterance outcomes and totals of an accumulate run (ACCUMDIR/summary.json).
std::string AccumulateSummaryJson(const std::vector<ShardArtifact>& artifacts, const ReducedPass& reduced,
                                  std::uint32_t requested_jobs, const std::string& reduction);

}  // namespace pstrain
