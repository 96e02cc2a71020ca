// `audit mutate`: rendering the mutation results as text and JSON.
#include "mutate/mutate_report.h"

#include <boost/json.hpp>
#include <cstdio>

namespace pstrain::audit {

namespace json = boost::json;

namespace {

std::string Join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : separator) + s;
  return out;
}

std::string Score(const MutateReport& r) {
  const std::size_t killed = r.Count(MutationOutcome::kKilled), applicable = r.Applicable();
  if (applicable == 0) return "no applicable mutation";
  char ratio[32];
  std::snprintf(ratio, sizeof(ratio), "%.3f", static_cast<double>(killed) / static_cast<double>(applicable));
  return std::to_string(killed) + "/" + std::to_string(applicable) + " = " + ratio;
}

std::string Result(const MutateReport& r) {
  if (r.Count(MutationOutcome::kSurvived) > 0) return "SURVIVORS";
  if (r.Applicable() == 0) return "NOTHING TESTED";
  return "ALL KILLED";
}

}  // namespace

std::string RenderMutateText(const MutateReport& r) {
  std::string out = "audit mutate: " + r.run_dir + " pass " + std::to_string(r.pass) + " (" + std::to_string(r.shard_count) +
                    (r.shard_count == 1 ? " shard, " : " shards, ") + r.reduction + " reduction); target shard " +
                    std::to_string(r.target_shard) + "\n";
  if (!r.foreign_run.empty()) out += "foreign run: " + r.foreign_run + "\n";
  out += "validator: the unmodified copy is accepted\n\n";
  for (const MutationResult& m : r.results) {
    switch (m.outcome) {
      case MutationOutcome::kKilled:
        out += "KILLED    " + m.name + ": " + m.applied + "\n";
        out += "          -> " + m.verdict.message + "\n";
        if (!m.ExpectedCheck()) out += "          !! killed by check \"" + m.verdict.check + "\", expected " + Join(m.expected_checks, " or ") + "\n";
        break;
      case MutationOutcome::kSurvived:
        out += "SURVIVED  " + m.name + ": " + m.applied + "\n";
        out += "          -> accepted by the validator (expected check " + (m.expected_checks.empty() ? std::string("any") : Join(m.expected_checks, " or ")) + ")\n";
        break;
      case MutationOutcome::kNotApplicable:
        out += "N/A       " + m.name + ": " + m.not_applicable_reason + "\n";
        break;
    }
  }
  const std::vector<std::string> survivors = r.Survivors();
  out += "\nmutations: " + std::to_string(r.results.size()) + " (" + std::to_string(r.Applicable()) + " applied, " +
         std::to_string(r.Count(MutationOutcome::kNotApplicable)) + " not applicable)\n";
  out += "killed: " + std::to_string(r.Count(MutationOutcome::kKilled)) + " (" + std::to_string(r.KilledByUnexpectedCheck()) +
         " by a check other than the expected one); survived: " + std::to_string(survivors.size()) + "\n";
  out += "mutation score: " + Score(r) + "\n";
  out += "survivors: " + (survivors.empty() ? std::string("none") : Join(survivors, ", ")) + "\n";
  out += "result: " + Result(r) + "\n";
  return out;
}

std::string RenderMutateJson(const MutateReport& r) {
  json::object o;
  o["tool"] = "audit mutate";
  o["format_version"] = 1;
  o["run_dir"] = r.run_dir;
  o["foreign_run"] = r.foreign_run.empty() ? json::value(nullptr) : json::value(r.foreign_run);
  o["pass"] = r.pass;
  o["shard_count"] = r.shard_count;
  o["reduction"] = r.reduction;
  o["target_shard"] = r.target_shard;
  o["baseline"] = "accepted";
  o["result"] = r.Count(MutationOutcome::kSurvived) > 0 ? "survivors" : r.Applicable() == 0 ? "nothing-tested" : "all-killed";
  json::object counts;
  counts["mutations"] = r.results.size();
  counts["applied"] = r.Applicable();
  counts["killed"] = r.Count(MutationOutcome::kKilled);
  counts["killed_by_unexpected_check"] = r.KilledByUnexpectedCheck();
  counts["survived"] = r.Count(MutationOutcome::kSurvived);
  counts["not_applicable"] = r.Count(MutationOutcome::kNotApplicable);
  o["counts"] = std::move(counts);
  o["score"] = r.Applicable() == 0 ? json::value(nullptr)
                                   : json::value(static_cast<double>(r.Count(MutationOutcome::kKilled)) / static_cast<double>(r.Applicable()));
  json::array survivors;
  for (const std::string& s : r.Survivors()) survivors.emplace_back(s);
  o["survivors"] = std::move(survivors);
  json::array mutations;
  for (const MutationResult& m : r.results) {
    json::object x;
    x["name"] = m.name;
    x["category"] = m.category;
    x["description"] = m.description;
    json::array expected;
    for (const std::string& c : m.expected_checks) expected.emplace_back(c);
    x["expected_checks"] = std::move(expected);
    x["outcome"] = OutcomeName(m.outcome);
    if (m.outcome == MutationOutcome::kNotApplicable) {
      x["reason"] = m.not_applicable_reason;
    } else {
      x["applied"] = m.applied;
      if (m.outcome == MutationOutcome::kKilled) {
        x["check"] = m.verdict.check;
        x["shard"] = m.verdict.shard ? json::value(*m.verdict.shard) : json::value(nullptr);
        x["file"] = m.verdict.file;
        x["reason"] = m.verdict.message;
        x["expected_check"] = m.ExpectedCheck();
      }
    }
    mutations.push_back(std::move(x));
  }
  o["mutations"] = std::move(mutations);
  return json::serialize(o) + "\n";
}

}  // namespace pstrain::audit
