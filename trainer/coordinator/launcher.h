// How the shards of a pass are run. The coordinator only says "run these shard tasks"; a launcher
// decides where: inline in this process (one job), as local worker processes (posix_spawn: worker_process.h), and
// later on a cluster. Whatever runs a task writes its artifact into the task's shard directory;
// the artifacts are the only channel back.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "shards/shard_worker.h"

namespace pstrain {

class Launcher {
 public:
  // Called with the index of a task that finished successfully, on the thread that called Run.
  using TaskDone = std::function<void(std::size_t task)>;
  virtual ~Launcher() = default;
  // Runs every task; returns when all finished. Throws TrainingError naming the shard and the cause
  // (with the tail of its log) when any task fails, after stopping and reaping the others.
  // `on_done` (may be empty) is called once per successful task: the local launchers call it as
  // each task ends, while the others still run, so that the caller can check a shard's artifact
  // on the core its worker has freed; the Slurm launcher calls it for every task, in ascending
  // order, once all have succeeded. An exception from `on_done` stops the running tasks and
  // leaves Run.
  virtual void Run(const std::vector<ShardTask>& tasks, const TaskDone& on_done) = 0;
  virtual std::string name() const = 0;
  // Whether the shards run on this machine and leave their files' fsyncs to the coordinator
  // (ShardTask::coordinator_syncs): RunShardedPass then fsyncs each validated shard's files, the
  // last shard's with the pass's own (common/file_io.h SyncExistingFiles).
  virtual bool coordinator_syncs() const { return false; }
  // Whether Run runs the tasks one after another on the calling thread: while a task runs, only
  // its read-ahead thread uses another CPU, and the rest are free for work of the caller's.
  virtual bool runs_tasks_on_this_thread() const { return false; }
  // Show per-pass progress (shards done of N, utterances per second, time left) on stderr.
  void set_progress(bool enabled) { progress_ = enabled; }

 protected:
  bool progress_ = false;
};

// Runs the tasks one after another in this process (the single-job transport: no process pool).
class InlineLauncher : public Launcher {
 public:
  void Run(const std::vector<ShardTask>& tasks, const TaskDone& on_done) override;
  std::string name() const override { return "inline"; }
  bool coordinator_syncs() const override { return true; }
  bool runs_tasks_on_this_thread() const override { return true; }
};

// Starts `pstrain worker` processes, at most `max_parallel` at a time. Each worker's stdout and
// stderr go to SHARD_DIR/worker.stderr. SIGINT/SIGTERM to the coordinator, or a failing worker,
// kill and reap every worker this launcher started (and only those).
class LocalProcessLauncher : public Launcher {
 public:
  LocalProcessLauncher(std::string pstrain_executable, std::uint32_t max_parallel);
  void Run(const std::vector<ShardTask>& tasks, const TaskDone& on_done) override;
  std::string name() const override { return "local"; }
  // Its workers are its children (--coordinator-pid), on this machine.
  bool coordinator_syncs() const override { return true; }

 private:
  std::string executable_;
  std::uint32_t max_parallel_;
};

// The `pstrain worker` arguments (after the command name) that reproduce `task`.
std::vector<std::string> WorkerArguments(const ShardTask& task);

// The running pstrain binary (/proc/self/exe).
std::string SelfExecutable();

}  // namespace pstrain
