// Finding, replacing and diffing the generated gate-scope section of docs/contract.md.
#include "scope/scope_doc.h"

#include "report/line_diff.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace pstrain::audit {

namespace {

struct Line {
  std::size_t begin, end;  // [begin, end) without the newline
  std::size_t next;        // offset of the following line
};

std::vector<Line> Lines(std::string_view text) {
  std::vector<Line> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    const std::size_t next = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.push_back({start, end, next});
    start = next;
  }
  return lines;
}

std::string_view Trim(std::string_view s) {
  const std::size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const std::size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

}  // namespace

std::optional<DocSection> FindGeneratedSection(std::string_view doc, std::string& error) {
  const std::vector<Line> lines = Lines(doc);
  std::vector<std::size_t> begins, ends;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = Trim(doc.substr(lines[i].begin, lines[i].end - lines[i].begin));
    if (line == kBeginMarker) begins.push_back(i);
    if (line == kEndMarker) ends.push_back(i);
  }
  if (begins.empty() || ends.empty()) {
    error = std::string("missing the marker line ") + std::string(begins.empty() ? kBeginMarker : kEndMarker);
    return std::nullopt;
  }
  if (begins.size() > 1 || ends.size() > 1) {
    error = "the markers appear more than once";
    return std::nullopt;
  }
  if (ends[0] < begins[0]) {
    error = "the END marker comes before the BEGIN marker";
    return std::nullopt;
  }
  DocSection section;
  section.begin = lines[begins[0]].next;
  section.end = lines[ends[0]].begin;
  section.first_line = begins[0] + 2;
  return section;
}

std::string ReplaceGeneratedSection(std::string_view doc, const DocSection& section, std::string_view generated) {
  std::string out(doc.substr(0, section.begin));
  out += generated;
  if (!generated.empty() && generated.back() != '\n') out += '\n';
  out += doc.substr(section.end);
  return out;
}

std::string UnifiedDiff(std::string_view before, std::string_view after, const std::string& before_name,
                        const std::string& after_name, std::size_t before_first_line) {
  return RenderUnifiedDiff(DiffLines(before, after, 3, before_first_line), before_name, after_name);
}

}  // namespace pstrain::audit
