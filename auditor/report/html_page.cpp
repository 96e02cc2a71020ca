// The auditor's HTML page skeleton, shared style sheet and table builder.
#include "report/html_page.h"

#include "report/xml_text.h"

namespace pstrain::audit {
namespace {

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:1.5em;color:#222;max-width:80em}\n"
    "table{border-collapse:collapse;margin:1em 0}\n"
    "th,td{border:1px solid #bbb;padding:.3em .6em;text-align:left;vertical-align:top}\n"
    "th{background:#eee}\n"
    "code{font-size:.85em;word-break:break-all}\n"
    "pre{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:.85em}\n"
    "figure{margin:1em 0}\n"
    "tr.diff td,tr.different td,tr.ne td{background:#fde2e2}\n"
    "tr.onlya td{background:#fff1d6}\n"
    "tr.onlyb td{background:#dff0ff}\n"
    ".result{font-weight:bold;font-size:1.2em}\n"
    ".none{color:#999}\n";

}  // namespace

std::string HtmlPageStart(const std::string& title, const std::string& heading, const std::string& extra_css) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>" +
         XmlEscape(title) + "</title>\n<style>\n" + kStyle + extra_css + "</style>\n</head>\n<body>\n<h1>" + XmlEscape(heading) +
         "</h1>\n";
}

std::string HtmlPageEnd() { return "</body>\n</html>\n"; }

HtmlTable::HtmlTable(const std::vector<std::string>& header) {
  html_ = "<table>\n<tr>";
  for (const std::string& h : header) html_ += "<th>" + XmlEscape(h) + "</th>";
  html_ += "</tr>\n";
}

HtmlTable& HtmlTable::Row(const std::vector<std::string>& cells, const std::string& row_class) {
  html_ += row_class.empty() ? "<tr>" : "<tr class=\"" + XmlAttributeEscape(row_class) + "\">";
  for (const std::string& c : cells) html_ += "<td>" + c + "</td>";
  html_ += "</tr>\n";
  ++rows_;
  return *this;
}

std::string HtmlTable::Render() const { return html_ + "</table>\n"; }

}  // namespace pstrain::audit
