// Small text helpers the auditor's reports share (bytes, compare, characterize, scope, gates).
#pragma once

#include <boost/json.hpp>
#include <cstddef>
#include <string>
#include <vector>

namespace pstrain::audit {

// "1 file", "3 files".
std::string Plural(std::size_t n, const char* one, const char* many);

// Text for HTML pages that are also well-formed XML (docs/audit.md): & < > " ' as references;
// control characters (but tab and newline) and bytes that are not valid UTF-8 as "\xNN".
std::string HtmlEscape(const std::string& s);

// The last `count` lines of `text` (a final newline does not start an empty line).
std::string LastLines(const std::string& text, std::size_t count);

// A JSON array of strings.
boost::json::array JsonStrings(const std::vector<std::string>& items);

}  // namespace pstrain::audit
