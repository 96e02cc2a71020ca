// `pstrain train`: sharded passes of accumulate + normalize until the stop rule says so.
#include <unistd.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/options/train_options.h"
#include "training/train_loop.h"

namespace pstrain::cli {

int RunTrain(int argc, char** argv) {
  CorpusInputs inputs;
  TrainOptions options;
  std::string out;
  bool quiet = false;
  po::options_description desc("pstrain train options");
  AddOptions(desc, inputs);
  desc.add_options()
      ("out", po::value(&out)->required(), "run directory: RUNDIR/model/ (final model) and RUNDIR/passes/NNN/")
      ("quiet", po::bool_switch(&quiet), "no progress output (default: off, progress on a terminal)");
  AddOptions(desc, options);
  if (!ParseCommandLine(argc, argv, desc,
                        "usage: pstrain train --model DIR --manifest MANIFEST --dict DICT --filler FILLERDICT --out RUNDIR [options]\n"
                        "Baum-Welch training, pass after pass, until converged or --max-passes.")) {
    return 0;
  }
  CheckOutputApartFromInputs(out, inputs, {"model", "passes"});  // training replaces RUNDIR/model and RUNDIR/passes/NNN
  ResolvePassInputs(inputs, options.inputs);
  options.progress = !quiet && ::isatty(STDERR_FILENO);
  TrainResult result = Train(options, out, std::cout);
  if (!quiet || result.cache_hit) {
    std::cout << "model: " << result.model_dir.string() << " (" << result.passes << (result.passes == 1 ? " pass, " : " passes, ") << StopDecisionName(result.decision)
              << (result.cache_hit ? ", cache hit" : "") << ")\n";
  }
  return 0;
}

}  // namespace pstrain::cli
