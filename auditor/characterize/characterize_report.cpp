// `audit characterize`: rendering the measurements as text, JSON and HTML.
#include "characterize/characterize_report.h"

#include "report/html_page.h"
#include "report/report_text.h"
#include "report/svg_chart.h"
#include "report/xml_text.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

namespace pstrain::audit {

namespace json = boost::json;

const char* const kConvergenceCaveat =
    "A handful of passes does not establish convergence to a common value: these numbers show how far the two shard counts' "
    "parameters are apart after each of the passes run here, not whether the difference stays bounded, shrinks or grows in "
    "later passes.";

namespace {

std::string Format(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}
std::string Sci(double value) { return Format("%.3e", value); }
std::string Fixed(double value) { return Format("%.9f", value); }
std::string Short(double value) { return Format("%g", value); }

std::string ShardsText(const ArmRun& arm) {
  return "--jobs " + std::to_string(arm.requested_jobs) + " -> " + std::to_string(arm.shard_count) + (arm.shard_count == 1 ? " shard" : " shards");
}

std::string MonotonicText(const ArmRun& arm) {
  if (arm.Monotonic()) return "rose monotonically";
  return "fell at pass " + std::to_string(arm.FirstFall());
}

std::string Pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

void ModeText(std::ostringstream& out, const ModeComparison& m, double budget, bool control) {
  out << m.reduction << " reduction" << (control ? " (the control)" : "") << ": arm A " << ShardsText(m.a) << ", arm B " << ShardsText(m.b)
      << "\n";
  out << "  pass  means: max rel diff  > budget / elements   numerators: max rel diff  > budget / elements   LL/frame A        LL/frame B        "
         "gap (B - A)\n";
  for (const PassComparison& p : m.passes) {
    out << "  " << Pad(std::to_string(p.pass), 4) << "  " << Pad(Sci(p.means.max_relative), 19) << "  "
        << Pad(std::to_string(p.means.over_budget) + " / " + std::to_string(p.means.elements), 20) << "  "
        << Pad(Sci(p.mean_numerators.max_relative), 24) << "  "
        << Pad(std::to_string(p.mean_numerators.over_budget) + " / " + std::to_string(p.mean_numerators.elements), 20) << "  "
        << Pad(Fixed(m.a.log_likelihood_per_frame[p.pass - 1]), 16) << "  " << Pad(Fixed(m.b.log_likelihood_per_frame[p.pass - 1]), 16)
        << "  " << Sci(p.log_likelihood_gap) << "\n";
  }
  out << "  differing elements per pass (means / numerators):";
  for (const PassComparison& p : m.passes) out << " " << p.means.differing << "/" << p.mean_numerators.differing;
  out << "\n  per-frame log-likelihood: arm A " << MonotonicText(m.a) << ", arm B " << MonotonicText(m.b) << "\n";
  out << "  largest over all passes: means " << Sci(m.MaxMeansRelative()) << ", numerators " << Sci(m.MaxNumeratorRelative())
      << " (budget " << Short(budget) << ")\n";
}

json::object DiffJson(const DiffStats& s) {
  json::object o;
  o["elements"] = s.elements;
  o["differing"] = s.differing;
  o["over_budget"] = s.over_budget;
  o["max_relative_difference"] = std::isfinite(s.max_relative) ? json::value(s.max_relative) : json::value(nullptr);
  o["max_index"] = s.max_index;
  return o;
}

json::object ArmJson(const ArmRun& arm) {
  json::object o;
  o["requested_jobs"] = arm.requested_jobs;
  o["shard_count"] = arm.shard_count;
  o["run_dir"] = arm.run_dir;
  json::array ll;
  for (double v : arm.log_likelihood_per_frame) ll.emplace_back(v);
  o["log_likelihood_per_frame"] = std::move(ll);
  o["log_likelihood_monotonic"] = arm.Monotonic();
  o["first_fall"] = arm.Monotonic() ? json::value(nullptr) : json::value(arm.FirstFall());
  return o;
}

json::object ModeJson(const ModeComparison& m) {
  json::object o;
  o["reduction"] = m.reduction;
  o["a"] = ArmJson(m.a);
  o["b"] = ArmJson(m.b);
  json::array passes;
  for (const PassComparison& p : m.passes) {
    json::object x;
    x["pass"] = p.pass;
    x["means"] = DiffJson(p.means);
    x["means_identical_bytes"] = p.means_identical_bytes;
    x["mean_numerators"] = DiffJson(p.mean_numerators);
    x["log_likelihood_per_frame_a"] = m.a.log_likelihood_per_frame[p.pass - 1];
    x["log_likelihood_per_frame_b"] = m.b.log_likelihood_per_frame[p.pass - 1];
    x["log_likelihood_gap"] = p.log_likelihood_gap;
    x["same_exact_log_likelihood"] = p.same_exact_log_likelihood;
    passes.push_back(std::move(x));
  }
  o["passes"] = std::move(passes);
  o["max_relative_difference_means"] = m.MaxMeansRelative();
  o["max_relative_difference_mean_numerators"] = m.MaxNumeratorRelative();
  o["zero_difference"] = m.AllZero();
  return o;
}


// --- SVG charts -------------------------------------------------------------------------------------

struct Series {
  std::string name;
  std::string color;
  bool dashed = false;
  std::vector<double> values;  // one per pass
};

// A line chart over passes 1..N (report/svg_chart.h), in a figure.
std::string Chart(const std::string& title, const std::string& y_label, const std::vector<Series>& series, bool log_scale) {
  LineChart chart;
  chart.title = title;
  chart.y_label = y_label;
  chart.log_scale = log_scale;
  for (const Series& s : series) chart.series.push_back({s.name, s.color, s.dashed, ChartValues(s.values)});
  return "<figure>\n" + RenderLineChart(chart) + "</figure>\n";
}

void ModeHtml(std::ostringstream& out, const ModeComparison& m, double budget, bool control) {
  out << "<h2>" << m.reduction << " reduction" << (control ? " (the control)" : "") << "</h2>\n";
  out << "<p>Arm A: <code>" << XmlEscape(ShardsText(m.a)) << "</code>, run <code>" << XmlEscape(m.a.run_dir) << "</code><br/>Arm B: <code>"
      << XmlEscape(ShardsText(m.b)) << "</code>, run <code>" << XmlEscape(m.b.run_dir) << "</code><br/>Per-frame log-likelihood: arm A "
      << MonotonicText(m.a) << ", arm B " << MonotonicText(m.b) << ".</p>\n";
  out << "<table>\n<tr><th>pass</th><th>means: max rel. diff.</th><th>means &gt; budget " << XmlEscape(Short(budget))
      << "</th><th>numerators: max rel. diff.</th><th>numerators &gt; budget</th><th>LL/frame A</th><th>LL/frame B</th><th>gap (B &#8722; A)</th></tr>\n";
  for (const PassComparison& p : m.passes) {
    out << "<tr><td>" << p.pass << "</td><td>" << Sci(p.means.max_relative) << "</td><td>" << p.means.over_budget << " / " << p.means.elements
        << "</td><td>" << Sci(p.mean_numerators.max_relative) << "</td><td>" << p.mean_numerators.over_budget << " / "
        << p.mean_numerators.elements << "</td><td>" << Fixed(m.a.log_likelihood_per_frame[p.pass - 1]) << "</td><td>"
        << Fixed(m.b.log_likelihood_per_frame[p.pass - 1]) << "</td><td>" << Sci(p.log_likelihood_gap) << "</td></tr>\n";
  }
  out << "</table>\n";
}

std::vector<double> PassValues(const ModeComparison& m, double (*get)(const PassComparison&)) {
  std::vector<double> v;
  for (const PassComparison& p : m.passes) v.push_back(get(p));
  return v;
}

std::string ControlText(const CharacterizeReport& r) {
  return r.exact.AllZero() ? "the exact control shows zero difference in every pass (means, raw mean numerators, exact log-likelihood)"
                           : "THE EXACT CONTROL SHOWS A DIFFERENCE: exact reduction is supposed to give identical bytes for every shard count";
}

}  // namespace

std::string RenderCharacterizeText(const CharacterizeReport& r) {
  std::ostringstream out;
  out << "audit characterize: " << r.manifest << " from " << r.model << "\n";
  out << "shard counts: --jobs " << r.jobs_a << " (arm A) and --jobs " << r.jobs_b << " (arm B); " << r.passes
      << (r.passes == 1 ? " pass" : " passes") << "; budget " << Short(r.budget) << " (relative)\n";
  out << "relative difference of a pair: |a - b| / max(|a|, |b|) (0 when equal). Pass N's log-likelihood is that of the model the pass "
         "started from.\n\n";
  ModeText(out, r.float32, r.budget, false);
  out << "\n";
  ModeText(out, r.exact, r.budget, true);
  out << "\ncontrol: " << ControlText(r) << "\n";
  out << "float32: largest relative difference of the means " << Sci(r.float32.MaxMeansRelative()) << " ("
      << (r.float32.AllZero() ? "no difference" : "non-zero") << ")\n";
  out << "\n" << kConvergenceCaveat << "\n";
  return out.str();
}

std::string RenderCharacterizeJson(const CharacterizeReport& r) {
  json::object o;
  o["tool"] = "audit characterize";
  o["format_version"] = 1;
  o["manifest"] = r.manifest;
  o["model"] = r.model;
  json::array jobs;
  jobs.emplace_back(r.jobs_a);
  jobs.emplace_back(r.jobs_b);
  o["jobs"] = std::move(jobs);
  o["passes"] = r.passes;
  o["budget"] = r.budget;
  o["relative_difference"] = "|a - b| / max(|a|, |b|), 0 when a == b";
  o["float32"] = ModeJson(r.float32);
  o["exact"] = ModeJson(r.exact);
  o["control_zero_difference"] = r.exact.AllZero();
  o["caveat"] = kConvergenceCaveat;
  return json::serialize(o) + "\n";
}

std::string RenderCharacterizeHtml(const CharacterizeReport& r) {
  std::ostringstream out;
  out << HtmlPageStart("audit characterize", "audit characterize",
                       "th,td{text-align:right;vertical-align:baseline}\n"
                       ".caveat{border-left:4px solid #c0392b;padding:.5em 1em;background:#fdf2f0}\n"
                       ".control{font-weight:bold}\n");
  out << "<p>Manifest <code>" << XmlEscape(r.manifest) << "</code>, initial model <code>" << XmlEscape(r.model) << "</code><br/>Shard counts: "
      << "<code>--jobs " << r.jobs_a << "</code> (arm A) and <code>--jobs " << r.jobs_b << "</code> (arm B); " << r.passes
      << (r.passes == 1 ? " pass" : " passes") << "; budget " << XmlEscape(Short(r.budget)) << " (relative).<br/>Relative difference of a pair: "
      << "|a &#8722; b| / max(|a|, |b|), 0 when equal. Pass N&#8217;s log-likelihood is that of the model the pass started from.</p>\n";
  out << "<p class=\"caveat\">" << XmlEscape(kConvergenceCaveat) << "</p>\n";
  out << "<p class=\"control\">Control: " << XmlEscape(ControlText(r)) << ".</p>\n";

  const std::string fa = "float32, arm A (" + std::to_string(r.float32.a.shard_count) + ")";
  const std::string fb = "float32, arm B (" + std::to_string(r.float32.b.shard_count) + ")";
  const std::string ea = "exact, arm A (" + std::to_string(r.exact.a.shard_count) + ")";
  const std::string eb = "exact, arm B (" + std::to_string(r.exact.b.shard_count) + ")";
  out << Chart("Max relative difference of the means", "max rel. diff.",
               {{"float32", "#c0392b", false, PassValues(r.float32, [](const PassComparison& p) { return p.means.max_relative; })},
                {"exact (control)", "#2471a3", true, PassValues(r.exact, [](const PassComparison& p) { return p.means.max_relative; })}},
               true);
  out << Chart("Max relative difference of the raw mean numerators", "max rel. diff.",
               {{"float32", "#c0392b", false, PassValues(r.float32, [](const PassComparison& p) { return p.mean_numerators.max_relative; })},
                {"exact (control)", "#2471a3", true,
                 PassValues(r.exact, [](const PassComparison& p) { return p.mean_numerators.max_relative; })}},
               true);
  out << Chart("Per-frame log-likelihood", "log-likelihood / frame",
               {{fa, "#c0392b", false, r.float32.a.log_likelihood_per_frame},
                {fb, "#e67e22", true, r.float32.b.log_likelihood_per_frame},
                {ea, "#2471a3", false, r.exact.a.log_likelihood_per_frame},
                {eb, "#5dade2", true, r.exact.b.log_likelihood_per_frame}},
               false);
  out << "<p>The four curves coincide where the runs agree to the chart&#8217;s resolution; the next chart shows the gap.</p>\n";
  std::vector<double> gap_f, gap_e;
  for (const PassComparison& p : r.float32.passes) gap_f.push_back(std::fabs(p.log_likelihood_gap));
  for (const PassComparison& p : r.exact.passes) gap_e.push_back(std::fabs(p.log_likelihood_gap));
  out << Chart("Per-frame log-likelihood gap |B \u2212 A|", "|gap|", {{"float32", "#c0392b", false, gap_f}, {"exact (control)", "#2471a3", true, gap_e}},
               true);
  ModeHtml(out, r.float32, r.budget, false);
  ModeHtml(out, r.exact, r.budget, true);
  out << HtmlPageEnd();
  return out.str();
}

}  // namespace pstrain::audit
