// Helpers for the integration tests and the gates: running commands, temp dirs, the default corpus, peers.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "formats/dictionary.h"

namespace pstrain::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr, interleaved
};

// Runs `command` through /bin/sh, capturing output. Never throws.
CommandResult RunCommand(const std::string& command);
// Single-quotes `arg` for the shell.
std::string ShellQuote(const std::string& arg);

// A fresh directory under the build tree's test scratch area, removed and recreated.
std::filesystem::path FreshDir(const std::string& name);

// The default corpus (built by the prepare_default_corpus fixture) and its manifests, imported
// into the corpus directory on first use.
std::filesystem::path CorpusDir();
std::filesystem::path TrainManifest();
std::filesystem::path HeldoutManifest();
// The default corpus's dictionary merged with its filler dictionary, as a pass loads them.
Dictionary CorpusDictionary();

// The shipped initial model.
std::filesystem::path An4Model();
inline constexpr const char* kBw = "/usr/lib/sphinxtrain/bw";
inline constexpr const char* kNorm = "/usr/lib/sphinxtrain/norm";

// `pstrain` with arguments.
std::string Pstrain(const std::string& args);

// The `audit` binary of this build tree.
std::filesystem::path AuditBinary();

}  // namespace pstrain::testing
