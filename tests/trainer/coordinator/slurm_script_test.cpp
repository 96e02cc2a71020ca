// The Slurm launcher's batch script, run by /bin/sh without Slurm (the array task id set by hand):
// task I runs the worker command for shard I with its own shard directory and no coordinator PID,
// and leaves the exit marker "STATUS NODE JOBID"; an id that is no shard fails. The launcher on a
// real cluster is tested in tests/trainer/coordinator/slurm_launcher_slurm_test.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/file_io.h"
#include "coordinator/pass_runner.h"
#include "coordinator/slurm_launcher.h"
#include "shards/run_layout.h"

namespace pstrain {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::vector<ShardTask> Tasks(const fs::path& pass_dir, std::uint32_t count) {
  PassInputs inputs;
  inputs.model_dir = "/models/it's here";  // a quote, to check the quoting
  inputs.manifest_path = "relative/train.manifest";
  inputs.corpus_root = "/data";
  inputs.dict = "/data/corpus.dic";
  inputs.filler = "/data/corpus.filler";
  return ShardTasks(inputs, 2, count, pass_dir);
}

int RunScript(const fs::path& script, const std::string& task_id, const fs::path& output) {
  const std::string command = "env SLURM_ARRAY_TASK_ID=" + task_id + " SLURM_ARRAY_JOB_ID=4711 SLURMD_NODENAME=node-a sh '" +
                              script.string() + "' > '" + output.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(SlurmBatchScript, EachTaskRunsItsShardAndLeavesAnExitMarker) {
  const fs::path dir = fs::temp_directory_path() / ("pstrain-slurm-script-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "slurm");
  // The "executable" prints its arguments, one per line, and exits with the status in EXIT_WITH.
  const fs::path fake = dir / "fake pstrain";
  WriteFileAtomic(fake, std::string("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\nexit ${EXIT_WITH:-0}\n"));
  fs::permissions(fake, fs::perms::owner_all);
  const std::vector<ShardTask> tasks = Tasks(dir, 3);
  const fs::path script = dir / "slurm" / "array.sh";
  WriteFileAtomic(script, SlurmBatchScript(fake.string(), tasks, (dir / "slurm").string()));

  ASSERT_EQ(RunScript(script, "1", dir / "out-1"), 0) << ReadFileText(dir / "out-1");
  const std::string args = ReadFileText(dir / "out-1");
  EXPECT_THAT(args, HasSubstr("worker\n"));
  EXPECT_THAT(args, HasSubstr("--shard\n1\n"));
  EXPECT_THAT(args, HasSubstr("--shards\n3\n"));
  EXPECT_THAT(args, HasSubstr("--pass\n2\n"));
  EXPECT_THAT(args, HasSubstr("--out\n" + tasks[1].shard_dir + "\n"));
  EXPECT_THAT(args, HasSubstr("--model\n/models/it's here\n"));
  EXPECT_THAT(args, HasSubstr("--manifest\n" + fs::absolute("relative/train.manifest").string() + "\n"))
      << "relative paths are resolved by the coordinator (the task runs elsewhere)";
  EXPECT_THAT(args, HasSubstr("--coordinator-pid\n0\n")) << "a Slurm task has no coordinator parent to watch";
  EXPECT_EQ(ReadFileText(dir / "slurm" / "task-1.exit"), "0 node-a 4711\n");

  ::setenv("EXIT_WITH", "7", 1);
  EXPECT_EQ(RunScript(script, "2", dir / "out-2"), 7);
  ::unsetenv("EXIT_WITH");
  EXPECT_EQ(ReadFileText(dir / "slurm" / "task-2.exit"), "7 node-a 4711\n");

  EXPECT_EQ(RunScript(script, "3", dir / "out-3"), 3);
  EXPECT_THAT(ReadFileText(dir / "out-3"), HasSubstr("array task 3 is not a shard of this pass"));
  EXPECT_FALSE(fs::exists(dir / "slurm" / "task-3.exit"));
  fs::remove_all(dir);
}

TEST(SlurmStates, FinalStatesAreThoseInWhichATaskRunsNoMore) {
  for (const char* state : {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "PREEMPTED", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"}) {
    EXPECT_TRUE(IsFinalSlurmState(state)) << state;
  }
  for (const char* state : {"PENDING", "RUNNING", "COMPLETING", "CONFIGURING", "SUSPENDED", "REQUEUED", "SIGNALING", "STAGE_OUT"}) {
    EXPECT_FALSE(IsFinalSlurmState(state)) << state;
  }
}

}  // namespace
}  // namespace pstrain
