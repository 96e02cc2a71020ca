// `audit bytes A B`: byte-compares two files or directory trees (artifact or model trees): files
// only in one side, differing files with the first differing byte offset and both SHA-256s, the
// identical count. Exit 0 identical, 1 different, 2 trouble (diffoscope's convention).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace pstrain::audit {

extern const char* const kBytesUsage;

// Runs `audit bytes ARGS...` (`args` without "bytes"): the report goes to `out` (or --out), error
// messages to `err`. Returns 0 identical, 1 different, 2 trouble (bad option, missing or unreadable
// path — the message names it).
int RunBytesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace pstrain::audit
