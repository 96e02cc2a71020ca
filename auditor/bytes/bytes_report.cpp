// `audit bytes`: rendering a BytesReport as text, JSON and HTML.
#include "bytes/bytes_report.h"

#include "report/html_page.h"
#include "report/report_text.h"
#include "report/xml_text.h"

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
  std::string out = XmlEscape(KindName(side.kind));
  if (side.kind == EntryKind::kFile) {
    out += ", " + std::to_string(side.size) + " bytes";
    if (!side.sha256.empty()) out += "<br/><code>" + XmlEscape(side.sha256) + "</code>";
  }
  if (side.kind == EntryKind::kSymlink) out += " &#8594; <code>" + XmlEscape(side.link_target) + "</code>";
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
  out << HtmlPageStart(std::string("audit bytes: ") + (r.Different() ? "different" : "identical"), "audit bytes");
  out << "<p>A: <code>" << XmlEscape(r.a) << "</code><br/>B: <code>" << XmlEscape(r.b) << "</code></p>\n";
  out << "<p class=\"result\">Result: " << (r.Different() ? "DIFFERENT" : "IDENTICAL") << "</p>\n";
  out << "<p>" << XmlEscape(Summary(r)) << "</p>\n";
  if (r.ignore_telemetry) {
    out << "<p>Telemetry files (<code>telemetry.json</code>, <code>worker.stderr</code>) are not deterministic "
           "(docs/contract.md) and were ignored: "
        << r.ignored.size() << ".</p>\n";
  }
  if (!r.entries.empty()) {
    HtmlTable table({"Path", "Status", "First differing byte", "A", "B"});
    for (const BytesEntry& e : r.entries) {
      table.Row({"<code>" + XmlEscape(e.path) + "</code>",
                 XmlEscape(StatusName(e.status)) + (e.status == EntryStatus::kDifferent ? ": " + XmlEscape(e.reason) : ""),
                 e.first_difference ? std::to_string(*e.first_difference) : "&#8212;", SideHtml(e.a), SideHtml(e.b)},
                StatusClass(e.status));
    }
    out << table.Render();
  }
  auto list = [&](const char* title, const std::vector<std::string>& items) {
    if (items.empty()) return;
    out << "<details><summary>" << title << " (" << items.size() << ")</summary>\n<ul>\n";
    for (const std::string& s : items) out << "<li><code>" << XmlEscape(s) << "</code></li>\n";
    out << "</ul>\n</details>\n";
  };
  list("Identical", r.identical);
  list("Ignored (telemetry)", r.ignored);
  out << HtmlPageEnd();
  return out.str();
}

}  // namespace pstrain::audit
