#include "scope/scope_model.h"

namespace pstrain::audit {

std::string DescribeCheck(const Check& check) {
  std::string subjects;
  if (check.subjects.braced) {
    for (const SourceValue& v : check.subjects.items) {
      subjects += (subjects.empty() ? "" : ", ") + (v.literal ? v.text : "`" + v.text + "`");
    }
  } else {
    subjects = "`" + (check.subjects.expression.empty() ? check.arguments : check.subjects.expression) + "`";
  }
  return check.helper + "(" + subjects + ")";
}

std::optional<std::vector<std::optional<std::string>>> LedgerSubjectsPattern(const Check& check) {
  if (!check.subjects.braced) return std::nullopt;
  std::vector<std::optional<std::string>> pattern;
  for (const SourceValue& v : check.subjects.items) {
    pattern.push_back(v.literal ? std::optional<std::string>(v.text) : std::nullopt);
  }
  return pattern;
}

}  // namespace pstrain::audit
