// The generated gate-scope section of a Markdown document (docs/contract.md): the lines strictly
// between a line `<!-- BEGIN GENERATED GATE SCOPE -->` and a line `<!-- END GENERATED GATE SCOPE -->`.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace pstrain::audit {

inline constexpr std::string_view kBeginMarker = "<!-- BEGIN GENERATED GATE SCOPE -->";
inline constexpr std::string_view kEndMarker = "<!-- END GENERATED GATE SCOPE -->";

struct DocSection {
  std::size_t begin = 0;       // byte offset of the section's first character (after the BEGIN line)
  std::size_t end = 0;         // byte offset of the END marker line
  std::size_t first_line = 0;  // 1-based line number of the section's first line
};

// The section, or nullopt with `error` saying what is wrong with the markers (missing, repeated,
// out of order). Each marker must be a line of its own (surrounding spaces allowed).
std::optional<DocSection> FindGeneratedSection(std::string_view doc, std::string& error);

// `doc` with the section replaced by `generated` (which should end with a newline).
std::string ReplaceGeneratedSection(std::string_view doc, const DocSection& section, std::string_view generated);

// A unified diff (3 lines of context) from `before` to `after`; empty when they are equal. Line
// numbers of `before` start at `before_first_line`.
std::string UnifiedDiff(std::string_view before, std::string_view after, const std::string& before_name,
                        const std::string& after_name, std::size_t before_first_line = 1);

}  // namespace pstrain::audit
