// `audit`: the model auditor, a table of commands, one folder each under auditor/: `audit scope`
// reports what each determinism gate checks and what it only describes (scope/); `audit gates run`
// runs the gates and summarizes the run (gates/); `audit bytes` byte-compares trees (bytes/);
// `audit compare` diffs two model directories (compare/); `audit mutate` mutation-tests the
// artifact validation (mutate/); `audit characterize` measures cross-count differences
// (characterize/). What their reports share (escaping, HTML, SVG, line diffs, JUnit, child
// processes, options, the error type) is in report/.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "bytes/bytes_command.h"
#include "characterize/characterize_command.h"
#include "common/error.h"
#include "compare/compare_command.h"
#include "gates/gates_command.h"
#include "mutate/mutate_command.h"
#include "report/command_runner.h"
#include "scope/scope_command.h"

namespace {

constexpr const char* kUsage =
    "usage: audit COMMAND [ARGS]\n"
    "\n"
    "The pstrain model auditor.\n"
    "\n"
    "Commands:\n"
    "  scope        write the gate-scope report (what each determinism gate checks vs describes);\n"
    "               `audit scope --help` for its options\n"
    "  bytes        byte-compare two files or artifact/model trees (exit 0 same, 1 different,\n"
    "               2 trouble); `audit bytes --help` for its options\n"
    "  compare      diff two model directories, provenance.json included (exit 0 same, 1 different,\n"
    "               2 trouble); `audit compare --help` for its options\n"
    "  gates run    run the determinism gates (gate_tests) in a profile and summarize what each\n"
    "               gate checked and where the first difference is (exit 0 pass, 1 fail, 2 not run);\n"
    "               `audit gates --help` for its options\n"
    "  mutate       mutation-test the artifact validation on a real finished pass (exit 0 all killed,\n"
    "               1 a mutation survived, 2 trouble); `audit mutate --help` for its options\n"
    "  characterize train one corpus with two shard counts (float32 and exact) and report per pass\n"
    "               how far the parameters differ; `audit characterize --help` for its options\n"
    "\n"
    "Options:\n"
    "  -h, --help   show this help\n";

// The commands, in the order of the usage text. Each takes its arguments after the command name
// and returns its verdict; trouble that escapes one (AuditError, a trainer library's InputError or
// any other exception: report/audit_error.h) becomes "audit COMMAND: ..." and exit 2 in
// RunReportingErrors (report/command_runner.h).
struct Command {
  const char* name;
  pstrain::audit::CommandFunction run;
};

constexpr Command kCommands[] = {
    {"scope", pstrain::audit::RunScopeCommand},     {"bytes", pstrain::audit::RunBytesCommand},
    {"compare", pstrain::audit::RunCompareCommand}, {"gates", pstrain::audit::RunGatesCommand},
    {"mutate", pstrain::audit::RunMutateCommand},   {"characterize", pstrain::audit::RunCharacterizeCommand},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  for (const Command& command : kCommands) {
    if (std::strcmp(argv[1], command.name) != 0) continue;
    const std::vector<std::string> args(argv + 2, argv + argc);
    return pstrain::audit::RunReportingErrors(command.name, command.run, args, std::cout, std::cerr);
  }
  std::cerr << "audit: command " << pstrain::Quoted(argv[1]) << " is not an audit command (audit --help lists them)\n";
  return 2;
}
