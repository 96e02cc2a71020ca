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
// SphinxTrain drop-in (docs/sphinxtrain.md): `bw` and `norm` take SphinxTrain's flags and report
// errors as SphinxBase FATAL lines; sphinxtrain-bindir makes a $CFG_BIN_DIR.
int RunBw(int argc, char** argv);
int RunNorm(int argc, char** argv);
int RunSphinxtrainBindir(int argc, char** argv);

}  // namespace pstrain::cli
