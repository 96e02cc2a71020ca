// Small text helpers shared by the auditor's reports: plurals, last lines, JSON string arrays.
#include "report/report_text.h"

namespace pstrain::audit {

std::string Plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string LastLines(const std::string& text, std::size_t count) {
  std::size_t pos = text.size();
  if (pos > 0 && text[pos - 1] == '\n') --pos;
  for (std::size_t lines = 0; pos > 0 && lines < count; ++lines) {
    const std::size_t nl = text.rfind('\n', pos - 1);
    pos = nl == std::string::npos ? 0 : nl;
  }
  return text.substr(pos == 0 ? 0 : pos + 1);
}

boost::json::array JsonStrings(const std::vector<std::string>& items) {
  boost::json::array a;
  for (const std::string& s : items) a.emplace_back(s);
  return a;
}

}  // namespace pstrain::audit
