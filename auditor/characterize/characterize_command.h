// `audit characterize`: trains one corpus with two shard counts, in float32 and in exact reduction
// mode (the control), and reports per pass how far the two shard counts' parameters differ.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace pstrain::audit {

extern const char* const kCharacterizeUsage;

// Runs `audit characterize ARGS...` (`args` without "characterize"). Exit 0 report written,
// 2 trouble (bad option, a training run failed, unreadable output).
int RunCharacterizeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace pstrain::audit
