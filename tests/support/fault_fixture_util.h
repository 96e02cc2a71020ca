// Helpers for the artifact-validation and fault tests: per-test scratch directories, `pstrain train`
// command lines on the default corpus, deterministic tree digests, and process control (start a
// coordinator in its own process group, find its workers in /proc, signal them, verify by PID that
// they are gone, and never leave a process behind).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pstrain::testing {

// A fresh directory private to the running test: test-scratch/GROUP/SUITE.TEST/NAME. Tests of the
// same file may run in parallel under ctest, so nothing is shared between tests.
std::filesystem::path TestScratchDir(const std::string& group, const std::string& name);

// `pstrain train` on the default corpus as an argv (argv[0] is the pstrain binary). An empty
// `manifest` or `model` means TrainManifest() / An4Model().
std::vector<std::string> TrainArgv(const std::filesystem::path& run_dir, const std::vector<std::string>& extra,
                                   const std::filesystem::path& manifest = {}, const std::filesystem::path& model = {});
// `argv` as one shell command line, every argument quoted.
std::string ShellCommand(const std::vector<std::string>& argv);


// --- Processes -------------------------------------------------------------------------------

// A PID plus its start time (field 22 of /proc/PID/stat), so a reused PID is not mistaken for it.
struct ProcessIdentity {
  pid_t pid = 0;
  unsigned long long start_time = 0;
};
std::optional<ProcessIdentity> IdentifyProcess(pid_t pid);

// True while the process exists and is not a zombie (a zombie has ended; it is reaped here when it
// is a child of this process).
bool IsRunning(const ProcessIdentity& process);

// Polls every 20 ms until none of `processes` is running or `limit` has passed; returns those
// still running.
std::vector<ProcessIdentity> WaitUntilGone(const std::vector<ProcessIdentity>& processes, std::chrono::milliseconds limit);

// A `pstrain worker` child of a coordinator, with its --shard and --pass arguments.
struct WorkerProcess {
  ProcessIdentity id;
  int shard = -1;
  int pass = -1;
};
// The running `pstrain worker` processes whose parent is `coordinator` (read from /proc).
std::vector<WorkerProcess> WorkersOf(pid_t coordinator);
// Polls until `coordinator` has exactly `count` running workers of pass `pass` (and no other);
// returns them in shard order, or what it found last when `limit` passes.
std::vector<WorkerProcess> WaitForWorkers(pid_t coordinator, int pass, std::size_t count, std::chrono::milliseconds limit);

// Running processes (not zombies) whose command line contains `text`, e.g. a test's private run
// directory: what a failed run may have left behind.
std::vector<ProcessIdentity> RunningProcessesMentioning(const std::string& text);

// Makes this process the subreaper of its descendants (prctl PR_SET_CHILD_SUBREAPER): workers
// orphaned by a killed coordinator are re-parented here and can be reaped (PID 1 of a container
// often never reaps them).
void BecomeChildSubreaper();

// A process started with fork+exec in a new process group (its own PID), signal dispositions reset
// to default, stdin from /dev/null, stdout and stderr into `output`. The environment is this
// process's, without PSTRAIN_FAULT_INJECTION, plus `extra_env` ("NAME=value").
// The destructor SIGKILLs the whole process group (the coordinator and any worker it left
// behind) and reaps the child: no test leaks a process, whatever fails.
class SpawnedProcess {
 public:
  SpawnedProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env, std::filesystem::path output);
  ~SpawnedProcess();
  SpawnedProcess(const SpawnedProcess&) = delete;
  SpawnedProcess& operator=(const SpawnedProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool started() const { return pid_ > 0; }
  void Signal(int signal_number) const;
  // Waits up to `limit` for the process to end and reaps it; false if it is still running.
  bool WaitForExit(std::chrono::milliseconds limit);
  bool exited() const { return reaped_; }
  int wait_status() const { return wait_status_; }  // valid once exited()
  std::string Output() const;
  // Remembers a process (a worker) to SIGKILL and reap in KillEverything().
  void Track(const ProcessIdentity& process) { tracked_.push_back(process); }
  // SIGKILL to the process group and to tracked processes; reaps what is ours.
  void KillEverything();

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  int wait_status_ = 0;
  std::filesystem::path output_;
  std::vector<ProcessIdentity> tracked_;
};

// A process that ran to its end: its wait status and output.
struct FinishedProcess {
  int status = -1;
  std::string output;
};
// Waits up to two minutes for `p` (started with `argv`) to end; a process still running then is a
// test failure and is killed with everything it tracks.
FinishedProcess WaitToEnd(SpawnedProcess& p, const std::vector<std::string>& argv);

// "exit 1", "signal 9" ...: a wait status for messages.
std::string DescribeWaitStatus(int status);

}  // namespace pstrain::testing
