// Small text helpers the auditor's reports share (bytes, compare, characterize, scope, gates).
#pragma once

#include <boost/json.hpp>
#include <cstddef>
#include <string>
#include <vector>

namespace pstrain::audit {

// "1 file", "3 files".
std::string Plural(std::size_t n, const char* one, const char* many);

// The last `count` lines of `text` (a final newline does not start an empty line).
std::string LastLines(const std::string& text, std::size_t count);

// A JSON array of strings.
boost::json::array JsonStrings(const std::vector<std::string>& items);

}  // namespace pstrain::audit
