#include "bytes_report.h"

#include "report_text.h"

#include <boost/json.hpp>
#include <sstream>

namespace pstrain::audit {

namespace json = boost::json;

namespace {

std::string SideText(const BytesSide& side) {
  std::string out = KindName(side.kind);
  if (side.kind == EntryKind::kFile) {
    out += ", " + std::to_string(side.size) + " bytes";
    if (!side.sha256.empty()) out += ", sha256 " + side.sha256;
  }
  if (side.kind == EntryKind::kSymlink) out += " -> " + side.link_target;
  return out;
}

std::string Summary(const BytesReport& r) {
  std::string out = "identical: " + std::to_string(r.identical.size()) +
                    "; different: " + std::to_string(r.Count(EntryStatus::kDifferent)) +
                    "; only in A: " + std::to_string(r.Count(EntryStatus::kOnlyInA)) +
                    "; only in B: " + std::to_string(r.Count(EntryStatus::kOnlyInB));
  if (r.ignore_telemetry) out += "; ignored (telemetry): " + std::to_string(r.ignored.size());
  return out;
}

json::object SideJson(const BytesSide& side) {
  json::object o;
  o["kind"] = KindName(side.kind);
  if (side.kind == EntryKind::kFile) {
    o["size"] = side.size;
    o["sha256"] = side.sha256.empty() ? json::value(nullptr) : json::value(side.sha256);
  }
  if (side.kind == EntryKind::kSymlink) o["link_target"] = side.link_target;
  return o;
}


std::string SideHtml(const BytesSide& side) {
  if (side.kind == EntryKind::kMissing) return "<span class=\"none\">&#8212;</span>";
  std::string out = HtmlEscape(KindName(side.kind));
  if (side.kind == EntryKind::kFile) {
    out += ", " + std::to_string(side.size) + " bytes";
    if (!side.sha256.empty()) out += "<br/><code>" + HtmlEscape(side.sha256) + "</code>";
  }
  if (side.kind == EntryKind::kSymlink) out += " &#8594; <code>" + HtmlEscape(side.link_target) + "</code>";
  return out;
}

const char* StatusClass(EntryStatus status) {
  switch (status) {
    case EntryStatus::kOnlyInA: return "onlya";
    case EntryStatus::kOnlyInB: return "onlyb";
    case EntryStatus::kDifferent: return "diff";
  }
  return "diff";
}

}  // namespace

std::string RenderBytesText(const BytesReport& r) {
  std::ostringstream out;
  out << "audit bytes\n  A: " << r.a << "\n  B: " << r.b << "\n\n";
  for (const BytesEntry& e : r.entries) {
    if (e.status == EntryStatus::kOnlyInA) {
      out << "only in A:  " << e.path << " (" << SideText(e.a) << ")\n";
    } else if (e.status == EntryStatus::kOnlyInB) {
      out << "only in B:  " << e.path << " (" << SideText(e.b) << ")\n";
    } else {
      out << "different:  " << e.path << ": " << e.reason;
      if (e.first_difference) out << "; first difference at byte offset " << *e.first_difference;
      out << "\n    A: " << SideText(e.a) << "\n    B: " << SideText(e.b) << "\n";
    }
  }
  if (!r.entries.empty()) out << "\n";
  if (r.ignore_telemetry) {
    out << "ignored " << Plural(r.ignored.size(), "telemetry file", "telemetry files")
        << " (telemetry.json, worker.stderr, slurm/: not deterministic, docs/contract.md)\n";
  }
  out << Summary(r) << "\n";
  out << "result: " << (r.Different() ? "DIFFERENT" : "IDENTICAL") << "\n";
  return out.str();
}

std::string RenderBytesJson(const BytesReport& r) {
  json::object o;
  o["tool"] = "audit bytes";
  o["format_version"] = 1;
  o["a"] = r.a;
  o["b"] = r.b;
  o["ignore_telemetry"] = r.ignore_telemetry;
  o["result"] = r.Different() ? "different" : "identical";
  json::object counts;
  counts["identical"] = r.identical.size();
  counts["different"] = r.Count(EntryStatus::kDifferent);
  counts["only_in_a"] = r.Count(EntryStatus::kOnlyInA);
  counts["only_in_b"] = r.Count(EntryStatus::kOnlyInB);
  counts["ignored"] = r.ignored.size();
  o["counts"] = std::move(counts);
  json::array only_a, only_b, different;
  for (const BytesEntry& e : r.entries) {
    json::object x;
    x["path"] = e.path;
    if (e.status == EntryStatus::kOnlyInA) {
      x["a"] = SideJson(e.a);
      only_a.emplace_back(std::move(x));
    } else if (e.status == EntryStatus::kOnlyInB) {
      x["b"] = SideJson(e.b);
      only_b.emplace_back(std::move(x));
    } else {
      x["reason"] = e.reason;
      x["first_difference_offset"] = e.first_difference ? json::value(*e.first_difference) : json::value(nullptr);
      x["a"] = SideJson(e.a);
      x["b"] = SideJson(e.b);
      different.emplace_back(std::move(x));
    }
  }
  o["only_in_a"] = std::move(only_a);
  o["only_in_b"] = std::move(only_b);
  o["different"] = std::move(different);
  o["identical"] = JsonStrings(r.identical);
  o["ignored"] = JsonStrings(r.ignored);
  return json::serialize(o) + "\n";
}

std::string RenderBytesHtml(const BytesReport& r) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
         "<title>audit bytes: "
      << (r.Different() ? "different" : "identical")
      << "</title>\n<style>\n"
         "body{font-family:sans-serif;margin:1.5em;color:#222}\n"
         "table{border-collapse:collapse;margin:1em 0}\n"
         "th,td{border:1px solid #bbb;padding:.3em .6em;text-align:left;vertical-align:top}\n"
         "th{background:#eee}\n"
         "code{font-size:.85em;word-break:break-all}\n"
         "tr.diff td{background:#fde2e2}\n"
         "tr.onlya td{background:#fff1d6}\n"
         "tr.onlyb td{background:#dff0ff}\n"
         ".result{font-weight:bold;font-size:1.2em}\n"
         ".none{color:#999}\n"
         "</style>\n</head>\n<body>\n<h1>audit bytes</h1>\n";
  out << "<p>A: <code>" << HtmlEscape(r.a) << "</code><br/>B: <code>" << HtmlEscape(r.b) << "</code></p>\n";
  out << "<p class=\"result\">Result: " << (r.Different() ? "DIFFERENT" : "IDENTICAL") << "</p>\n";
  out << "<p>" << HtmlEscape(Summary(r)) << "</p>\n";
  if (r.ignore_telemetry) {
    out << "<p>Telemetry files (<code>telemetry.json</code>, <code>worker.stderr</code>) are not deterministic "
           "(docs/contract.md) and were ignored: "
        << r.ignored.size() << ".</p>\n";
  }
  if (!r.entries.empty()) {
    out << "<table>\n<tr><th>Path</th><th>Status</th><th>First differing byte</th><th>A</th><th>B</th></tr>\n";
    for (const BytesEntry& e : r.entries) {
      out << "<tr class=\"" << StatusClass(e.status) << "\"><td><code>" << HtmlEscape(e.path) << "</code></td><td>"
          << HtmlEscape(StatusName(e.status)) << (e.status == EntryStatus::kDifferent ? ": " + HtmlEscape(e.reason) : "")
          << "</td><td>" << (e.first_difference ? std::to_string(*e.first_difference) : "&#8212;") << "</td><td>"
          << SideHtml(e.a) << "</td><td>" << SideHtml(e.b) << "</td></tr>\n";
    }
    out << "</table>\n";
  }
  auto list = [&](const char* title, const std::vector<std::string>& items) {
    if (items.empty()) return;
    out << "<details><summary>" << title << " (" << items.size() << ")</summary>\n<ul>\n";
    for (const std::string& s : items) out << "<li><code>" << HtmlEscape(s) << "</code></li>\n";
    out << "</ul>\n</details>\n";
  };
  list("Identical", r.identical);
  list("Ignored (telemetry)", r.ignored);
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace pstrain::audit
