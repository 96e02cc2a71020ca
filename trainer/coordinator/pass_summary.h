// Pass summaries: RUNDIR/passes/NNN/pass.json (training) and ACCUMDIR/summary.json (accumulate).
// JSON with a fixed key order; no times, PIDs, host names or absolute paths, so identical runs
// write identical bytes. Layouts in docs/formats.md.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <filesystem>
#include <string>
#include <vector>

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
  boost::json::array files;  // PassFileDigests of the pass directory (model/ and accum/)
};

// The SHA-256 of every file of the pass's model/ (the model files, in their fixed order) and accum/
// (by name): [{"file": "model/means", "sha256": ...}, ...], recorded in pass.json and verified on
// resume.
boost::json::array PassFileDigests(const std::filesystem::path& pass_dir);

std::string PassJson(const PassRecordInput& input);

// The fields of pass.json that follow from the shard artifacts and the reduction (totals,
// utterance_ids, processed_ids, retried_ids, skipped); `pstrain validate` recomputes them.
boost::json::object OutcomeFields(const std::vector<ShardArtifact>& artifacts, const ReducedPass& reduced);

// The per-utterance outcomes and totals of an accumulate run (ACCUMDIR/summary.json).
std::string AccumulateSummaryJson(const std::vector<ShardArtifact>& artifacts, const ReducedPass& reduced,
                                  std::uint32_t requested_jobs, const std::string& reduction);

}  // namespace pstrain
