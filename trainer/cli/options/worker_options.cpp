// The command-line options of `pstrain worker` (cli/options/worker_options.h).
#include "cli/options/worker_options.h"

#include "cli/options/option_values.h"
#include "cli/options/pass_inputs_options.h"
#include "coordinator/worker_flags.h"

namespace pstrain::cli {

void AddOptions(po::options_description& desc, WorkerCommandLine& line) {
  AddOptions(desc, line.inputs);
  desc.add_options()
      (worker_flag::kPass, RequiredUnsignedOption<1>(&line.task.pass), "pass number")
      (worker_flag::kShard, RequiredUnsignedOption(&line.task.shard), "shard id (0-based)")
      (worker_flag::kShards, RequiredUnsignedOption<1>(&line.task.shard_count), "shard count")
      (worker_flag::kOut, po::value(&line.task.shard_dir)->required(), "shard directory to write")
      (worker_flag::kCoordinatorPid, UnsignedOption(&line.coordinator_pid), "exit when this process is gone (0: no watch)")
      (worker_flag::kCoordinatorSyncs, YesNoOption(&line.task.coordinator_syncs)->implicit_value(YesNo{true}, "yes"),
       "leave the fsyncs of the shard's files to the coordinator, which runs on this machine: yes|no");
  AddOptions(desc, line.task.inputs);  // --reduction (it enters the configuration fingerprint) and the E-step's
}

}  // namespace pstrain::cli
