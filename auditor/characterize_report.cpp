#include "characterize_report.h"

#include "report_text.h"

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

// A line chart over passes 1..N. With `log_scale`, y is log10 and zero values are drawn as hollow
// markers on the bottom edge (labelled "0").
std::string Chart(const std::string& title, const std::string& y_label, const std::vector<Series>& series, bool log_scale) {
  const double width = 640, height = 300, left = 90, right = 200, top = 30, bottom = 50;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  std::size_t n = 0;
  double lo = INFINITY, hi = -INFINITY;
  bool has_zero = false;
  for (const Series& s : series) {
    n = std::max(n, s.values.size());
    for (double v : s.values) {
      if (!std::isfinite(v)) continue;
      if (log_scale) {
        if (v <= 0) {
          has_zero = true;
          continue;
        }
        v = std::log10(v);
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (lo > hi) {  // nothing to scale by (all zero)
    lo = log_scale ? -8 : -1;
    hi = log_scale ? -7 : 1;
  }
  if (log_scale) {
    lo = std::floor(lo) - (has_zero ? 1 : 0);
    hi = std::max(std::ceil(hi), lo + 1);
  } else if (hi - lo < 1e-12) {
    lo -= 1;
    hi += 1;
  } else {
    const double pad = (hi - lo) * 0.08;
    lo -= pad;
    hi += pad;
  }
  auto x_of = [&](std::size_t i) { return left + (n <= 1 ? plot_w / 2 : plot_w * static_cast<double>(i) / static_cast<double>(n - 1)); };
  auto y_of = [&](double v) { return top + plot_h * (1 - (v - lo) / (hi - lo)); };
  auto num = [](double v) { return Format("%.2f", v); };

  std::ostringstream svg;
  svg << "<figure>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width
      << " " << height << "\" role=\"img\" aria-label=\"" << HtmlEscape(title) << "\">\n";
  svg << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << plot_w << "\" height=\"" << plot_h
      << "\" fill=\"#fafafa\" stroke=\"#999\"/>\n";
  // y ticks
  const int ticks = log_scale ? static_cast<int>(hi - lo) : 4;
  for (int t = 0; t <= ticks; ++t) {
    const double v = lo + (hi - lo) * t / ticks;
    const double y = y_of(v);
    std::string label = log_scale ? "1e" + Format("%.0f", v) : Format("%.4g", v);
    if (log_scale && has_zero && t == 0) label = "0";
    svg << "<line x1=\"" << left - 4 << "\" y1=\"" << num(y) << "\" x2=\"" << left + plot_w << "\" y2=\"" << num(y)
        << "\" stroke=\"#ddd\"/>\n<text x=\"" << left - 8 << "\" y=\"" << num(y + 4) << "\" text-anchor=\"end\" font-size=\"11\">"
        << HtmlEscape(label) << "</text>\n";
  }
  // x ticks
  for (std::size_t i = 0; i < n; ++i) {
    svg << "<text x=\"" << num(x_of(i)) << "\" y=\"" << top + plot_h + 16 << "\" text-anchor=\"middle\" font-size=\"11\">" << i + 1 << "</text>\n";
  }
  svg << "<text x=\"" << left + plot_w / 2 << "\" y=\"" << height - 10 << "\" text-anchor=\"middle\" font-size=\"12\">pass</text>\n";
  svg << "<text x=\"14\" y=\"" << top + plot_h / 2 << "\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 14 " << top + plot_h / 2
      << ")\">" << HtmlEscape(y_label) << "</text>\n";
  svg << "<text x=\"" << left << "\" y=\"18\" font-size=\"13\" font-weight=\"bold\">" << HtmlEscape(title) << "</text>\n";
  // series
  std::size_t row = 0;
  for (const Series& s : series) {
    std::string points;
    std::ostringstream markers;
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      double v = s.values[i];
      if (!std::isfinite(v)) continue;
      bool zero = false;
      if (log_scale) {
        zero = v <= 0;
        v = zero ? lo : std::log10(v);
      }
      const std::string x = num(x_of(i)), y = num(y_of(v));
      points += (points.empty() ? "" : " ") + x + "," + y;
      markers << "<circle cx=\"" << x << "\" cy=\"" << y << "\" r=\"3.5\" fill=\"" << (zero ? "white" : s.color) << "\" stroke=\"" << s.color
              << "\"/>\n";
    }
    svg << "<polyline points=\"" << points << "\" fill=\"none\" stroke=\"" << s.color << "\" stroke-width=\"1.5\""
        << (s.dashed ? " stroke-dasharray=\"5,3\"" : "") << "/>\n"
        << markers.str();
    const double ly = top + 12 + 18 * static_cast<double>(row++);
    svg << "<line x1=\"" << left + plot_w + 12 << "\" y1=\"" << ly << "\" x2=\"" << left + plot_w + 36 << "\" y2=\"" << ly << "\" stroke=\"" << s.color
        << "\" stroke-width=\"1.5\"" << (s.dashed ? " stroke-dasharray=\"5,3\"" : "") << "/>\n<text x=\"" << left + plot_w + 42 << "\" y=\""
        << ly + 4 << "\" font-size=\"11\">" << HtmlEscape(s.name) << "</text>\n";
  }
  svg << "</svg>\n";
  if (log_scale && has_zero) svg << "<figcaption>Hollow markers on the bottom edge are exactly zero (not drawable on a log scale).</figcaption>\n";
  svg << "</figure>\n";
  return svg.str();
}

void ModeHtml(std::ostringstream& out, const ModeComparison& m, double budget, bool control) {
  out << "<h2>" << m.reduction << " reduction" << (control ? " (the control)" : "") << "</h2>\n";
  out << "<p>Arm A: <code>" << HtmlEscape(ShardsText(m.a)) << "</code>, run <code>" << HtmlEscape(m.a.run_dir) << "</code><br/>Arm B: <code>"
      << HtmlEscape(ShardsText(m.b)) << "</code>, run <code>" << HtmlEscape(m.b.run_dir) << "</code><br/>Per-frame log-likelihood: arm A "
      << MonotonicText(m.a) << ", arm B " << MonotonicText(m.b) << ".</p>\n";
  out << "<table>\n<tr><th>pass</th><th>means: max rel. diff.</th><th>means &gt; budget " << HtmlEscape(Short(budget))
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
  out << "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
         "<title>audit characterize</title>\n<style>\n"
         "body{font-family:sans-serif;margin:1.5em;color:#222}\n"
         "table{border-collapse:collapse;margin:1em 0}\n"
         "th,td{border:1px solid #bbb;padding:.3em .6em;text-align:right}\n"
         "th{background:#eee}\n"
         "code{font-size:.85em;word-break:break-all}\n"
         "figure{margin:1em 0}\n"
         ".caveat{border-left:4px solid #c0392b;padding:.5em 1em;background:#fdf2f0}\n"
         ".control{font-weight:bold}\n"
         "</style>\n</head>\n<body>\n<h1>audit characterize</h1>\n";
  out << "<p>Manifest <code>" << HtmlEscape(r.manifest) << "</code>, initial model <code>" << HtmlEscape(r.model) << "</code><br/>Shard counts: "
      << "<code>--jobs " << r.jobs_a << "</code> (arm A) and <code>--jobs " << r.jobs_b << "</code> (arm B); " << r.passes
      << (r.passes == 1 ? " pass" : " passes") << "; budget " << HtmlEscape(Short(r.budget)) << " (relative).<br/>Relative difference of a pair: "
      << "|a &#8722; b| / max(|a|, |b|), 0 when equal. Pass N&#8217;s log-likelihood is that of the model the pass started from.</p>\n";
  out << "<p class=\"caveat\">" << HtmlEscape(kConvergenceCaveat) << "</p>\n";
  out << "<p class=\"control\">Control: " << HtmlEscape(ControlText(r)) << ".</p>\n";

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
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace pstrain::audit
