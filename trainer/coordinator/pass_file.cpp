// pass.json: its writer, its strict reader and its field list (coordinator/pass_file.h).
#include "coordinator/pass_file.h"

#include <array>
#include <boost/json.hpp>

#include "common/strict_json.h"

namespace pstrain {

namespace json = boost::json;

namespace {

constexpr std::array<std::string_view, 18> kFields = {
    "format",        "pass",        "training_fingerprint",         "requested_jobs", "shard_count",  "reduction",
    "fingerprints",  "code_identity", "totals",                     "utterance_ids",  "processed_ids", "retried_ids",
    "skipped",       "log_likelihood_gain_per_frame", "stop_decision", "reestimation", "files",        "multipron"};

template <typename T>
json::array ArrayOf(const std::vector<T>& values) {
  json::array out;
  out.reserve(values.size());
  for (const T& v : values) out.emplace_back(v);
  return out;
}

// --- reading: every accessor names the field it failed on (common/strict_json.h) -----------------

using strict_json::ArrayAt;
using strict_json::At;
using strict_json::ExpectKeys;
using strict_json::Fail;
using strict_json::NumberAt;
using strict_json::NumberOf;
using strict_json::ObjectAt;
using strict_json::ObjectOf;
using strict_json::StringAt;
using strict_json::StringsAt;
using strict_json::Uint32At;
using strict_json::UnsignedAt;
using strict_json::UnsignedsAt;

}  // namespace

std::span<const std::string_view> PassFileFields() { return kFields; }

void AppendOutcomeFields(const PassOutcomes& outcomes, json::object& root) {
  const PassTotals& t = outcomes.totals;
  json::object totals;
  totals["utterances"] = t.utterances;
  totals["processed"] = t.processed;
  totals["retried"] = t.retried;
  totals["skipped"] = t.skipped;
  totals["total_frames"] = t.total_frames;
  totals["total_log_likelihood"] = t.total_log_likelihood;
  totals["total_log_likelihood_exact"] = t.total_log_likelihood_exact;
  totals["log_likelihood_per_frame"] = t.log_likelihood_per_frame;
  root["totals"] = std::move(totals);
  root["utterance_ids"] = ArrayOf(outcomes.utterance_ids);
  root["processed_ids"] = ArrayOf(outcomes.processed_ids);
  root["retried_ids"] = ArrayOf(outcomes.retried_ids);
  json::array skipped;
  for (const SkippedUtterance& s : outcomes.skipped) {
    json::object item;
    item["id"] = s.id;
    item["reason"] = s.reason;
    skipped.push_back(std::move(item));
  }
  root["skipped"] = std::move(skipped);
}

std::string SerializePassFile(const PassFile& file) {
  json::object root;  // boost::json::object keeps insertion order: the key order is fixed here
  root["format"] = kPassFileFormat;
  root["pass"] = file.pass;
  root["training_fingerprint"] = file.training_fingerprint;
  root["requested_jobs"] = file.requested_jobs;
  root["shard_count"] = file.shard_count;
  root["reduction"] = file.reduction;
  root["fingerprints"] = PassFingerprintsJson(file.fingerprints);
  root["code_identity"] = file.code_identity;
  AppendOutcomeFields(file.outcomes, root);
  if (file.log_likelihood_gain_per_frame) root["log_likelihood_gain_per_frame"] = *file.log_likelihood_gain_per_frame;
  else root["log_likelihood_gain_per_frame"] = nullptr;
  root["stop_decision"] = file.stop_decision;
  const PassReestimation& r = file.reestimation;
  json::object reest;
  reest["densities_without_counts"] = r.densities_without_counts;
  reest["mixw_rows_without_counts"] = r.mixw_rows_without_counts;
  reest["tmat_rows_without_counts"] = r.tmat_rows_without_counts;
  reest["negative_variances"] = r.negative_variances;
  reest["unseen_senones_kept_previous"] = ArrayOf(r.unseen_senones_kept_previous);
  root["reestimation"] = std::move(reest);
  json::array files;
  for (const PassFileDigest& d : file.files) {
    json::object entry;
    entry["file"] = d.file;
    entry["sha256"] = d.sha256;
    files.push_back(std::move(entry));
  }
  root["files"] = std::move(files);
  if (file.multipron) {
    json::object multipron;
    multipron["activated_senones"] = ArrayOf(file.multipron->activated_senones);
    multipron["survival_prior_states"] = file.multipron->survival_prior_states;
    multipron["activated_states_without_counts"] = file.multipron->activated_states_without_counts;
    root["multipron"] = std::move(multipron);
  }
  return json::serialize(root) + "\n";
}

PassFile ParsePassFile(std::string_view text) {
  const json::value parsed = strict_json::ParseObject(text);
  const json::object& root = parsed.get_object();
  ExpectKeys(root, kFields, "pass.json");
  const std::string format = StringAt(root, "format", "format");
  if (format != kPassFileFormat) Fail("format", "is \"" + format + "\", expected \"" + kPassFileFormat + "\" (another version's pass)");

  PassFile file;
  file.pass = Uint32At(root, "pass", "pass");
  if (file.pass == 0) Fail("pass", "is 0 (passes count from 1)");
  file.training_fingerprint = StringAt(root, "training_fingerprint", "training_fingerprint");
  file.requested_jobs = Uint32At(root, "requested_jobs", "requested_jobs");
  file.shard_count = Uint32At(root, "shard_count", "shard_count");
  file.reduction = StringAt(root, "reduction", "reduction");
  file.fingerprints = ParsePassFingerprints(At(root, "fingerprints", "fingerprints"), "fingerprints");
  file.code_identity = StringAt(root, "code_identity", "code_identity");

  const json::object& totals = ObjectAt(root, "totals", "totals");
  static constexpr std::string_view kTotalsKeys[] = {"utterances",           "processed",
                                                     "retried",              "skipped",
                                                     "total_frames",         "total_log_likelihood",
                                                     "total_log_likelihood_exact", "log_likelihood_per_frame"};
  ExpectKeys(totals, kTotalsKeys, "totals");
  PassTotals& t = file.outcomes.totals;
  t.utterances = UnsignedAt(totals, "utterances", "totals.utterances");
  t.processed = UnsignedAt(totals, "processed", "totals.processed");
  t.retried = UnsignedAt(totals, "retried", "totals.retried");
  t.skipped = UnsignedAt(totals, "skipped", "totals.skipped");
  t.total_frames = UnsignedAt(totals, "total_frames", "totals.total_frames");
  t.total_log_likelihood = NumberAt(totals, "total_log_likelihood", "totals.total_log_likelihood");
  t.total_log_likelihood_exact = StringAt(totals, "total_log_likelihood_exact", "totals.total_log_likelihood_exact");
  t.log_likelihood_per_frame = NumberAt(totals, "log_likelihood_per_frame", "totals.log_likelihood_per_frame");
  file.outcomes.utterance_ids = StringsAt(root, "utterance_ids", "utterance_ids");
  file.outcomes.processed_ids = StringsAt(root, "processed_ids", "processed_ids");
  file.outcomes.retried_ids = StringsAt(root, "retried_ids", "retried_ids");
  for (const json::value& item : ArrayAt(root, "skipped", "skipped")) {
    if (!item.is_object()) Fail("skipped", "has an entry that is not an object");
    static constexpr std::string_view kSkippedKeys[] = {"id", "reason"};
    ExpectKeys(item.get_object(), kSkippedKeys, "skipped");
    file.outcomes.skipped.push_back({StringAt(item.get_object(), "id", "skipped.id"), StringAt(item.get_object(), "reason", "skipped.reason")});
  }

  const json::value& gain = At(root, "log_likelihood_gain_per_frame", "log_likelihood_gain_per_frame");
  if (!gain.is_null()) file.log_likelihood_gain_per_frame = NumberOf(gain, "log_likelihood_gain_per_frame");
  file.stop_decision = StringAt(root, "stop_decision", "stop_decision");
  if (file.stop_decision != "continue" && file.stop_decision != "converged" && file.stop_decision != "max-passes") {
    Fail("stop_decision", "is \"" + file.stop_decision + "\", not continue, converged or max-passes");
  }

  const json::object& reest = ObjectAt(root, "reestimation", "reestimation");
  static constexpr std::string_view kReestKeys[] = {"densities_without_counts", "mixw_rows_without_counts", "tmat_rows_without_counts",
                                                    "negative_variances", "unseen_senones_kept_previous"};
  ExpectKeys(reest, kReestKeys, "reestimation");
  PassReestimation& r = file.reestimation;
  r.densities_without_counts = UnsignedAt(reest, "densities_without_counts", "reestimation.densities_without_counts");
  r.mixw_rows_without_counts = UnsignedAt(reest, "mixw_rows_without_counts", "reestimation.mixw_rows_without_counts");
  r.tmat_rows_without_counts = UnsignedAt(reest, "tmat_rows_without_counts", "reestimation.tmat_rows_without_counts");
  r.negative_variances = UnsignedAt(reest, "negative_variances", "reestimation.negative_variances");
  r.unseen_senones_kept_previous = UnsignedsAt(reest, "unseen_senones_kept_previous", "reestimation.unseen_senones_kept_previous");

  for (const json::value& item : ArrayAt(root, "files", "files")) {
    if (!item.is_object()) Fail("files", "has an entry that is not an object");
    static constexpr std::string_view kDigestKeys[] = {"file", "sha256"};
    ExpectKeys(item.get_object(), kDigestKeys, "files");
    file.files.push_back({StringAt(item.get_object(), "file", "files.file"), StringAt(item.get_object(), "sha256", "files.sha256")});
  }

  if (const json::value* multipron = root.if_contains("multipron")) {
    const json::object& m = ObjectOf(*multipron, "multipron");
    static constexpr std::string_view kMultipronKeys[] = {"activated_senones", "survival_prior_states", "activated_states_without_counts"};
    ExpectKeys(m, kMultipronKeys, "multipron");
    PassMultipron value;
    value.activated_senones = UnsignedsAt(m, "activated_senones", "multipron.activated_senones");
    value.survival_prior_states = UnsignedAt(m, "survival_prior_states", "multipron.survival_prior_states");
    value.activated_states_without_counts = UnsignedAt(m, "activated_states_without_counts", "multipron.activated_states_without_counts");
    file.multipron = std::move(value);
  }
  return file;
}

PassFile ReadPassFile(const std::filesystem::path& path) { return ReadStrictJsonFile(path, kMaxPassFileBytes, ParsePassFile); }

}  // namespace pstrain
