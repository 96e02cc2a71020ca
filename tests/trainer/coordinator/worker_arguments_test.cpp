// Tests that the worker's command line has one spelling (coordinator/worker_flags.h): the argv
// that the coordinator builds for a shard task (coordinator/launcher.h WorkerArguments) parses
// back, through `pstrain worker`'s own options (cli/options/worker_options.h), to the same task.
#include "cli/options/worker_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "coordinator/launcher.h"
#include "coordinator/worker_flags.h"
#include "provenance/fingerprints.h"
#include "shards/run_layout.h"

namespace pstrain {
namespace {

// Parses `args` (args[0] is the command name, "worker") as `pstrain worker` does.
cli::WorkerCommandLine ParseWorker(std::vector<std::string> args) {
  cli::WorkerCommandLine line;
  cli::po::options_description desc("worker");
  cli::AddOptions(desc, line);
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  EXPECT_TRUE(cli::ParseCommandLine(static_cast<int>(argv.size()), argv.data(), desc, "usage: test"));
  cli::ResolvePassInputs(line.inputs, line.task.inputs);
  return line;
}

// Every member of a task, none at its default.
ShardTask UnusualTask() {
  ShardTask task;
  PassInputs& in = task.inputs;
  in.model_dir = "/m/model dir";
  in.manifest_path = "/c/train.manifest";
  in.corpus_root = "/c/root";
  in.dict = "/c/words.dic";
  in.filler = "/c/words.filler";
  in.reduction = ReductionMode::kFloat32;
  AccumulateOptions& o = in.options;
  o.features.cmn = CmnMode::kNone;
  o.features.varnorm = false;  // --varnorm yes needs --cmn batch
  o.model.topn = 4;
  o.model.varfloor = 3e-3f;
  o.model.mwfloor = 1.5e-7f;
  o.model.tpfloor = 2.5e-5f;
  o.fb.beams = {1e-61, 1e-13};
  o.fb.spthresh = 1e-7;
  o.fb.pass2var = true;
  o.multipron = true;
  o.retry_beams = {{1e-123, 1e-23}};
  task.pass = 3;
  task.shard = 2;
  task.shard_count = 5;
  task.shard_dir = (StagingPassDir("/r", 3) / ShardDirName(2)).string();
  task.coordinator_syncs = true;
  return task;
}

void ExpectSameTask(const cli::WorkerCommandLine& parsed, const ShardTask& task) {
  EXPECT_EQ(parsed.task.pass, task.pass);
  EXPECT_EQ(parsed.task.shard, task.shard);
  EXPECT_EQ(parsed.task.shard_count, task.shard_count);
  EXPECT_EQ(parsed.task.shard_dir, task.shard_dir);
  EXPECT_EQ(parsed.task.coordinator_syncs, task.coordinator_syncs);
  EXPECT_EQ(parsed.coordinator_pid, ::getpid());
  const PassInputs& a = parsed.task.inputs;
  const PassInputs& b = task.inputs;
  EXPECT_EQ(a.model_dir, b.model_dir);
  EXPECT_EQ(a.manifest_path, b.manifest_path);
  EXPECT_EQ(a.corpus_root, b.corpus_root);
  EXPECT_EQ(a.dict, b.dict);
  EXPECT_EQ(a.filler, b.filler);
  EXPECT_EQ(a.reduction, b.reduction);
  // Every option that affects the numbers, as the configuration fingerprint spells it.
  EXPECT_EQ(CanonicalConfig(a.options, a.reduction, "d"), CanonicalConfig(b.options, b.reduction, "d"));
  EXPECT_EQ(a.options.features.ceplen, b.options.features.ceplen);
}

TEST(WorkerArguments, ABuiltCommandLineParsesBackToTheSameTask) {
  const ShardTask task = UnusualTask();
  const std::vector<std::string> args = WorkerArguments(task);
  ASSERT_FALSE(args.empty());
  EXPECT_EQ(args.front(), "worker");
  ExpectSameTask(ParseWorker(args), task);
  EXPECT_NE(CanonicalConfig(task.inputs.options, task.inputs.reduction, "d"), CanonicalConfig(AccumulateOptions{}, ReductionMode::kExact, "d"));
}

TEST(WorkerArguments, DefaultsAndTheLinearPathParseBackToo) {
  ShardTask task;
  // Relative paths, as a run started in its own directory passes them.
  task.inputs.model_dir = "model";
  task.inputs.manifest_path = "corpus/x.manifest";
  task.inputs.corpus_root = "corpus";
  task.inputs.dict = "corpus/x.dic";
  task.inputs.filler = "corpus/x.filler";
  task.inputs.options.retry_beams.clear();  // written as "none"
  task.pass = 1;
  task.shard_count = 1;
  task.shard_dir = (StagingPassDir(std::filesystem::path(), 1) / ShardDirName(0)).string();
  const std::vector<std::string> args = WorkerArguments(task);
  EXPECT_EQ(std::count(args.begin(), args.end(), worker_flag::Dashed(worker_flag::kMultipron)), 0);  // linear path: no flag
  EXPECT_EQ(std::count(args.begin(), args.end(), worker_flag::Dashed(worker_flag::kCoordinatorSyncs)), 0);  // the worker fsyncs
  const cli::WorkerCommandLine parsed = ParseWorker(args);
  ExpectSameTask(parsed, task);
  EXPECT_FALSE(parsed.task.inputs.options.multipron);
  EXPECT_TRUE(parsed.task.inputs.options.retry_beams.empty());
}

// Each flag the coordinator writes is one the worker declares: a flag spelled differently on one
// side would be refused by the parser (above); here each name is checked to be written once.
TEST(WorkerArguments, EachFlagIsWrittenOnce) {
  const std::vector<std::string> args = WorkerArguments(UnusualTask());
  std::vector<std::string> flags;
  for (std::size_t i = 1; i < args.size(); i += 2) flags.push_back(args[i]);
  for (const std::string& flag : flags) EXPECT_EQ(std::count(flags.begin(), flags.end(), flag), 1) << flag;
  cli::WorkerCommandLine line;
  cli::po::options_description desc("worker");
  cli::AddOptions(desc, line);
  for (const std::string& flag : flags) EXPECT_NE(desc.find_nothrow(flag.substr(2), false), nullptr) << flag;
  EXPECT_EQ(flags.size(), desc.options().size());  // and the worker declares no flag the coordinator never writes
}

}  // namespace
}  // namespace pstrain
