// One local worker process: started by posix_spawn, watched through a pidfd, reaped once.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace pstrain {

// A child process started with posix_spawn (glibc's: a vfork-style clone, so the coordinator's
// address space is never copied, however large its model, and the call returns once the child has
// exec'd, reporting an exec failure as its error). Its stdin reads /dev/null; its stdout and stderr
// share one descriptor on `log` (created, or truncated); its environment is this process's with
// `variable` set to `value` (replacing any value it had). The signal mask is emptied for the child;
// handled signals revert to their defaults at exec and ignored ones stay ignored, as with fork and
// exec (a coordinator started under nohup passes SIGHUP's disposition on).
//
// A process still running when its WorkerProcess is destroyed is killed (SIGKILL) and reaped, so
// that no worker outlives the launcher that started it.
class WorkerProcess {
 public:
  // Starts `executable` with argv = {executable, args...}. On failure `ec` is set (the errno of the
  // failing step: opening the log, spawning, exec) and the result is not started().
  static WorkerProcess Start(const std::string& executable, const std::vector<std::string>& args, const std::filesystem::path& log,
                             const std::string& variable, const std::string& value, std::error_code& ec);

  WorkerProcess() = default;
  WorkerProcess(WorkerProcess&& other) noexcept;
  WorkerProcess& operator=(WorkerProcess&& other) noexcept;
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;
  ~WorkerProcess();

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // A pidfd (Linux 5.3+): readable (poll) the moment the process exits; -1 where the kernel has
  // none (the caller then polls Running() on a timer).
  int exit_fd() const { return exit_fd_; }

  // Whether it still runs; the first look that finds it ended reaps it and keeps its status.
  bool Running();
  // Blocks until it has ended (reaping it, once) and returns its wait status (WIFEXITED, ...).
  int Wait();
  // SIGKILL if it still runs, then Wait().
  void Kill();

 private:
  void Release();
  // waitpid with `options` (0 or WNOHANG); false when WNOHANG found it still running, else it is
  // reaped and its status kept (-1 when another waiter reaped it: ECHILD).
  bool Reap(int options);

  pid_t pid_ = -1;
  int exit_fd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
};

}  // namespace pstrain
