// The Slurm launcher (issue #7): each pass's shards are submitted as one job array
// (`sbatch --array=0-(N-1)`); array task i runs `pstrain worker` for shard i and writes its
// artifact into the shard directory on the shared filesystem, exactly as a local worker does. The
// coordinator then validates and reduces exactly as with the local launcher.
//
// Per pass, PASS_DIR/slurm/ holds what Slurm needs and what it reports (telemetry: nondeterministic
// and never compared, docs/contract.md):
//   array.sh          the batch script (one for every task; the task picks its shard from
//                     SLURM_ARRAY_TASK_ID)
//   task-I.out        the task's stdout and stderr (task-I.retry.out for a resubmitted task)
//   task-I.exit       written by the batch script after the worker ends: "STATUS NODE JOBID"
//                     (JOBID: the array's job id; markers of other jobs are ignored)
//   job.json          job ids, per-task state, exit status, node and output file, retries
//
// Waiting: the coordinator looks for the tasks' exit markers (an open on the shared filesystem,
// every 200 ms, less often for large arrays) and asks the controller (`squeue`, with a back-off from 1 s to 15 s) only to notice tasks
// that ended without a marker (cancelled, timed out, preempted, node failure). No accounting
// (slurmdbd/sacct) is needed. Any failed task fails the pass naming the task (= shard), its state and
// the tail of its output and worker.log, after cancelling the rest of the array; SIGINT/SIGTERM
// cancel the array (`scancel`) and wait until the controller shows none of its tasks active. With
// `retry_failed`, tasks that failed are resubmitted once (a second array of just those ids) before
// the pass is failed; the retry is recorded in job.json.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coordinator/launcher.h"

namespace pstrain {

struct SlurmOptions {
  std::string partition;                // --partition, empty: the cluster's default
  std::vector<std::string> sbatch_args;  // extra sbatch arguments, one each (e.g. --account=A)
  bool retry_failed = false;             // resubmit failed tasks once
};

class SlurmLauncher : public Launcher {
 public:
  SlurmLauncher(std::string pstrain_executable, SlurmOptions options);
  void Run(const std::vector<ShardTask>& tasks, const TaskDone& on_done) override;
  std::string name() const override { return "slurm"; }

 private:
  std::string executable_;
  SlurmOptions options_;
};

// The batch script that runs `executable worker ...` for the shard SLURM_ARRAY_TASK_ID of `tasks`
// and writes SLURM_DIR/task-I.exit. Exposed for tests.
std::string SlurmBatchScript(const std::string& executable, const std::vector<ShardTask>& tasks, const std::string& slurm_dir);

// "COMPLETED", "TIMEOUT" ...: true for the states in which a task will not run any more.
bool IsFinalSlurmState(const std::string& state);

}  // namespace pstrain
