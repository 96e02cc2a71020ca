// The command line of `pstrain worker`: what coordinator/launcher.h WorkerArguments writes, parsed
// back (tests/trainer/coordinator/worker_arguments_test.cpp checks that the two agree).
#pragma once

#include <boost/program_options/options_description.hpp>

#include "cli/options.h"
#include "shards/shard_worker.h"

namespace pstrain::cli {

struct WorkerCommandLine {
  CorpusInputs inputs;        // the paths, resolved into task.inputs by ResolvePassInputs
  ShardTask task;
  long coordinator_pid = 0;   // 0: no watch
};

// Registers every `pstrain worker` option (coordinator/worker_flags.h) into `line`.
void AddOptions(boost::program_options::options_description& desc, WorkerCommandLine& line);

}  // namespace pstrain::cli
