// `audit mutate RUN_DIR`: mutation-tests the rejection paths of the artifact validation on a real
// finished pass (auditor/mutate/mutations.h, auditor/mutate/mutate_engine.h). Exit 0 every applied mutation
// killed, 1 at least one survived, 2 trouble.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace pstrain::audit {

extern const char* const kMutateUsage;

// Runs `audit mutate ARGS...` (`args` without "mutate") with the real validator.
int RunMutateCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace pstrain::audit
