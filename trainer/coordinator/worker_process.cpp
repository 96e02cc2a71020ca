// A local worker process started by posix_spawn (coordinator/worker_process.h).
#include "coordinator/worker_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

extern char** environ;

namespace pstrain {

namespace {

// posix_spawn's file actions and attributes, destroyed on every path.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  int init_error = 0;
  SpawnSetup() {
    init_error = posix_spawn_file_actions_init(&actions);
    if (init_error == 0 && (init_error = posix_spawnattr_init(&attributes)) != 0) posix_spawn_file_actions_destroy(&actions);
  }
  ~SpawnSetup() {
    if (init_error != 0) return;
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
};

// Pointers to each string's characters, then a null pointer: an argv or envp for posix_spawn.
std::vector<char*> NullTerminated(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (std::string& text : strings) pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

WorkerProcess WorkerProcess::Start(const std::string& executable, const std::vector<std::string>& args, const std::filesystem::path& log,
                                   const std::string& variable, const std::string& value, std::error_code& ec) {
  ec.clear();
  WorkerProcess process;
  // The log is opened here, close-on-exec: only the child's descriptors 1 and 2 (dup2 clears the
  // flag) keep it, not a child another thread starts meanwhile.
  int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (log_fd < 0) {
    ec = std::error_code(errno, std::generic_category());
    return process;
  }
  if (log_fd <= 2) {
    // This process runs with one of 0-2 closed: the child's /dev/null or dup2 would overwrite it.
    const int moved = ::fcntl(log_fd, F_DUPFD_CLOEXEC, 3);
    const int saved_errno = errno;
    ::close(log_fd);
    if (moved < 0) {
      ec = std::error_code(saved_errno, std::generic_category());
      return process;
    }
    log_fd = moved;
  }
  std::vector<std::string> env_storage;
  const std::string prefix = variable + "=";
  for (char** entry = environ; entry && *entry; ++entry) {
    if (std::strncmp(*entry, prefix.c_str(), prefix.size()) != 0) env_storage.emplace_back(*entry);
  }
  env_storage.push_back(prefix + value);
  const std::vector<char*> envp = NullTerminated(env_storage);
  std::vector<std::string> argv_storage;
  argv_storage.reserve(args.size() + 1);
  argv_storage.push_back(executable);
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  const std::vector<char*> argv = NullTerminated(argv_storage);

  int error = 0;
  {
    SpawnSetup setup;
    error = setup.init_error;
    sigset_t empty;
    sigemptyset(&empty);
    if (error == 0) error = posix_spawn_file_actions_addopen(&setup.actions, 0, "/dev/null", O_RDONLY, 0);
    if (error == 0) error = posix_spawn_file_actions_adddup2(&setup.actions, log_fd, 1);
    if (error == 0) error = posix_spawn_file_actions_adddup2(&setup.actions, log_fd, 2);
    if (error == 0) error = posix_spawnattr_setsigmask(&setup.attributes, &empty);
    if (error == 0) error = posix_spawnattr_setflags(&setup.attributes, POSIX_SPAWN_SETSIGMASK);
    pid_t pid = -1;
    if (error == 0) error = posix_spawn(&pid, executable.c_str(), &setup.actions, &setup.attributes, argv.data(), envp.data());
    if (error == 0) process.pid_ = pid;
  }
  ::close(log_fd);
  if (error != 0) {
    ec = std::error_code(error, std::generic_category());
    return process;
  }
#if defined(SYS_pidfd_open)
  process.exit_fd_ = static_cast<int>(::syscall(SYS_pidfd_open, process.pid_, 0));
  if (process.exit_fd_ >= 0) ::fcntl(process.exit_fd_, F_SETFD, FD_CLOEXEC);
#endif
  return process;
}

WorkerProcess::WorkerProcess(WorkerProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      exit_fd_(std::exchange(other.exit_fd_, -1)),
      reaped_(other.reaped_),
      status_(other.status_) {}

WorkerProcess& WorkerProcess::operator=(WorkerProcess&& other) noexcept {
  if (this != &other) {
    Release();
    pid_ = std::exchange(other.pid_, -1);
    exit_fd_ = std::exchange(other.exit_fd_, -1);
    reaped_ = other.reaped_;
    status_ = other.status_;
  }
  return *this;
}

WorkerProcess::~WorkerProcess() { Release(); }

void WorkerProcess::Release() {
  if (pid_ > 0 && !reaped_) Kill();
  if (exit_fd_ >= 0) ::close(exit_fd_);
  pid_ = -1;
  exit_fd_ = -1;
  reaped_ = false;
  status_ = 0;
}

bool WorkerProcess::Reap(int options) {
  int status = 0;
  pid_t result;
  do {
    result = ::waitpid(pid_, &status, options);
  } while (result < 0 && errno == EINTR);
  if (result == 0) return false;  // (WNOHANG: still running)
  reaped_ = true;
  // (-1: reaped by someone else, ECHILD; a status neither WIFEXITED nor WIFSIGNALED)
  status_ = result == pid_ ? status : -1;
  return true;
}

bool WorkerProcess::Running() {
  if (pid_ <= 0 || reaped_) return false;
  return !Reap(WNOHANG);
}

int WorkerProcess::Wait() {
  if (pid_ > 0 && !reaped_) Reap(0);
  return status_;
}

void WorkerProcess::Kill() {
  if (pid_ <= 0 || reaped_) return;
  ::kill(pid_, SIGKILL);  // (not yet reaped: the pid is still this child's, even if it has exited)
  Wait();
}

}  // namespace pstrain
