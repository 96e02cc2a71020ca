// The auditor's line diff: prefix/suffix trimming, an LCS alignment of the middle, and hunks
// with context as GNU diff groups them.
#include "report/line_diff.h"

#include <algorithm>
#include <cstdint>

namespace pstrain::audit {

namespace {

// GNU diff's range: "start,count", or "start" alone when the count is 1.
std::string Range(std::size_t start, std::size_t count) {
  return count == 1 ? std::to_string(start) : std::to_string(start) + "," + std::to_string(count);
}

}  // namespace

std::string DiffHunk::Header() const { return "@@ -" + Range(a_start, a_count) + " +" + Range(b_start, b_count) + " @@"; }

std::vector<TextLine> SplitTextLines(std::string_view text) {
  std::vector<TextLine> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      lines.push_back({std::string(text.substr(start)), false});
      break;
    }
    lines.push_back({std::string(text.substr(start, end - start)), true});
    start = end + 1;
  }
  return lines;
}

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> out;
  for (TextLine& l : SplitTextLines(text)) out.push_back(std::move(l.text));
  return out;
}

namespace {

// The edit script: one op per aligned line ('=' both, '-' A only, '+' B only).
std::vector<char> EditScript(const std::vector<TextLine>& a, const std::vector<TextLine>& b) {
  std::size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
    ++suffix;
  }
  const std::size_t n = a.size() - prefix - suffix, m = b.size() - prefix - suffix;
  std::vector<char> script(prefix, '=');
  if (n > 0 && m > 0 && n * m <= kMaxAlignedCells) {
    // lcs[i][j] = LCS length of a[prefix+i..] and b[prefix+j..].
    std::vector<std::uint32_t> lcs((n + 1) * (m + 1), 0);
    auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return lcs[i * (m + 1) + j]; };
    for (std::size_t i = n; i-- > 0;) {
      for (std::size_t j = m; j-- > 0;) {
        at(i, j) = a[prefix + i] == b[prefix + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
      }
    }
    std::size_t i = 0, j = 0;
    while (i < n && j < m) {
      if (a[prefix + i] == b[prefix + j]) {
        script.push_back('='), ++i, ++j;
      } else if (at(i + 1, j) >= at(i, j + 1)) {
        script.push_back('-'), ++i;
      } else {
        script.push_back('+'), ++j;
      }
    }
    script.insert(script.end(), n - i, '-');
    script.insert(script.end(), m - j, '+');
  } else {
    script.insert(script.end(), n, '-');
    script.insert(script.end(), m, '+');
  }
  script.insert(script.end(), suffix, '=');
  return script;
}

}  // namespace

LineDiff DiffLines(std::string_view text_a, std::string_view text_b, std::size_t context, std::size_t a_first_line) {
  const std::vector<TextLine> a = SplitTextLines(text_a), b = SplitTextLines(text_b);
  LineDiff diff;
  diff.lines_a = a.size();
  diff.lines_b = b.size();
  const std::vector<char> script = EditScript(a, b);
  // Position in A and B before each script entry.
  std::vector<std::size_t> pos_a(script.size() + 1), pos_b(script.size() + 1);
  for (std::size_t k = 0; k < script.size(); ++k) {
    pos_a[k + 1] = pos_a[k] + (script[k] != '+');
    pos_b[k + 1] = pos_b[k] + (script[k] != '-');
    if (script[k] == '-') ++diff.removed;
    if (script[k] == '+') ++diff.added;
  }
  std::size_t k = 0;
  while (k < script.size()) {
    if (script[k] == '=') {
      ++k;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` lines after the last change that
    // is at most 2*context equal lines away from the previous one.
    const std::size_t begin = k >= context ? k - context : 0;
    std::size_t end = k;
    while (end < script.size()) {
      if (script[end] != '=') {
        ++end;
        continue;
      }
      std::size_t run = end;
      while (run < script.size() && script[run] == '=') ++run;
      if (run == script.size() || run - end > 2 * context) {
        end = std::min(run, end + context);
        break;
      }
      end = run;
    }
    DiffHunk hunk;
    hunk.a_start = pos_a[begin] + a_first_line;
    hunk.b_start = pos_b[begin] + 1;
    hunk.a_count = pos_a[end] - pos_a[begin];
    hunk.b_count = pos_b[end] - pos_b[begin];
    if (hunk.a_count == 0) hunk.a_start -= 1;  // `diff -u` convention for an empty range
    if (hunk.b_count == 0) hunk.b_start -= 1;
    for (std::size_t x = begin; x < end; ++x) {
      const char op = script[x] == '=' ? ' ' : script[x];
      const TextLine& line = op == '+' ? b[pos_b[x]] : a[pos_a[x]];
      hunk.lines.push_back({op, line.text, line.newline});
    }
    diff.hunks.push_back(std::move(hunk));
    k = end;
  }
  return diff;
}

std::vector<std::string> HunkLines(const DiffHunk& hunk) {
  std::vector<std::string> out{hunk.Header()};
  for (const DiffLine& l : hunk.lines) {
    out.push_back(l.op + l.text);
    if (!l.newline) out.emplace_back("\\ No newline at end of file");
  }
  return out;
}

std::string RenderUnifiedDiff(const LineDiff& diff, const std::string& a_name, const std::string& b_name) {
  if (diff.Identical()) return "";
  std::string out = "--- " + a_name + "\n+++ " + b_name + "\n";
  for (const DiffHunk& h : diff.hunks) {
    for (const std::string& line : HunkLines(h)) out += line + "\n";
  }
  return out;
}

}  // namespace pstrain::audit
