// Pass summaries from a pass's results: pass.json's value and summary.json (coordinator/pass_summary.h).
#include "coordinator/pass_summary.h"

#include <algorithm>
#include <boost/json.hpp>

#include "common/parallel_for.h"
#include "common/sha256.h"
#include "model/acoustic_model.h"

namespace pstrain {

namespace json = boost::json;

PassOutcomes OutcomesFrom(const std::vector<ShardArtifact>& artifacts, const ReducedPass& reduced) {
  // Totals and outcome lists over all shards, in manifest order (shards are contiguous ranges).
  PassOutcomes outcomes;
  for (const ShardArtifact& a : artifacts) {
    for (const std::string& id : a.assigned_ids) outcomes.utterance_ids.push_back(id);
    for (const std::string& id : a.processed_ids) outcomes.processed_ids.push_back(id);
    for (const std::string& id : a.retried_ids) outcomes.retried_ids.push_back(id);
    for (const SkippedUtterance& s : a.skipped) outcomes.skipped.push_back(s);
  }
  PassTotals& totals = outcomes.totals;
  totals.utterances = outcomes.utterance_ids.size();
  totals.processed = outcomes.processed_ids.size();
  totals.retried = outcomes.retried_ids.size();
  totals.skipped = outcomes.skipped.size();
  totals.total_frames = reduced.total_frames;
  totals.total_log_likelihood = reduced.log_likelihood.value();
  totals.total_log_likelihood_exact = FixedToHex(reduced.log_likelihood.fixed());
  totals.log_likelihood_per_frame =
      reduced.total_frames ? reduced.log_likelihood.value() / static_cast<double>(reduced.total_frames) : 0.0;
  return outcomes;
}

std::vector<PassFileDigest> PassFileDigests(const std::filesystem::path& pass_dir, PassFiles which, unsigned threads,
                                            const std::vector<PassFileDigest>& hashed) {
  namespace fs = std::filesystem;
  std::vector<PassFileDigest> files;
  for (const char* name : kModelFiles) {
    const std::string relative = std::string("model/") + name;
    if (which != PassFiles::kAccum && fs::is_regular_file(pass_dir / relative)) files.push_back({relative, ""});
  }
  std::vector<std::string> accum;
  if (which != PassFiles::kModel && fs::is_directory(pass_dir / "accum")) {
    for (const auto& entry : fs::directory_iterator(pass_dir / "accum")) {
      if (entry.is_regular_file()) accum.push_back(entry.path().filename().string());
    }
  }
  std::sort(accum.begin(), accum.end());
  for (const std::string& name : accum) files.push_back({"accum/" + name, ""});
  ParallelFor(files.size(), threads, [&](std::size_t i) {
    for (const PassFileDigest& known : hashed) {
      if (known.file == files[i].file) {
        files[i].sha256 = known.sha256;
        return;
      }
    }
    files[i].sha256 = Sha256OfFile(pass_dir / files[i].file);
  });
  return files;
}

PassFile PassFileFrom(const PassRecordInput& input) {
  PassFile file;
  file.pass = input.pass;
  file.training_fingerprint = input.training_fingerprint;
  file.requested_jobs = input.requested_jobs;
  file.shard_count = input.shard_count;
  file.reduction = input.reduction;
  file.fingerprints = input.fingerprints;
  file.code_identity = input.code_identity;
  file.outcomes = OutcomesFrom(*input.artifacts, *input.reduced);
  if (input.has_gain) file.log_likelihood_gain_per_frame = input.gain;
  file.stop_decision = input.stop_decision;
  const ReestimationReport& report = *input.report;
  file.reestimation.densities_without_counts = report.densities_without_counts;
  file.reestimation.mixw_rows_without_counts = report.mixw_rows_without_counts;
  file.reestimation.tmat_rows_without_counts = report.tmat_rows_without_counts;
  file.reestimation.negative_variances = report.negative_variances;
  file.reestimation.unseen_senones_kept_previous.assign(report.unseen_senones.begin(), report.unseen_senones.end());
  file.files = input.files;
  // Multipron passes only (the linear path's pass.json has no such member).
  if (!input.reduced->fallback_senones.empty()) {
    PassMultipron multipron;
    for (std::size_t senone = 0; senone < input.reduced->fallback_senones.size(); ++senone) {
      if (input.reduced->fallback_senones[senone]) multipron.activated_senones.push_back(senone);
    }
    multipron.survival_prior_states = report.survival_prior_states;
    multipron.activated_states_without_counts = report.activated_states_without_counts;
    file.multipron = std::move(multipron);
  }
  return file;
}

std::string AccumulateSummaryJson(const std::vector<ShardArtifact>& artifacts, const ReducedPass& reduced,
                                  std::uint32_t requested_jobs, const std::string& reduction) {
  json::object root;
  root["format"] = "pstrain-accumulate-summary-2";
  root["requested_jobs"] = requested_jobs;
  root["shard_count"] = artifacts.size();
  root["reduction"] = reduction;
  root["manifest_fingerprint"] = artifacts.empty() ? "" : artifacts.front().fingerprints.manifest;
  AppendOutcomeFields(OutcomesFrom(artifacts, reduced), root);
  return json::serialize(root) + "\n";
}

}  // namespace pstrain
