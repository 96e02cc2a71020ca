// `audit`: the model auditor. `audit scope` reports what each determinism gate checks and what it
// only describes (auditor/scope_command.h); `audit gates run` runs the gates and summarizes the run
// (auditor/gates_command.h); `audit bytes` byte-compares trees (auditor/bytes_command.h); `audit
// compare` diffs two model directories (auditor/compare_command.h); `audit mutate` mutation-tests
// the artifact validation (auditor/mutate_command.h); `audit characterize` measures cross-count
// differences (auditor/characterize_command.h).
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "bytes_command.h"
#include "characterize_command.h"
#include "compare_command.h"
#include "gates_command.h"
#include "mutate_command.h"
#include "scope_command.h"

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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  if (std::strcmp(argv[1], "scope") == 0) {
    const std::vector<std::string> args(argv + 2, argv + argc);
    return pstrain::audit::RunScopeCommand(args, std::cout, std::cerr);
  }
  if (std::strcmp(argv[1], "bytes") == 0) {
    const std::vector<std::string> args(argv + 2, argv + argc);
    return pstrain::audit::RunBytesCommand(args, std::cout, std::cerr);
  }
  if (std::strcmp(argv[1], "compare") == 0) {
    const std::vector<std::string> args(argv + 2, argv + argc);
    return pstrain::audit::RunCompareCommand(args, std::cout, std::cerr);
  }
  if (std::strcmp(argv[1], "gates") == 0) {
    const std::vector<std::string> args(argv + 2, argv + argc);
    return pstrain::audit::RunGatesCommand(args, std::cout, std::cerr);
  }
  if (std::strcmp(argv[1], "mutate") == 0) {
    const std::vector<std::string> args(argv + 2, argv + argc);
    return pstrain::audit::RunMutateCommand(args, std::cout, std::cerr);
  }
  if (std::strcmp(argv[1], "characterize") == 0) {
    const std::vector<std::string> args(argv + 2, argv + argc);
    return pstrain::audit::RunCharacterizeCommand(args, std::cout, std::cerr);
  }
  std::cerr << "audit: command '" << argv[1] << "' is not an audit command (audit --help lists them)\n";
  return 2;
}
