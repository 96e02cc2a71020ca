// `audit compare`: rendering a CompareReport as text, JSON and HTML.
#include "compare/compare_report.h"

#include "report/html_page.h"
#include "report/report_text.h"
#include "report/svg_chart.h"
#include "report/xml_text.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <boost/json.hpp>

namespace pstrain::audit {

namespace json = boost::json;

namespace {

// ---------------------------------------------------------------- shared

std::string Summary(const CompareReport& r) {
  return Plural(r.files.size(), "entry", "entries") + ": " + std::to_string(r.CountStatus("identical")) +
         " identical, " + std::to_string(r.CountStatus("different")) + " different, " +
         std::to_string(r.CountStatus("only in A")) + " only in A, " + std::to_string(r.CountStatus("only in B")) +
         " only in B";
}

std::string SideShort(const std::optional<FileSide>& side) {
  if (!side) return "-";
  if (side->kind == "file") return std::to_string(side->size) + " bytes, sha256 " + side->sha256;
  if (side->kind == "symlink") return "symlink -> " + side->link_target;
  return side->kind;
}

// The text diff lines shown, at most kMaxDiffLinesShown; `hidden` gets the number left out.
std::vector<std::string> DiffText(const LineDiff& diff, std::size_t& hidden) {
  std::vector<std::string> out;
  hidden = 0;
  for (const DiffHunk& h : diff.hunks) {
    for (const std::string& line : HunkLines(h)) {
      if (out.size() < kMaxDiffLinesShown) {
        out.push_back(line);
      } else {
        ++hidden;
      }
    }
  }
  return out;
}

std::string Opt(const std::optional<std::string>& v) { return v ? *v : "(absent)"; }

std::string LikelihoodText(const std::optional<double>& v) { return v ? FormatNumber(*v, 10) : "-"; }

// ---------------------------------------------------------------- JSON

json::value Number(double v) {
  if (std::isfinite(v)) return v;
  return json::value(std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
}

json::value SideJson(const std::optional<FileSide>& side) {
  if (!side) return nullptr;
  json::object o;
  o["kind"] = side->kind;
  if (side->kind == "file") {
    o["size"] = side->size;
    o["sha256"] = side->sha256;
  }
  if (side->kind == "symlink") o["link_target"] = side->link_target;
  return o;
}

json::value ElementJson(const CompareReport& r, const ParamDiff& p, const std::optional<ElementDiff>& e) {
  if (!e) return nullptr;
  json::object o;
  o["array"] = e->array;
  json::object index;
  for (const auto& [name, value] : e->index) index[name] = value;
  o["index"] = std::move(index);
  o["state_label"] = r.StateLabel(p, e->index.at(0).second);
  o["b_state"] = e->b_state ? json::value(*e->b_state) : json::value(nullptr);
  o["where"] = r.Where(p, *e);
  o["a"] = Number(e->a);
  o["b"] = Number(e->b);
  o["abs_diff"] = Number(e->abs_diff);
  o["rel_diff"] = Number(e->rel_diff);
  return o;
}

json::array AxesJson(const std::vector<Axis>& axes) {
  json::array out;
  for (const Axis& axis : axes) {
    json::object o;
    o["name"] = axis.name;
    o["size"] = axis.size;
    out.push_back(std::move(o));
  }
  return out;
}

json::object StateJson(const CompareReport& r, const ParamDiff& p, const StateDiff& s) {
  json::object o;
  o["state"] = s.state;
  o["label"] = r.StateLabel(p, s.state);
  o["b_state"] = s.b_state ? json::value(*s.b_state) : json::value(nullptr);
  o["differing"] = s.differing;
  o["outside_tolerance"] = s.outside;
  o["max_abs_diff"] = Number(s.max_abs);
  o["max_rel_diff"] = Number(s.max_rel);
  return o;
}

json::array FindingsJson(const std::vector<Finding>& findings) {
  json::array out;
  for (const Finding& f : findings) {
    json::object o;
    o["code"] = f.code;
    o["text"] = f.text;
    out.push_back(std::move(o));
  }
  return out;
}

json::object AlignmentJson(const GroupAlignment& g, const std::string& verdict) {
  json::object o;
  o["verdict"] = verdict;
  o["same"] = g.same;
  o["count_a"] = g.ids_a;
  o["count_b"] = g.ids_b;
  o["renumbered"] = g.same && !g.b_of_a.empty() ? json::value(g.renumbered) : json::value(nullptr);
  o["members"] = g.members;
  o["in_different_group"] = g.in_different_group;
  o["same_groups"] = g.same_groups;
  o["unused_a"] = g.unused_a;
  o["unused_b"] = g.unused_b;
  return o;
}

json::value OptJson(const std::optional<std::string>& v) { return v ? json::value(*v) : json::value(nullptr); }
json::value OptJson(const std::optional<double>& v) { return v ? Number(*v) : json::value(nullptr); }

// ---------------------------------------------------------------- HTML

// The per-state heat map of a parameter file: one cell per state, its largest |A-B|.
std::string HeatMapSvg(const CompareReport& r, const ParamDiff& p) {
  HeatMap map;
  map.aria_label = "per-" + p.state_axis + " heat map of " + p.path;
  map.value_name = "max |A-B|";
  for (const StateDiff& s : p.states) {
    map.cells.push_back({s.state, s.max_abs, p.state_axis + " " + std::to_string(s.state) + r.StateSuffix(p, s.state, s.b_state),
                         ", " + std::to_string(s.differing) + " differing, " + std::to_string(s.outside) + " outside tolerance"});
  }
  return RenderHeatMap(map);
}

std::string LikelihoodSvg(const std::vector<PassLikelihood>& passes) {
  LineChart chart;
  chart.aria_label = "log-likelihood per frame by pass";
  chart.y_label = "log-likelihood per frame";
  ChartSeries a{"A", "#1f5fbf", false, {}}, b{"B", "#d9730d", true, {}};
  for (const PassLikelihood& p : passes) {
    if (p.pass == 0) continue;
    a.values.resize(std::max<std::size_t>(a.values.size(), p.pass));
    b.values.resize(std::max<std::size_t>(b.values.size(), p.pass));
    a.values[p.pass - 1] = p.a;
    b.values[p.pass - 1] = p.b;
  }
  chart.series = {std::move(a), std::move(b)};
  return RenderLineChart(chart);
}

void FindingsHtml(std::ostringstream& out, const char* title, const std::vector<Finding>& findings) {
  if (findings.empty()) return;
  out << "<h2>" << title << "</h2>\n<ul>\n";
  for (const Finding& f : findings) {
    out << "<li class=\"" << XmlEscape(f.code) << "\"><code>" << XmlEscape(f.code) << "</code> " << XmlEscape(f.text)
        << "</li>\n";
  }
  out << "</ul>\n";
}

}  // namespace

std::string RenderCompareText(const CompareReport& r) {
  std::ostringstream out;
  out << "audit compare\n  A: " << r.a << "\n  B: " << r.b << "\n  tolerance: rtol " << FormatNumber(r.tolerance.rtol, 6)
      << ", atol " << FormatNumber(r.tolerance.atol, 6) << "\n";
  if (!r.model_dir.empty()) out << "  model directory: " << r.model_dir << " (explanations and labels)\n";
  out << "\nresult: " << (r.Different() ? "DIFFERENT" : "IDENTICAL") << "\n" << Summary(r) << "\n";
  if (r.state_tying) {
    out << r.model_dir << "mdef: " << SenoneVerdict(r.state_tying->senones) << "; "
        << TmatVerdict(r.state_tying->tmats) << "\n";
  }
  if (!r.explanations.empty()) {
    out << "\nexplanation:\n";
    for (const Finding& f : r.explanations) out << "  - [" << f.code << "] " << f.text << "\n";
  }
  out << "\ndifferences:\n";
  for (const Finding& f : r.differences) out << "  - [" << f.code << "] " << f.text << "\n";

  out << "\nfiles:\n";
  for (const FileEntry& f : r.files) {
    out << "  " << f.status << (f.status.size() < 10 ? std::string(10 - f.status.size(), ' ') : "") << "  " << f.path
        << " (" << FileClassName(f.file_class) << ")\n";
    if (f.status == "identical") {
      out << "      " << SideShort(f.a) << "\n";
    } else {
      out << "      A: " << SideShort(f.a) << "\n      B: " << SideShort(f.b) << "\n";
    }
  }

  if (!r.parameters.empty()) out << "\nparameters:\n";
  for (const ParamDiff& p : r.parameters) {
    out << "  " << p.path << ": ";
    if (!p.same_shape) {
      out << "SHAPES DIFFER\n      A: " << p.shape_text_a << "\n      B: " << p.shape_text_b << "\n";
      continue;
    }
    if (!p.not_compared.empty()) {
      out << p.shape_text_a << "; " << p.not_compared << "\n";
      continue;
    }
    out << p.shape_text_a;
    if (!p.aligned_by.empty()) out << " (" << PairingText(p) << ", numbered by A)";
    out << "; " << p.differing << " of " << p.elements << " elements differ, " << p.outside << " outside tolerance\n";
    if (p.max_abs) {
      out << "      largest |A-B|: " << FormatNumber(p.max_abs->abs_diff, 6) << " at " << r.Where(p, *p.max_abs)
          << " (A " << FormatNumber(p.max_abs->a) << ", B " << FormatNumber(p.max_abs->b) << ")\n";
    }
    if (p.max_rel) {
      out << "      largest relative: " << FormatNumber(p.max_rel->rel_diff, 6) << " at " << r.Where(p, *p.max_rel)
          << " (A " << FormatNumber(p.max_rel->a) << ", B " << FormatNumber(p.max_rel->b) << ")\n";
    }
    const std::vector<StateDiff> top = p.TopStates(kTopStates);
    if (!top.empty()) {
      out << "      " << p.state_axis << "s that differ most (of " << std::count_if(p.states.begin(), p.states.end(), [](const StateDiff& s) { return s.differing > 0; })
          << " with a difference):\n";
      for (const StateDiff& s : top) {
        out << "        " << p.state_axis << " " << s.state << r.StateSuffix(p, s.state, s.b_state)
            << ": max |A-B| " << FormatNumber(s.max_abs, 6) << ", max relative " << FormatNumber(s.max_rel, 6)
            << ", " << s.differing << " differing, " << s.outside << " outside tolerance\n";
      }
    }
  }

  for (const TextDiffEntry& t : r.text_diffs) {
    if (!t.not_diffed.empty()) {
      out << "\n" << t.path << ": " << t.not_diffed << "\n";
      continue;
    }
    out << "\n--- A/" << t.path << "\n+++ B/" << t.path << "\n";
    std::size_t hidden = 0;
    for (const std::string& line : DiffText(t.diff, hidden)) out << line << "\n";
    if (hidden > 0) out << "... " << hidden << " more diff lines\n";
  }

  out << "\n" << r.model_dir << "provenance.json: ";
  if (!r.provenance) {
    out << (r.provenance_in_a ? "only in A" : r.provenance_in_b ? "only in B" : "in neither directory") << "\n";
  } else {
    out << (r.provenance->Identical() ? "identical" : "field by field (what explains numeric differences first)")
        << "\n";
    for (const FieldDiff& f : r.provenance->fields) {
      out << "  " << (f.equal ? "==" : "!=") << " " << f.field << ": ";
      if (f.equal) {
        out << Opt(f.a) << "\n";
      } else {
        out << "A " << Opt(f.a) << " | B " << Opt(f.b) << "\n";
      }
      for (const std::string& d : f.details) out << "      " << d << "\n";
    }
    if (!r.provenance->likelihoods.empty()) {
      out << "  log-likelihood per frame by pass (A, B, B-A):\n";
      for (const PassLikelihood& p : r.provenance->likelihoods) {
        out << "    pass " << p.pass << ": " << LikelihoodText(p.a) << ", " << LikelihoodText(p.b) << ", "
            << (p.a && p.b ? FormatNumber(*p.b - *p.a, 6) : "-") << "\n";
      }
    }
  }
  out << "\nresult: " << (r.Different() ? "DIFFERENT" : "IDENTICAL") << "\n";
  return out.str();
}

std::string RenderCompareJson(const CompareReport& r) {
  json::object o;
  o["tool"] = "audit compare";
  o["format_version"] = 1;
  o["a"] = r.a;
  o["b"] = r.b;
  json::object tolerance;
  tolerance["rtol"] = r.tolerance.rtol;
  tolerance["atol"] = r.tolerance.atol;
  o["tolerance"] = std::move(tolerance);
  o["model_dir"] = r.model_dir;
  o["result"] = r.Different() ? "different" : "identical";
  json::object counts;
  counts["entries"] = r.files.size();
  counts["identical"] = r.CountStatus("identical");
  counts["different"] = r.CountStatus("different");
  counts["only_in_a"] = r.CountStatus("only in A");
  counts["only_in_b"] = r.CountStatus("only in B");
  o["counts"] = std::move(counts);
  o["parameters_identical"] = r.ParametersIdentical();
  o["provenance_identical"] = r.provenance ? json::value(r.provenance->Identical()) : json::value(nullptr);
  if (r.state_tying) {
    json::object tying;
    tying["senones"] = AlignmentJson(r.state_tying->senones, SenoneVerdict(r.state_tying->senones));
    tying["transition_matrices"] = AlignmentJson(r.state_tying->tmats, TmatVerdict(r.state_tying->tmats));
    const std::optional<bool> after = r.ParametersIdenticalAfterAlignment();
    tying["parameters_identical_after_alignment"] = after ? json::value(*after) : json::value(nullptr);
    o["state_tying"] = std::move(tying);
  } else {
    o["state_tying"] = nullptr;
  }
  o["explanations"] = FindingsJson(r.explanations);
  o["differences"] = FindingsJson(r.differences);

  json::array files;
  for (const FileEntry& f : r.files) {
    json::object x;
    x["path"] = f.path;
    x["status"] = f.status;
    x["class"] = FileClassName(f.file_class);
    x["reason"] = f.reason;
    x["a"] = SideJson(f.a);
    x["b"] = SideJson(f.b);
    files.push_back(std::move(x));
  }
  o["files"] = std::move(files);

  json::array parameters;
  for (const ParamDiff& p : r.parameters) {
    json::object x;
    x["path"] = p.path;
    x["same_shape"] = p.same_shape;
    x["shape_a"] = AxesJson(p.shape_a);
    x["shape_b"] = AxesJson(p.shape_b);
    x["shape_text_a"] = p.shape_text_a;
    x["shape_text_b"] = p.shape_text_b;
    x["elements"] = p.elements;
    x["differing"] = p.differing;
    x["outside_tolerance"] = p.outside;
    x["max_abs"] = ElementJson(r, p, p.max_abs);
    x["max_rel"] = ElementJson(r, p, p.max_rel);
    json::array top;
    for (const StateDiff& s : p.TopStates(kTopStates)) top.push_back(StateJson(r, p, s));
    x["state_axis"] = p.state_axis;
    x["aligned_by"] = p.aligned_by.empty() ? json::value(nullptr) : json::value(p.aligned_by);
    x["not_compared"] = p.not_compared.empty() ? json::value(nullptr) : json::value(p.not_compared);
    x["top_states"] = std::move(top);
    json::array states;
    for (const StateDiff& s : p.states) {
      if (s.differing > 0) states.push_back(StateJson(r, p, s));
    }
    x["differing_states"] = std::move(states);
    parameters.push_back(std::move(x));
  }
  o["parameters"] = std::move(parameters);

  json::array texts;
  for (const TextDiffEntry& t : r.text_diffs) {
    json::object x;
    x["path"] = t.path;
    x["lines_a"] = t.diff.lines_a;
    x["lines_b"] = t.diff.lines_b;
    x["only_in_a"] = t.diff.removed;
    x["only_in_b"] = t.diff.added;
    std::size_t hidden = 0;
    json::array lines;
    for (const std::string& line : DiffText(t.diff, hidden)) lines.emplace_back(line);
    x["diff"] = std::move(lines);
    x["diff_lines_not_shown"] = hidden;
    x["not_diffed"] = t.not_diffed.empty() ? json::value(nullptr) : json::value(t.not_diffed);
    texts.push_back(std::move(x));
  }
  o["text_diffs"] = std::move(texts);

  json::object prov;
  prov["in_a"] = r.provenance_in_a;
  prov["in_b"] = r.provenance_in_b;
  json::array fields, likelihoods;
  if (r.provenance) {
    for (const FieldDiff& f : r.provenance->fields) {
      json::object x;
      x["field"] = f.field;
      x["equal"] = f.equal;
      x["in_training_fingerprint"] = f.affects_numbers;
      x["a"] = OptJson(f.a);
      x["b"] = OptJson(f.b);
      json::array details;
      for (const std::string& d : f.details) details.emplace_back(d);
      x["details"] = std::move(details);
      fields.push_back(std::move(x));
    }
    for (const PassLikelihood& p : r.provenance->likelihoods) {
      json::object x;
      x["pass"] = p.pass;
      x["a"] = OptJson(p.a);
      x["b"] = OptJson(p.b);
      likelihoods.push_back(std::move(x));
    }
  }
  prov["fields"] = std::move(fields);
  prov["log_likelihood_per_frame"] = std::move(likelihoods);
  json::array mismatches;
  for (const DigestMismatch& m : r.digest_mismatches) {
    json::object x;
    x["side"] = std::string(1, m.side);
    x["file"] = m.file;
    x["recorded"] = m.recorded;
    x["actual"] = m.actual.empty() ? json::value(nullptr) : json::value(m.actual);
    mismatches.push_back(std::move(x));
  }
  prov["digest_mismatches"] = std::move(mismatches);
  o["provenance"] = std::move(prov);
  return json::serialize(o) + "\n";
}

std::string RenderCompareHtml(const CompareReport& r) {
  std::ostringstream out;
  const char* result = r.Different() ? "DIFFERENT" : "IDENTICAL";
  out << HtmlPageStart(std::string("audit compare: ") + result, "audit compare",
                       "span.del{color:#a00}\n"
                       "span.add{color:#070}\n");
  out << "<p>A: <code>" << XmlEscape(r.a) << "</code><br/>B: <code>" << XmlEscape(r.b) << "</code><br/>tolerance: rtol "
      << FormatNumber(r.tolerance.rtol, 6) << ", atol " << FormatNumber(r.tolerance.atol, 6) << "</p>\n";
  out << "<p class=\"result\">Result: " << result << "</p>\n<p>" << XmlEscape(Summary(r)) << "</p>\n";
  FindingsHtml(out, "Explanation", r.explanations);
  FindingsHtml(out, "Differences", r.differences);

  bool any_heat = false;
  for (const ParamDiff& p : r.parameters) any_heat = any_heat || (p.same_shape && p.differing > 0);
  if (any_heat) {
    out << "<h2>Per-state differences</h2>\n<p>One cell per state (senone, or transition matrix), 40 to a row, "
           "numbered from the row's first state. The colour is the state's largest |A-B|: darker is larger, on a "
           "log scale over six decades below the file's largest; grey is no difference. Hover a cell for its "
           "figures.</p>\n";
    for (const ParamDiff& p : r.parameters) {
      if (!p.same_shape || p.differing == 0) continue;
      out << "<h3><code>" << XmlEscape(p.path) << "</code></h3>\n<p>" << p.differing << " of " << p.elements
          << " elements differ, " << p.outside << " outside tolerance";
      if (p.max_abs) {
        out << "; largest |A-B| " << FormatNumber(p.max_abs->abs_diff, 6) << " at " << XmlEscape(r.Where(p, *p.max_abs))
            << " (A " << FormatNumber(p.max_abs->a) << ", B " << FormatNumber(p.max_abs->b) << ")";
      }
      if (p.max_rel) {
        out << "; largest relative " << FormatNumber(p.max_rel->rel_diff, 6) << " at "
            << XmlEscape(r.Where(p, *p.max_rel));
      }
      out << ".</p>\n" << HeatMapSvg(r, p);
      const std::vector<StateDiff> top = p.TopStates(kTopStates);
      out << "<table>\n<tr><th>" << XmlEscape(p.state_axis) << "</th><th>max |A-B|</th><th>max relative</th>"
          << "<th>differing</th><th>outside tolerance</th></tr>\n";
      for (const StateDiff& s : top) {
        out << "<tr><td>" << s.state << XmlEscape(r.StateSuffix(p, s.state, s.b_state)) << "</td><td>"
            << FormatNumber(s.max_abs, 6) << "</td><td>" << FormatNumber(s.max_rel, 6) << "</td><td>" << s.differing
            << "</td><td>" << s.outside << "</td></tr>\n";
      }
      out << "</table>\n";
    }
  }

  out << "<h2>Parameter files</h2>\n";
  if (r.parameters.empty()) out << "<p>No parameter file is present on both sides.</p>\n";
  if (!r.parameters.empty()) {
    out << "<table>\n<tr><th>File</th><th>Shape</th><th>Elements</th><th>Differing</th><th>Outside tolerance</th>"
           "<th>Largest |A-B|</th><th>Largest relative</th></tr>\n";
    for (const ParamDiff& p : r.parameters) {
      out << "<tr class=\"" << (p.same_shape && p.differing == 0 ? "eq" : "ne") << "\"><td><code>" << XmlEscape(p.path)
          << "</code></td><td>";
      if (p.same_shape) {
        out << XmlEscape(p.shape_text_a);
        if (!p.aligned_by.empty()) out << "<br/>" << XmlEscape(PairingText(p));
        if (!p.not_compared.empty()) out << "<br/>" << XmlEscape(p.not_compared);
      } else {
        out << "A: " << XmlEscape(p.shape_text_a) << "<br/>B: " << XmlEscape(p.shape_text_b);
      }
      out << "</td><td>" << p.elements << "</td><td>" << p.differing << "</td><td>" << p.outside << "</td><td>"
          << (p.max_abs ? FormatNumber(p.max_abs->abs_diff, 6) : "&#8212;") << "</td><td>"
          << (p.max_rel ? FormatNumber(p.max_rel->rel_diff, 6) : "&#8212;") << "</td></tr>\n";
    }
    out << "</table>\n";
  }

  out << "<h2>Log-likelihood per frame by pass</h2>\n";
  if (r.provenance) {
    out << "<p>From each side's <code>provenance.json</code> (<code>passes[].totals.log_likelihood_per_frame</code>; "
           "pass N's value is that of the model the pass started from). A: solid blue, B: dashed orange.</p>\n"
        << LikelihoodSvg(r.provenance->likelihoods);
    if (!r.provenance->likelihoods.empty()) {
      out << "<table>\n<tr><th>Pass</th><th>A</th><th>B</th><th>B &#8722; A</th></tr>\n";
      for (const PassLikelihood& p : r.provenance->likelihoods) {
        out << "<tr><td>" << p.pass << "</td><td>" << LikelihoodText(p.a) << "</td><td>" << LikelihoodText(p.b)
            << "</td><td>" << (p.a && p.b ? FormatNumber(*p.b - *p.a, 6) : "&#8212;") << "</td></tr>\n";
      }
      out << "</table>\n";
    }
  } else {
    out << "<p><code>provenance.json</code> is not present on both sides.</p>\n";
  }

  out << "<h2>provenance.json, field by field</h2>\n";
  if (r.provenance) {
    out << "<table>\n<tr><th>Field</th><th>Equal</th><th>A</th><th>B</th><th>Details</th></tr>\n";
    for (const FieldDiff& f : r.provenance->fields) {
      out << "<tr class=\"" << (f.equal ? "eq" : "ne") << "\"><td><code>" << XmlEscape(f.field) << "</code></td><td>"
          << (f.equal ? "yes" : "no") << "</td><td><code>" << XmlEscape(Opt(f.a)) << "</code></td><td><code>"
          << XmlEscape(Opt(f.b)) << "</code></td><td>";
      for (std::size_t i = 0; i < f.details.size(); ++i) out << (i ? "<br/>" : "") << "<code>" << XmlEscape(f.details[i]) << "</code>";
      out << "</td></tr>\n";
    }
    out << "</table>\n";
  } else {
    out << "<p>" << (r.provenance_in_a ? "Only in A." : r.provenance_in_b ? "Only in B." : "In neither directory.")
        << "</p>\n";
  }

  for (const TextDiffEntry& t : r.text_diffs) {
    if (!t.not_diffed.empty()) {
      out << "<h2>Line diff: <code>" << XmlEscape(t.path) << "</code></h2>\n<p>" << XmlEscape(t.not_diffed)
          << ".</p>\n";
      continue;
    }
    out << "<h2>Line diff: <code>" << XmlEscape(t.path) << "</code></h2>\n<pre>";
    std::size_t hidden = 0;
    for (const std::string& line : DiffText(t.diff, hidden)) {
      const char* cls = line.empty() ? nullptr : line[0] == '-' ? "del" : line[0] == '+' ? "add" : nullptr;
      if (cls) {
        out << "<span class=\"" << cls << "\">" << XmlEscape(line) << "</span>\n";
      } else {
        out << XmlEscape(line) << "\n";
      }
    }
    if (hidden > 0) out << "... " << hidden << " more diff lines\n";
    out << "</pre>\n";
  }

  out << "<h2>Files</h2>\n<table>\n<tr><th>Path</th><th>Status</th><th>Class</th><th>A</th><th>B</th></tr>\n";
  for (const FileEntry& f : r.files) {
    const std::string cls = f.status == "identical"   ? "eq"
                            : f.status == "only in A" ? "onlya"
                            : f.status == "only in B" ? "onlyb"
                                                      : "different";
    out << "<tr class=\"" << cls << "\"><td><code>" << XmlEscape(f.path) << "</code></td><td>" << XmlEscape(f.status)
        << (f.reason.empty() ? "" : ": " + XmlEscape(f.reason)) << "</td><td>" << FileClassName(f.file_class)
        << "</td><td><code>" << XmlEscape(SideShort(f.a)) << "</code></td><td><code>"
        << XmlEscape(f.status == "identical" ? std::string("same") : SideShort(f.b)) << "</code></td></tr>\n";
  }
  out << "</table>\n" << HtmlPageEnd();
  return out.str();
}

}  // namespace pstrain::audit
