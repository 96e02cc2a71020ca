// `pstrain train`: passes of accumulate + normalize until the stop rule says so.
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "training/train_loop.h"

namespace pstrain::cli {

int RunTrain(int argc, char** argv) {
  CorpusInputs inputs;
  AccumulateFlags flags;
  TrainOptions options;
  std::string out;
  po::options_description desc("pstrain train options");
  AddCorpusInputOptions(desc, inputs);
  desc.add_options()
      ("out", po::value(&out)->required(), "run directory: RUNDIR/model/ (final model) and RUNDIR/passes/NNN/")
      ("min-passes", po::value(&options.stop.min_passes)->default_value(options.stop.min_passes), "run at least this many passes")
      ("max-passes", po::value(&options.stop.max_passes)->default_value(options.stop.max_passes), "run at most this many passes")
      ("convergence", po::value(&options.stop.convergence)->default_value(options.stop.convergence, "0.1"),
       "converged when the per-frame log-likelihood gain is not above this (SphinxTrain's rule)");
  AddAccumulateOptions(desc, flags);
  po::variables_map vm;
  if (!ParseCommandLine(argc, argv, desc,
                        "usage: pstrain train --model DIR --manifest MANIFEST --dict DICT --filler FILLERDICT --out RUNDIR [options]\n"
                        "Baum-Welch training, pass after pass, until converged or --max-passes.",
                        vm)) {
    return 0;
  }
  options.accumulate = ResolveAccumulateOptions(flags);
  const Manifest manifest = Manifest::Load(inputs.manifest);
  const Dictionary dictionary = LoadMergedDictionary(inputs);
  TrainResult result = Train(inputs.model, manifest, CorpusRoot(inputs), dictionary, options, out, std::cout);
  std::cout << "model: " << result.model_dir.string() << " (" << result.passes << " passes, " << StopDecisionName(result.decision)
            << ")\n";
  return 0;
}

}  // namespace pstrain::cli
