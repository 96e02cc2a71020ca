// Writing pass.json (training) and summary.json (accumulate).
#include "coordinator/pass_summary.h"

#include <algorithm>
#include <boost/json.hpp>

#include "common/sha256.h"

namespace pstrain {

namespace json = boost::json;

namespace {

// Totals and outcome lists over all shards, in manifest order (shards are contiguous ranges).
void AddOutcomes(json::object& root, const std::vector<ShardArtifact>& artifacts, const ReducedPass& reduced);

}  // namespace

json::object OutcomeFields(const std::vector<ShardArtifact>& artifacts, const ReducedPass& reduced) {
  json::object fields;
  AddOutcomes(fields, artifacts, reduced);
  return fields;
}

namespace {

void AddOutcomes(json::object& root, const std::vector<ShardArtifact>& artifacts, const ReducedPass& reduced) {
  json::array processed, retried, skipped;
  std::size_t utterances = 0;
  for (const ShardArtifact& a : artifacts) {
    utterances += a.assigned_ids.size();
    for (const std::string& id : a.processed_ids) processed.emplace_back(id);
    for (const std::string& id : a.retried_ids) retried.emplace_back(id);
    for (const SkippedUtterance& s : a.skipped) {
      json::object item;
      item["id"] = s.id;
      item["reason"] = s.reason;
      skipped.push_back(std::move(item));
    }
  }
  json::array all_ids;
  for (const ShardArtifact& a : artifacts) {
    for (const std::string& id : a.assigned_ids) all_ids.emplace_back(id);
  }
  json::object totals;  // boost::json::object keeps insertion order: the key order is fixed here
  totals["utterances"] = utterances;
  totals["processed"] = processed.size();
  totals["retried"] = retried.size();
  totals["skipped"] = skipped.size();
  totals["total_frames"] = reduced.total_frames;
  totals["total_log_likelihood"] = reduced.log_likelihood.value();
  totals["total_log_likelihood_exact"] = FixedToHex(reduced.log_likelihood.fixed());
  totals["log_likelihood_per_frame"] =
      reduced.total_frames ? reduced.log_likelihood.value() / static_cast<double>(reduced.total_frames) : 0.0;
  root["totals"] = std::move(totals);
  root["utterance_ids"] = std::move(all_ids);
  root["processed_ids"] = std::move(processed);
  root["retried_ids"] = std::move(retried);
  root["skipped"] = std::move(skipped);
}

}  // namespace

boost::json::array PassFileDigests(const std::filesystem::path& pass_dir) {
  namespace fs = std::filesystem;
  json::array files;
  auto add = [&](const std::string& relative) {
    json::object file;
    file["file"] = relative;
    file["sha256"] = Sha256OfFile(pass_dir / relative);
    files.push_back(std::move(file));
  };
  for (const char* name : {"mdef", "means", "variances", "mixture_weights", "transition_matrices", "feat.params", "noisedict"}) {
    if (fs::is_regular_file(pass_dir / "model" / name)) add(std::string("model/") + name);
  }
  std::vector<std::string> accum;
  if (fs::is_directory(pass_dir / "accum")) {
    for (const auto& entry : fs::directory_iterator(pass_dir / "accum")) {
      if (entry.is_regular_file()) accum.push_back(entry.path().filename().string());
    }
  }
  std::sort(accum.begin(), accum.end());
  for (const std::string& name : accum) add("accum/" + name);
  return files;
}

std::string PassJson(const PassRecordInput& input) {
  json::object root;
  root["format"] = "pstrain-pass-3";
  root["pass"] = input.pass;
  root["training_fingerprint"] = input.training_fingerprint;
  root["requested_jobs"] = input.requested_jobs;
  root["shard_count"] = input.shard_count;
  root["reduction"] = input.reduction;
  json::object fp;
  fp["pass"] = input.fingerprints.pass;
  fp["model"] = input.fingerprints.model;
  fp["config"] = input.fingerprints.config;
  fp["manifest"] = input.fingerprints.manifest;
  root["fingerprints"] = std::move(fp);
  root["code_identity"] = input.code_identity;
  AddOutcomes(root, *input.artifacts, *input.reduced);
  if (input.has_gain) root["log_likelihood_gain_per_frame"] = input.gain;
  else root["log_likelihood_gain_per_frame"] = nullptr;
  root["stop_decision"] = input.stop_decision;
  json::object reest;
  reest["densities_without_counts"] = input.report->densities_without_counts;
  reest["mixw_rows_without_counts"] = input.report->mixw_rows_without_counts;
  reest["tmat_rows_without_counts"] = input.report->tmat_rows_without_counts;
  reest["negative_variances"] = input.report->negative_variances;
  json::array unseen;
  for (std::uint32_t senone : input.report->unseen_senones) unseen.push_back(senone);
  reest["unseen_senones_kept_previous"] = std::move(unseen);
  root["reestimation"] = std::move(reest);
  root["files"] = input.files;
  // Multipron passes only (the linear path's pass.json is unchanged).
  if (!input.reduced->fallback_senones.empty()) {
    json::object multipron;
    json::array activated;
    for (std::size_t senone = 0; senone < input.reduced->fallback_senones.size(); ++senone) {
      if (input.reduced->fallback_senones[senone]) activated.push_back(senone);
    }
    multipron["activated_senones"] = std::move(activated);
    multipron["survival_prior_states"] = input.report->survival_prior_states;
    multipron["activated_states_without_counts"] = input.report->activated_states_without_counts;
    root["multipron"] = std::move(multipron);
  }
  return json::serialize(root) + "\n";
}

std::string AccumulateSummaryJson(const std::vector<ShardArtifact>& artifacts, const ReducedPass& reduced,
                                  std::uint32_t requested_jobs, const std::string& reduction) {
  json::object root;
  root["format"] = "pstrain-accumulate-summary-2";
  root["requested_jobs"] = requested_jobs;
  root["shard_count"] = artifacts.size();
  root["reduction"] = reduction;
  root["manifest_fingerprint"] = artifacts.empty() ? "" : artifacts.front().fingerprints.manifest;
  AddOutcomes(root, artifacts, reduced);
  return json::serialize(root) + "\n";
}

}  // namespace pstrain
