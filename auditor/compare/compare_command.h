// `audit compare DIR_A DIR_B`: how two model directories differ and why (auditor/compare/model_compare.h).
// Exit 0 identical, 1 different, 2 trouble (diffoscope's convention).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace pstrain::audit {

extern const char* const kCompareUsage;

// Runs `audit compare ARGS...` (`args` without "compare"): the report goes to `out` (or --out),
// error messages to `err`. Returns 0 identical, 1 different, 2 trouble (bad option, missing or
// unreadable directory, malformed file — the message names it; no report is written).
int RunCompareCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace pstrain::audit
