// The command-line options of LaunchOptions: --jobs, --launcher and the Slurm options.
#include "cli/options/launch_options.h"

#include "cli/options/option_values.h"
#include "cli/options/slurm_options.h"

namespace pstrain::cli {

void AddOptions(po::options_description& desc, LaunchOptions& options) {
  desc.add_options()
      ("jobs", UnsignedOption<1>(&options.jobs),
       "shard worker processes (effective shard count = min(jobs, utterances); 1 runs inline, no process pool)")
      ("launcher", EnumOption(&options.launcher),
       "how shard workers are started: local (processes on this machine) or slurm (one job array per pass, docs/slurm.md)");
  AddOptions(desc, options.slurm);
}

}  // namespace pstrain::cli
