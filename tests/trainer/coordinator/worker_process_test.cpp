// Tests the local launcher's process start (coordinator/worker_process.h) with real child
// processes (/bin/sh): one log for stdout and stderr, stdin from /dev/null, the one variable set
// in the environment, an empty signal mask, exec failures reported, exits and kills reaped.
#include "coordinator/worker_process.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/test_util.h"

namespace pstrain {
namespace {

namespace fs = std::filesystem;

class WorkerProcessTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::FreshDir("worker_process_" + std::to_string(::getpid())); }
  void TearDown() override { fs::remove_all(dir_); }

  // `script` run by /bin/sh, its output in dir_/log.
  WorkerProcess Shell(const std::string& script, std::error_code& ec, const std::string& variable = "PSTRAIN_TEST_VARIABLE",
                      const std::string& value = "set") {
    return WorkerProcess::Start("/bin/sh", {"-c", script}, dir_ / "log", variable, value, ec);
  }
  std::string Log() const {
    std::ifstream in(dir_ / "log");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path dir_;
};

TEST_F(WorkerProcessTest, StdoutAndStderrShareOneLogInTheOrderWritten) {
  std::ofstream(dir_ / "log") << "an older and longer log that must not survive\n";
  std::error_code ec;
  WorkerProcess process = Shell("echo out1; echo err1 >&2; echo out2; echo err2 >&2; exit 3", ec);
  ASSERT_FALSE(ec) << ec.message();
  ASSERT_TRUE(process.started());
  const int status = process.Wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  // Two descriptors opened apart would each write from offset 0, the later lines over the earlier.
  EXPECT_EQ(Log(), "out1\nerr1\nout2\nerr2\n");
}

TEST_F(WorkerProcessTest, StdinIsDevNull) {
  std::error_code ec;
  WorkerProcess process = Shell("readlink /proc/self/fd/0; n=$(cat | wc -c); echo \"read $n\"", ec);
  ASSERT_FALSE(ec) << ec.message();
  const int status = process.Wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(Log(), "/dev/null\nread 0\n");
}

TEST_F(WorkerProcessTest, TheLogIsTheChildsOutputEvenWhenThisProcessHasNoStdin) {
  // With descriptor 0 closed here the log opens as 0, which the child's /dev/null would replace.
  const int saved = ::dup(0);
  ASSERT_GE(saved, 0);
  ASSERT_EQ(::close(0), 0);
  std::error_code ec;
  WorkerProcess process = Shell("echo out; echo err >&2", ec);
  ASSERT_EQ(::dup2(saved, 0), 0);
  ::close(saved);
  ASSERT_FALSE(ec) << ec.message();
  process.Wait();
  EXPECT_EQ(Log(), "out\nerr\n");
}

TEST_F(WorkerProcessTest, TheVariableReplacesItsOldValueAndTheRestOfTheEnvironmentStays) {
  ASSERT_EQ(::setenv("PSTRAIN_TEST_VARIABLE", "old", 1), 0);
  ASSERT_EQ(::setenv("PSTRAIN_TEST_OTHER", "kept", 1), 0);
  std::error_code ec;
  WorkerProcess process =
      Shell("env | grep -c '^PSTRAIN_TEST_VARIABLE=' ; echo \"$PSTRAIN_TEST_VARIABLE $PSTRAIN_TEST_OTHER\"", ec, "PSTRAIN_TEST_VARIABLE",
            "new value");
  ::unsetenv("PSTRAIN_TEST_VARIABLE");
  ::unsetenv("PSTRAIN_TEST_OTHER");
  ASSERT_FALSE(ec) << ec.message();
  process.Wait();
  EXPECT_EQ(Log(), "1\nnew value kept\n");
}

TEST_F(WorkerProcessTest, TheChildStartsWithNoSignalBlocked) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  sigaddset(&block, SIGTERM);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &block, &old), 0);
  std::error_code ec;
  WorkerProcess process = Shell("exec grep '^SigBlk:' /proc/self/status", ec);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ASSERT_FALSE(ec) << ec.message();
  process.Wait();
  EXPECT_EQ(Log(), "SigBlk:\t0000000000000000\n");
}

TEST_F(WorkerProcessTest, AnExecutableThatCannotRunIsAnErrorAndNoProcess) {
  std::error_code ec;
  WorkerProcess missing = WorkerProcess::Start((dir_ / "no-such-binary").string(), {}, dir_ / "log", "V", "v", ec);
  EXPECT_EQ(ec, std::errc::no_such_file_or_directory) << ec.message();
  EXPECT_FALSE(missing.started());
  EXPECT_FALSE(missing.Running());

  std::ofstream(dir_ / "not-executable") << "#!/bin/sh\nexit 0\n";
  WorkerProcess refused = WorkerProcess::Start((dir_ / "not-executable").string(), {}, dir_ / "log", "V", "v", ec);
  EXPECT_EQ(ec, std::errc::permission_denied) << ec.message();
  EXPECT_FALSE(refused.started());

  WorkerProcess no_log = WorkerProcess::Start("/bin/sh", {"-c", "exit 0"}, dir_ / "missing-dir" / "log", "V", "v", ec);
  EXPECT_EQ(ec, std::errc::no_such_file_or_directory) << ec.message();
  EXPECT_FALSE(no_log.started());
}

TEST_F(WorkerProcessTest, TheExitFdTurnsReadableAtTheExitAndRunningReapsOnce) {
  // The child runs until the test creates `flag`.
  const fs::path flag = dir_ / "flag";
  std::error_code ec;
  WorkerProcess process = Shell("while [ ! -e '" + flag.string() + "' ]; do sleep 0.01; done; exit 5", ec);
  ASSERT_FALSE(ec) << ec.message();
  ASSERT_GE(process.exit_fd(), 0) << "this kernel has pidfd_open (Linux 5.3+)";
  EXPECT_TRUE(process.Running());
  pollfd polled{process.exit_fd(), POLLIN, 0};
  EXPECT_EQ(::poll(&polled, 1, 0), 0) << "readable before the exit";
  std::ofstream(flag) << "go\n";
  ASSERT_EQ(::poll(&polled, 1, 10000), 1) << "not readable 10 s after the child was told to exit";
  EXPECT_FALSE(process.Running());
  EXPECT_FALSE(process.Running());
  const int status = process.Wait();  // the status Running() reaped
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 5);
  errno = 0;
  EXPECT_EQ(::waitpid(process.pid(), nullptr, WNOHANG), -1) << "reaped twice";
  EXPECT_EQ(errno, ECHILD);
}

TEST_F(WorkerProcessTest, KillAndTheDestructorLeaveNoChildBehind) {
  std::error_code ec;
  WorkerProcess killed = Shell("exec sleep 60", ec);
  ASSERT_FALSE(ec) << ec.message();
  killed.Kill();
  EXPECT_FALSE(killed.Running());
  const int status = killed.Wait();
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);

  pid_t pid = -1;
  {
    WorkerProcess dropped = Shell("exec sleep 60", ec);
    ASSERT_FALSE(ec) << ec.message();
    pid = dropped.pid();
    ASSERT_GT(pid, 0);
  }
  errno = 0;
  EXPECT_EQ(::kill(pid, 0), -1) << "pid " << pid << " still exists after its WorkerProcess ended";
  EXPECT_EQ(errno, ESRCH);
}

TEST_F(WorkerProcessTest, AssigningOverARunningProcessKillsAndReapsIt) {
  std::error_code ec;
  WorkerProcess process = Shell("exec sleep 60", ec);
  ASSERT_FALSE(ec) << ec.message();
  const pid_t replaced = process.pid();
  process = Shell("exit 0", ec);
  ASSERT_FALSE(ec) << ec.message();
  errno = 0;
  EXPECT_EQ(::kill(replaced, 0), -1) << "pid " << replaced << " still exists after being assigned over";
  EXPECT_EQ(errno, ESRCH);
  EXPECT_NE(process.pid(), replaced);
  process.Wait();
}

TEST_F(WorkerProcessTest, AMovedProcessIsOwnedOnce) {
  std::error_code ec;
  WorkerProcess first = Shell("exit 7", ec);
  ASSERT_FALSE(ec) << ec.message();
  const pid_t pid = first.pid();
  WorkerProcess second = std::move(first);
  EXPECT_FALSE(first.started());  // NOLINT(bugprone-use-after-move): moved-from state is specified
  EXPECT_EQ(second.pid(), pid);
  const int status = second.Wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

}  // namespace
}  // namespace pstrain
