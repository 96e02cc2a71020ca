// `pstrain worker`: runs one shard of one pass and writes its artifact (started by the coordinator;
// not meant to be run by hand, but harmless if it is).
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/options/worker_options.h"
#include "common/error.h"
#include "coordinator/worker_failure.h"
#include "provenance/provenance.h"
#include "shards/shard_worker.h"

namespace pstrain::cli {

int RunWorker(int argc, char** argv) {
  WorkerCommandLine line;
  ShardTask& task = line.task;
  const long& coordinator_pid = line.coordinator_pid;
  po::options_description desc("pstrain worker options");
  AddOptions(desc, line);
  if (!ParseCommandLine(argc, argv, desc, "usage: pstrain worker --model DIR --manifest M --dict D --filler F --pass P --shard I --shards N --out DIR [options]\n"
                                          "Runs one shard of one pass (the coordinator starts these).")) {
    return 0;
  }
  if (coordinator_pid > 0) {
    // Die with the coordinator, even in the middle of an utterance.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != coordinator_pid) {
      std::cerr << "pstrain worker: coordinator " << coordinator_pid << " is gone\n";
      return 1;
    }
    // The local launcher hands over the stamp of the binary its own code identity hashed: taken only
    // from that parent (never from an inherited environment, e.g. a Slurm job's), and only for the
    // very same, unchanged file (provenance/code_file_stamps.h).
    if (const char* stamps = std::getenv(kCodeFileStampsVariable)) AcceptCodeFileStamps(DecodeCodeFileStamps(stamps));
  }
  // Bad input (exit 2) is reported to the coordinator in SHARD_DIR/failure.json as well as on stderr,
  // so that it fails the pass as an input error with this message (coordinator/worker_failure.h).
  RequireOutput("--out", task.shard_dir);
  ClearWorkerFailure(task.shard_dir);
  try {
    ResolvePassInputs(line.inputs, task.inputs);
    task.end_process_when_written = true;  // (returns only by an exception)
    RunShardTask(task);
  } catch (const InputError& error) {
    WriteWorkerInputError(task.shard_dir, error.what());
    throw;
  }
  return 0;
}

}  // namespace pstrain::cli
