// `pstrain train`: sharded passes of accumulate + normalize until the stop rule says so.
#include <unistd.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "training/train_loop.h"

namespace pstrain::cli {

int RunTrain(int argc, char** argv) {
  CorpusInputs inputs;
  AccumulateFlags flags;
  TrainOptions options;
  std::string out, reduction = "exact";
  bool quiet = false;
  po::options_description desc("pstrain train options");
  AddCorpusInputOptions(desc, inputs);
  desc.add_options()
      ("out", po::value(&out)->required(), "run directory: RUNDIR/model/ (final model) and RUNDIR/passes/NNN/")
      ("min-passes", UnsignedOption(&options.stop.min_passes), "run at least this many passes")
      ("max-passes", UnsignedOption<1>(&options.stop.max_passes), "run at most this many passes (at least 1)")
      ("convergence", po::value(&options.stop.convergence)->default_value(options.stop.convergence, "0.1"),
       "converged when the per-frame log-likelihood gain is not above this (SphinxTrain's rule)")
      ("jobs", UnsignedOption<1>(&options.requested_jobs),
       "shard worker processes (effective shard count = min(jobs, utterances); 1 runs inline, no process pool)")
      ("reduction", po::value(&reduction)->default_value(reduction),
       "exact: results identical for every shard count; float32: SphinxTrain-style float32 partial sums")
      ("launcher", po::value(&options.launcher)->default_value(options.launcher), "how shard workers are started: local (processes on this machine) or slurm (one job array per pass, docs/slurm.md)")
      ("quiet", po::bool_switch(&quiet), "no progress output");
  AddSlurmOptions(desc, options.slurm);
  AddAccumulateOptions(desc, flags);
  po::variables_map vm;
  if (!ParseCommandLine(argc, argv, desc,
                        "usage: pstrain train --model DIR --manifest MANIFEST --dict DICT --filler FILLERDICT --out RUNDIR [options]\n"
                        "Baum-Welch training, pass after pass, until converged or --max-passes.",
                        vm)) {
    return 0;
  }
  CheckOutputApartFromInputs(out, inputs, {"model", "passes"});  // training replaces RUNDIR/model and RUNDIR/passes/NNN
  options.inputs = ResolvePassInputs(inputs, flags, reduction);
  options.progress = !quiet && ::isatty(STDERR_FILENO);
  TrainResult result = Train(options, out, std::cout);
  if (!quiet || result.cache_hit) {
    std::cout << "model: " << result.model_dir.string() << " (" << result.passes << (result.passes == 1 ? " pass, " : " passes, ") << StopDecisionName(result.decision)
              << (result.cache_hit ? ", cache hit" : "") << ")\n";
  }
  return 0;
}

}  // namespace pstrain::cli
