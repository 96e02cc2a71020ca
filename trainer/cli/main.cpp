// `pstrain`: command-line entry point. Each command lives in its own file (cli/cmd_*.cpp); this file
// only dispatches and maps errors to exit codes: 0 success, 1 training failure, 2 bad usage or input.
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "common/error.h"
#include "common/malloc_thresholds.h"
#include "numerics/isa.h"

namespace {

constexpr const char* kUsage =
    "usage: pstrain COMMAND [OPTIONS]\n"
    "\n"
    "Baum-Welch trainer for CMU Sphinx continuous HMM-GMM acoustic models.\n"
    "\n"
    "Commands:\n"
    "  manifest import   build a canonical manifest from a SphinxTrain .fileids + .transcription pair\n"
    "  manifest check    verify a manifest's syntax, feature files and digests\n"
    "  accumulate        one Baum-Welch E-step over a manifest (SphinxTrain's bw): writes accumulators\n"
    "  normalize         re-estimate a model from accumulator directories (SphinxTrain's norm)\n"
    "  train             accumulate + normalize pass after pass until converged (sharded with --jobs)\n"
    "  validate          re-run the artifact validation of a finished pass (RUNDIR/passes/NNN)\n"
    "  worker            run one shard of one pass (started by train/accumulate --jobs N)\n"
    "  bw, norm          SphinxTrain's bw and norm command lines (also as argv[0]: a link named bw/norm)\n"
    "  sphinxtrain-bindir DIR   a SphinxTrain $CFG_BIN_DIR whose bw and norm are pstrain\n"
    "\n"
    "Run `pstrain COMMAND --help` for a command's options.\n"
    "Exit status: 0 success, 1 training failure, 2 bad usage or bad input.\n";

}  // namespace

int main(int argc, char** argv) {
  pstrain::FixMallocThresholds();  // (a refusal only leaves glibc's defaults: nothing to report)
  // Invoked as `bw` or `norm` (a link in a SphinxTrain $CFG_BIN_DIR): SphinxTrain's command line.
  const std::string invoked = argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "";
  if (invoked == "bw" || invoked == "norm") {
    if (invoked == "bw") pstrain::numerics::ActiveIsaLevel();
    return invoked == "bw" ? pstrain::cli::RunBw(argc, argv) : pstrain::cli::RunNorm(argc, argv);
  }
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    (argc < 2 ? std::cerr : std::cout) << kUsage;
    return argc < 2 ? 2 : 0;
  }
  if (std::strcmp(argv[1], "--version") == 0) {
    std::cout << "pstrain " << PSTRAIN_VERSION << "\n";
    return 0;
  }
  const std::string command = argv[1];
  try {
    if (command == "manifest") return pstrain::cli::RunManifest(argc - 1, argv + 1);
    // Commands that compute check PSTRAIN_ISA first: a level the CPU lacks is bad input (exit 2),
    // reported once by this process rather than by each worker.
    if (command == "accumulate" || command == "train" || command == "worker" || command == "bw") pstrain::numerics::ActiveIsaLevel();
    if (command == "bw") return pstrain::cli::RunBw(argc - 1, argv + 1);
    if (command == "norm") return pstrain::cli::RunNorm(argc - 1, argv + 1);
    if (command == "sphinxtrain-bindir") return pstrain::cli::RunSphinxtrainBindir(argc - 1, argv + 1);
    if (command == "accumulate") return pstrain::cli::RunAccumulate(argc - 1, argv + 1);
    if (command == "normalize") return pstrain::cli::RunNormalize(argc - 1, argv + 1);
    if (command == "train") return pstrain::cli::RunTrain(argc - 1, argv + 1);
    if (command == "validate") return pstrain::cli::RunValidate(argc - 1, argv + 1);
    if (command == "worker") return pstrain::cli::RunWorker(argc - 1, argv + 1);
    std::cerr << "pstrain: unknown command '" << pstrain::Printable(command) << "'\n\n" << kUsage;
    return 2;
  } catch (const pstrain::cli::UsageError& error) {
    std::cerr << "pstrain " << command << ": " << error.what() << "\n(see `pstrain " << command << " --help`)\n";
    return 2;
  } catch (const pstrain::InputError& error) {
    std::cerr << "pstrain " << command << ": error: " << error.what() << "\n";
    return 2;
  } catch (const pstrain::TrainingError& error) {
    std::cerr << "pstrain " << command << ": training failed: " << error.what() << "\n";
    return 1;
  } catch (const std::exception& error) {
    std::cerr << "pstrain " << command << ": training failed: " << error.what() << "\n";
    return 1;
  }
}
