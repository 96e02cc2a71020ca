#include "training/pass_summary.h"

#include <boost/json.hpp>

namespace pstrain {

namespace json = boost::json;

namespace {

json::object TotalsObject(const CorpusPassResult& result) {
  json::object totals;  // boost::json::object keeps insertion order: the key order is fixed here
  totals["utterances"] = result.outcomes.size();
  totals["processed"] = result.n_processed;
  totals["retried"] = result.n_retried;
  totals["skipped"] = result.n_skipped;
  totals["total_frames"] = result.total_frames;
  totals["total_log_likelihood"] = result.total_log_likelihood.value();
  totals["log_likelihood_per_frame"] =
      result.total_frames ? result.total_log_likelihood.value() / static_cast<double>(result.total_frames) : 0.0;
  return totals;
}

json::array OutcomesArray(const CorpusPassResult& result) {
  json::array outcomes;
  for (const UtteranceOutcome& outcome : result.outcomes) {
    json::object item;
    item["id"] = outcome.utt_id;
    item["outcome"] = OutcomeName(outcome.kind);
    item["attempts"] = outcome.attempts;
    item["frames"] = outcome.n_frames;
    if (outcome.kind != OutcomeKind::kSkipped) item["log_likelihood"] = outcome.log_likelihood;
    if (!outcome.reason.empty()) {
      item["reason"] = outcome.reason;
      item["detail"] = outcome.detail;
    }
    outcomes.push_back(std::move(item));
  }
  return outcomes;
}

}  // namespace

std::string PassSummaryJson(const PassSummaryInput& input) {
  json::object root;
  root["format"] = "pstrain-pass-summary-1";
  root["pass"] = input.pass;
  root["manifest_fingerprint"] = input.manifest_fingerprint;
  root["totals"] = TotalsObject(*input.result);
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
  root["utterances"] = OutcomesArray(*input.result);
  return json::serialize(root) + "\n";
}

std::string AccumulateSummaryJson(const CorpusPassResult& result, const std::string& manifest_fingerprint) {
  json::object root;
  root["format"] = "pstrain-accumulate-summary-1";
  root["manifest_fingerprint"] = manifest_fingerprint;
  root["totals"] = TotalsObject(result);
  root["utterances"] = OutcomesArray(result);
  return json::serialize(root) + "\n";
}

}  // namespace pstrain
