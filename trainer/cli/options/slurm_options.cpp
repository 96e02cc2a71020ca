// The command-line options of SlurmOptions: --slurm-partition, --slurm-opt, --retry-failed-shards.
#include "cli/options/slurm_options.h"

#include "cli/options/option_values.h"

namespace pstrain::cli {

void AddOptions(po::options_description& desc, SlurmOptions& options) {
  desc.add_options()
      ("slurm-partition", po::value(&options.partition), "--launcher slurm: the partition to submit to (default: the cluster's)")
      ("slurm-opt", po::value(&options.sbatch_args)->composing(),
       "--launcher slurm: one more sbatch argument, e.g. --slurm-opt=--account=A --slurm-opt=--time=30 (repeatable; default: none)")
      ("retry-failed-shards", po::bool_switch(&options.retry_failed),
       "--launcher slurm: resubmit the failed tasks of a pass once before failing it (recorded in passes/NNN/slurm/job.json; default: off)");
}

}  // namespace pstrain::cli
