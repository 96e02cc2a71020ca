// The `pstrain` commands. Each returns the exit status; errors are thrown (see main.cpp).
#pragma once

#include <stdexcept>
#include <string>

#include "common/error.h"

namespace pstrain::cli {

// Bad command-line usage (unknown option, missing value): exit 2 with a pointer to --help.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message) : std::runtime_error(SanitizedMessage(message)) {}
};

int RunManifest(int argc, char** argv);
int RunAccumulate(int argc, char** argv);
int RunNormalize(int argc, char** argv);
int RunTrain(int argc, char** argv);
int RunWorker(int argc, char** argv);
int RunValidate(int argc, char** argv);

}  // namespace pstrain::cli
