// The auditor's one line diff (audit compare's text files and provenance configuration, audit
// scope's --check of docs/contract.md): unified-diff hunks, as `diff -u` writes them, including the
// "\ No newline at end of file" difference.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pstrain::audit {

// A line of a text: its bytes without the '\n', and whether a '\n' ended it (only the last line of
// a text can lack one). Two lines are equal only when both agree, as in GNU diff.
struct TextLine {
  std::string text;
  bool newline = true;
  bool operator==(const TextLine&) const = default;
};

struct DiffLine {
  char op = ' ';  // ' ' context, '-' only in A, '+' only in B
  std::string text;
  bool newline = true;  // false: the text's last line, without a final newline
};

struct DiffHunk {
  std::size_t a_start = 0, a_count = 0;  // first line number and line count, as `diff -u`
  std::size_t b_start = 0, b_count = 0;
  std::vector<DiffLine> lines;
  std::string Header() const;  // "@@ -a_start,a_count +b_start,b_count @@" (",1" left out, as GNU diff)
};

struct LineDiff {
  std::size_t lines_a = 0, lines_b = 0;
  std::size_t removed = 0, added = 0;  // lines only in A, only in B
  std::vector<DiffHunk> hunks;
  bool Identical() const { return removed == 0 && added == 0; }
};

// Splits on '\n'; a final line without '\n' is a line with newline = false.
std::vector<TextLine> SplitTextLines(std::string_view text);
// The lines' text only.
std::vector<std::string> SplitLines(std::string_view text);

// The common prefix and suffix are matched first; the changed middle is aligned by a longest common
// subsequence when it has at most kMaxAlignedCells line pairs (16 MB of table), and is otherwise
// shown as one block removed and added. Line numbers of A start at `a_first_line`.
inline constexpr std::size_t kMaxAlignedCells = 4'000'000;
LineDiff DiffLines(std::string_view a, std::string_view b, std::size_t context = 3, std::size_t a_first_line = 1);

// The hunks as lines of `diff -u` output: the header, then op + text, and after a line without a
// final newline the line "\ No newline at end of file".
std::vector<std::string> HunkLines(const DiffHunk& hunk);

// "--- a_name\n+++ b_name\n" and every hunk; "" when the texts are identical.
std::string RenderUnifiedDiff(const LineDiff& diff, const std::string& a_name, const std::string& b_name);

}  // namespace pstrain::audit
