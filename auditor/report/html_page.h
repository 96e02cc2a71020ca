// The auditor's one HTML page and table builder (audit bytes, compare and characterize reports):
// pages that are also well-formed XML, with one shared style sheet.
#pragma once

#include <string>
#include <vector>

namespace pstrain::audit {

// The page up to and including <body> and the <h1> heading: doctype, language, UTF-8, the
// escaped title, the shared style sheet and then `extra_css` (rules of the page's own).
std::string HtmlPageStart(const std::string& title, const std::string& heading, const std::string& extra_css = "");
// "</body>\n</html>\n".
std::string HtmlPageEnd();

// A table. Header cells are text (escaped); row cells are HTML fragments the caller built with
// XmlEscape; a row may carry a class for the style sheet (e.g. "diff", "onlya", "onlyb").
class HtmlTable {
 public:
  explicit HtmlTable(const std::vector<std::string>& header);
  HtmlTable& Row(const std::vector<std::string>& cells, const std::string& row_class = "");
  bool Empty() const { return rows_ == 0; }
  std::string Render() const;  // "<table>...</table>\n"

 private:
  std::string html_;
  std::size_t rows_ = 0;
};

}  // namespace pstrain::audit
