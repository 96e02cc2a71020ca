// Helpers of the artifact-validation and fault tests: scratch directories, training runs, tampering.
#include "support/fault_fixture_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/sha256.h"
#include "support/test_util.h"

extern char** environ;

namespace pstrain::testing {

namespace fs = std::filesystem;

fs::path TestScratchDir(const std::string& group, const std::string& name) {
  std::string test = "no-test";
  if (const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info()) {
    test = std::string(info->test_suite_name()) + "." + info->name();
  }
  std::replace(test.begin(), test.end(), '/', '_');
  return FreshDir(group + "/" + test + "/" + name);
}

std::vector<std::string> TrainArgv(const fs::path& run_dir, const std::vector<std::string>& extra, const fs::path& manifest,
                                   const fs::path& model) {
  const fs::path corpus = CorpusDir();
  std::vector<std::string> argv = {PSTRAIN_BINARY,
                                   "train",
                                   "--model",
                                   (model.empty() ? An4Model() : model).string(),
                                   "--manifest",
                                   (manifest.empty() ? TrainManifest() : manifest).string(),
                                   "--dict",
                                   (corpus / "corpus.dic").string(),
                                   "--filler",
                                   (corpus / "corpus.filler").string(),
                                   "--out",
                                   run_dir.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

std::string ShellCommand(const std::vector<std::string>& argv) {
  std::string command;
  for (const std::string& arg : argv) {
    if (!command.empty()) command += ' ';
    command += ShellQuote(arg);
  }
  return command;
}

// --- Processes -------------------------------------------------------------------------------

namespace {

struct ProcStat {
  char state = '?';
  pid_t ppid = 0;
  pid_t pgrp = 0;
  unsigned long long start_time = 0;
};

std::optional<ProcStat> ReadProcStat(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!in || !std::getline(in, text)) return std::nullopt;
  const std::size_t close = text.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 1));
  std::vector<std::string> f;  // f[0] is field 3 (state)
  for (std::string field; fields >> field;) f.push_back(field);
  if (f.size() < 20) return std::nullopt;
  ProcStat stat;
  stat.state = f[0].empty() ? '?' : f[0][0];
  stat.ppid = static_cast<pid_t>(std::stol(f[1]));
  stat.pgrp = static_cast<pid_t>(std::stol(f[2]));
  stat.start_time = std::stoull(f[19]);  // field 22
  return stat;
}

std::vector<std::string> ReadCmdline(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string arg; std::getline(in, arg, '\0');) args.push_back(arg);
  return args;
}

int ArgValue(const std::vector<std::string>& args, const std::string& flag) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == flag) {
      try {
        return std::stoi(args[i + 1]);
      } catch (const std::exception&) {
        return -1;
      }
    }
  }
  return -1;
}

// True when a live process is in process group `pgid`.
bool GroupHasMembers(pid_t pgid) {
  bool found = false;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return false;
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    const std::optional<ProcStat> stat = ReadProcStat(static_cast<pid_t>(pid));
    if (stat && stat->pgrp == pgid && stat->state != 'Z' && stat->state != 'X') {
      found = true;
      break;
    }
  }
  ::closedir(proc);
  return found;
}

}  // namespace

std::optional<ProcessIdentity> IdentifyProcess(pid_t pid) {
  const std::optional<ProcStat> stat = ReadProcStat(pid);
  if (!stat) return std::nullopt;
  return ProcessIdentity{pid, stat->start_time};
}

bool IsRunning(const ProcessIdentity& process) {
  const std::optional<ProcStat> stat = ReadProcStat(process.pid);
  if (!stat || stat->start_time != process.start_time) return false;  // gone (or the PID was reused)
  if (stat->state == 'Z' || stat->state == 'X') {
    ::waitpid(process.pid, nullptr, WNOHANG);  // reaps it if it is our child (we may be its subreaper)
    return false;
  }
  return true;
}

std::vector<ProcessIdentity> WaitUntilGone(const std::vector<ProcessIdentity>& processes, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::vector<ProcessIdentity> running;
  for (;;) {
    running.clear();
    for (const ProcessIdentity& p : processes) {
      if (IsRunning(p)) running.push_back(p);
    }
    if (running.empty() || std::chrono::steady_clock::now() >= deadline) return running;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::vector<WorkerProcess> WorkersOf(pid_t coordinator) {
  std::vector<WorkerProcess> workers;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return workers;
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    const std::optional<ProcStat> stat = ReadProcStat(static_cast<pid_t>(pid));
    if (!stat || stat->ppid != coordinator || stat->state == 'Z' || stat->state == 'X') continue;
    const std::vector<std::string> args = ReadCmdline(static_cast<pid_t>(pid));
    // Between fork and exec a child still shows the coordinator's command line: not a worker yet.
    if (args.size() < 2 || args[1] != "worker") continue;
    workers.push_back({{static_cast<pid_t>(pid), stat->start_time}, ArgValue(args, "--shard"), ArgValue(args, "--pass")});
  }
  ::closedir(proc);
  std::sort(workers.begin(), workers.end(), [](const WorkerProcess& a, const WorkerProcess& b) { return a.shard < b.shard; });
  return workers;
}

std::vector<WorkerProcess> WaitForWorkers(pid_t coordinator, int pass, std::size_t count, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::vector<WorkerProcess> workers;
  for (;;) {
    workers = WorkersOf(coordinator);
    const bool all_of_pass = std::all_of(workers.begin(), workers.end(), [&](const WorkerProcess& w) { return w.pass == pass; });
    if ((workers.size() == count && all_of_pass) || std::chrono::steady_clock::now() >= deadline) return workers;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::vector<ProcessIdentity> RunningProcessesMentioning(const std::string& text) {
  std::vector<ProcessIdentity> found;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return found;
  const pid_t self = ::getpid();
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0' || pid == self) continue;
    const std::optional<ProcStat> stat = ReadProcStat(static_cast<pid_t>(pid));
    if (!stat || stat->state == 'Z' || stat->state == 'X') continue;
    for (const std::string& arg : ReadCmdline(static_cast<pid_t>(pid))) {
      if (arg.find(text) != std::string::npos) {
        found.push_back({static_cast<pid_t>(pid), stat->start_time});
        break;
      }
    }
  }
  ::closedir(proc);
  return found;
}

void BecomeChildSubreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

SpawnedProcess::SpawnedProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env, fs::path output)
    : output_(std::move(output)) {
  // Everything the child needs is built before fork().
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "PSTRAIN_FAULT_INJECTION=", 24) != 0) env.emplace_back(*e);
  }
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> argv_ptrs, env_ptrs;
  for (const std::string& a : argv) argv_ptrs.push_back(const_cast<char*>(a.c_str()));
  argv_ptrs.push_back(nullptr);
  for (const std::string& e : env) env_ptrs.push_back(const_cast<char*>(e.c_str()));
  env_ptrs.push_back(nullptr);
  const std::string output_path = output_.string();
  const int out_fd = ::open(output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out_fd < 0 || null_fd < 0 || argv.empty()) {
    ADD_FAILURE() << "cannot prepare to start " << (argv.empty() ? "(nothing)" : argv[0]) << ": " << std::strerror(errno);
    if (out_fd >= 0) ::close(out_fd);
    if (null_fd >= 0) ::close(null_fd);
    return;
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    struct sigaction action {};
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    for (int s : {SIGINT, SIGTERM, SIGQUIT, SIGPIPE, SIGHUP, SIGCHLD}) ::sigaction(s, &action, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::dup2(null_fd, 0);
    ::dup2(out_fd, 1);
    ::dup2(out_fd, 2);
    ::execve(argv_ptrs[0], argv_ptrs.data(), env_ptrs.data());
    ::_exit(127);
  }
  ::close(out_fd);
  ::close(null_fd);
  if (pid < 0) {
    ADD_FAILURE() << "fork failed: " << std::strerror(errno);
    return;
  }
  ::setpgid(pid, pid);  // also here, so the group exists before anyone signals it (EACCES after exec is harmless)
  pid_ = pid;
}

SpawnedProcess::~SpawnedProcess() { KillEverything(); }

void SpawnedProcess::Signal(int signal_number) const {
  if (pid_ > 0 && !reaped_) ::kill(pid_, signal_number);
}

bool SpawnedProcess::WaitForExit(std::chrono::milliseconds limit) {
  if (pid_ <= 0) return false;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!reaped_) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      wait_status_ = status;
      break;
    }
    if (r < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return reaped_;
}

std::string SpawnedProcess::Output() const {
  std::ifstream in(output_, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void SpawnedProcess::KillEverything() {
  if (pid_ <= 0) return;
  // The group (the child's PID) holds the coordinator and every worker it started. The kernel does
  // not hand that number out again while the unreaped leader or any member exists, so the group is
  // only signalled then.
  if (!reaped_ || GroupHasMembers(pid_)) ::kill(-pid_, SIGKILL);
  if (!reaped_) {
    int status = 0;
    if (::waitpid(pid_, &status, 0) == pid_) {
      reaped_ = true;
      wait_status_ = status;
    }
  }
  for (const ProcessIdentity& p : tracked_) {
    if (IsRunning(p)) ::kill(p.pid, SIGKILL);
  }
  WaitUntilGone(tracked_, std::chrono::seconds(5));  // reaps orphaned workers re-parented to us
}

FinishedProcess WaitToEnd(SpawnedProcess& p, const std::vector<std::string>& argv) {
  using namespace std::chrono_literals;
  if (!p.WaitForExit(120s)) {
    ADD_FAILURE() << "still running after 120 s: " << ShellCommand(argv);
    p.KillEverything();
  }
  return {p.wait_status(), p.Output()};
}

std::string DescribeWaitStatus(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

}  // namespace pstrain::testing
