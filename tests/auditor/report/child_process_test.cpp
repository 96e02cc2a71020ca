// Tests for the auditor's child-process runner (auditor/report/child_process.h).
#include "report/child_process.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "common/file_io.h"

namespace pstrain::audit {
namespace {

namespace fs = std::filesystem;

class ChildProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pstrain-child-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ChildProcessTest, CapturesBothStreamsAndTheEnvironment) {
  ::setenv("PSTRAIN_CHILD_TEST_UNSET", "inherited", 1);
  std::ostringstream echo;
  ChildCommand command;
  command.argv = {"sh", "-c", "echo out:$PSTRAIN_CHILD_TEST_SET; echo err:${PSTRAIN_CHILD_TEST_UNSET:-gone} >&2; exit 3"};
  command.unset_env = {"PSTRAIN_CHILD_TEST_UNSET"};
  command.set_env = {{"PSTRAIN_CHILD_TEST_SET", "given"}};
  command.log = dir_ / "log";
  command.echo = &echo;
  const ChildOutcome outcome = RunChild(command);
  ::unsetenv("PSTRAIN_CHILD_TEST_UNSET");
  ASSERT_TRUE(outcome.started) << outcome.error;
  EXPECT_FALSE(outcome.Succeeded());
  EXPECT_EQ(outcome.exit_code, 3);
  EXPECT_EQ(outcome.Describe(), "exited with status 3");
  const std::string log = ReadFileText(command.log);
  EXPECT_NE(log.find("out:given\n"), std::string::npos) << log;
  EXPECT_NE(log.find("err:gone\n"), std::string::npos) << log;
  EXPECT_EQ(echo.str(), log);
}

TEST_F(ChildProcessTest, ReportsASignal) {
  const ChildOutcome outcome = RunChild({{"sh", "-c", "kill -TERM $$"}, {}, {}, dir_ / "log", nullptr});
  ASSERT_TRUE(outcome.started);
  EXPECT_TRUE(outcome.signalled);
  EXPECT_EQ(outcome.signal, 15);
  EXPECT_NE(outcome.Describe().find("was killed by signal 15"), std::string::npos) << outcome.Describe();
}

TEST_F(ChildProcessTest, AProgramThatIsNotThereDoesNotStart) {
  const ChildOutcome missing = RunChild({{"pstrain-no-such-program"}, {}, {}, dir_ / "log", nullptr});
  EXPECT_FALSE(missing.started);
  EXPECT_NE(missing.error.find("not on PATH"), std::string::npos) << missing.error;
  const ChildOutcome bad_log = RunChild({{"true"}, {}, {}, dir_ / "no-dir" / "log", nullptr});
  EXPECT_FALSE(bad_log.started);
  EXPECT_NE(bad_log.Describe().find("cannot write the log"), std::string::npos) << bad_log.Describe();
  EXPECT_TRUE(RunChild({{"true"}, {}, {}, dir_ / "log", nullptr}).Succeeded());
}

}  // namespace
}  // namespace pstrain::audit
