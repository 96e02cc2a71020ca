#include "scope_doc.h"

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

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> out;
  for (const Line& l : Lines(text)) out.push_back(text.substr(l.begin, l.end - l.begin));
  return out;
}

std::string Range(std::size_t start, std::size_t count) {
  // Unified-diff convention: an empty range names the line before it.
  return std::to_string(count == 0 ? start - 1 : start) + "," + std::to_string(count);
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
  if (before == after) return "";
  const std::vector<std::string_view> a = SplitLines(before), b = SplitLines(after);
  const std::size_t n = a.size(), m = b.size();
  // Edit script: ' ' keep, '-' delete from a, '+' insert from b.
  std::vector<std::pair<char, std::string_view>> script;
  if (n * m > 16'000'000) {  // too large for the table: everything out, everything in
    for (auto l : a) script.emplace_back('-', l);
    for (auto l : b) script.emplace_back('+', l);
  } else {
    // lcs[i][j] = LCS length of a[i..] and b[j..]
    std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
    for (std::size_t i = n; i-- > 0;) {
      for (std::size_t j = m; j-- > 0;) {
        lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    std::size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[i] == b[j]) {
        script.emplace_back(' ', a[i++]);
        ++j;
      } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
        script.emplace_back('-', a[i++]);
      } else {
        script.emplace_back('+', b[j++]);
      }
    }
  }
  constexpr std::size_t kContext = 3;
  std::string out = "--- " + before_name + "\n+++ " + after_name + "\n";
  std::size_t k = 0;
  // Line numbers (1-based) at each script position.
  std::vector<std::size_t> a_line(script.size() + 1), b_line(script.size() + 1);
  {
    std::size_t al = before_first_line, bl = 1;
    for (std::size_t s = 0; s < script.size(); ++s) {
      a_line[s] = al;
      b_line[s] = bl;
      if (script[s].first != '+') ++al;
      if (script[s].first != '-') ++bl;
    }
    a_line[script.size()] = al;
    b_line[script.size()] = bl;
  }
  while (k < script.size()) {
    if (script[k].first == ' ') {
      ++k;
      continue;
    }
    // A hunk: from kContext before this change to kContext after the last change that is within
    // 2*kContext of the previous one.
    const std::size_t start = k >= kContext ? k - kContext : 0;
    std::size_t last_change = k;
    std::size_t e = k;
    while (e < script.size()) {
      if (script[e].first != ' ') last_change = e;
      if (e > last_change + 2 * kContext) break;
      ++e;
    }
    const std::size_t stop = std::min(script.size(), last_change + kContext + 1);
    std::size_t a_count = 0, b_count = 0;
    for (std::size_t s = start; s < stop; ++s) {
      if (script[s].first != '+') ++a_count;
      if (script[s].first != '-') ++b_count;
    }
    out += "@@ -" + Range(a_line[start], a_count) + " +" + Range(b_line[start], b_count) + " @@\n";
    for (std::size_t s = start; s < stop; ++s) {
      out += script[s].first;
      out += script[s].second;
      out += '\n';
    }
    k = stop;
  }
  return out;
}

}  // namespace pstrain::audit
