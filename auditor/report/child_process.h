// The auditor's one child-process runner (audit gates runs gate_tests and prepare-corpus.sh; audit
// characterize runs pstrain train), on Boost.Process as the trainer's launcher is: standard output
// and error into a log file, optionally echoed, with an environment of the caller's choosing.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace pstrain::audit {

struct ChildCommand {
  std::vector<std::string> argv;  // argv[0]: a path, or a name looked up on PATH when it has no '/'
  std::vector<std::string> unset_env;                          // removed from the inherited environment
  std::vector<std::pair<std::string, std::string>> set_env;   // then set (after the removals)
  std::filesystem::path log;  // standard output and error, truncated first
  std::ostream* echo = nullptr;  // when set, the output is copied here too as it arrives
};

struct ChildOutcome {
  bool started = false;
  std::string error;  // why it did not start (the program missing, the log not writable, ...)
  bool signalled = false;
  int exit_code = 0;  // valid when started and not signalled
  int signal = 0;     // valid when signalled
  bool Succeeded() const { return started && !signalled && exit_code == 0; }
  // "exited with status N", "was killed by signal N (NAME)" or "could not start: ERROR".
  std::string Describe() const;
};

// Runs the command to completion; never throws for the child's own failure.
ChildOutcome RunChild(const ChildCommand& command);

}  // namespace pstrain::audit
