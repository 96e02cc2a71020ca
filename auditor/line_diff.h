// `audit compare`: a line diff of two text files (mdef, feat.params, noisedict, the canonical
// configuration in provenance.json), as unified-diff hunks with three lines of context.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pstrain::audit {

struct DiffLine {
  char op = ' ';  // ' ' context, '-' only in A, '+' only in B
  std::string text;
};

struct DiffHunk {
  std::size_t a_start = 0, a_count = 0;  // 1-based first line and line count, as `diff -u`
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

// Splits on '\n' (a final line without '\n' is a line). The common prefix and suffix are matched
// first; the changed middle is aligned by a longest common subsequence when it has at most
// kMaxAlignedCells line pairs, and is otherwise shown as one block removed and added.
inline constexpr std::size_t kMaxAlignedCells = 4'000'000;
LineDiff DiffLines(const std::string& a, const std::string& b, std::size_t context = 3);

std::vector<std::string> SplitLines(const std::string& text);

}  // namespace pstrain::audit
