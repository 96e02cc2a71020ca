// The Slurm launcher (issue #7) on a real single-node Slurm cluster: the ctest fixture
// `slurm_cluster` (scripts/local-slurm.sh start/stop) runs munged, slurmctld and slurmd on this
// machine, and SLURM_CONF points the clients at it. These tests FAIL, never skip, when the cluster
// does not answer.
//
//   - training through Slurm job arrays (2 and 3 shards, 2 passes) writes the same bytes as the
//     local launcher (telemetry and the slurm/ directory excluded; provenance.json equal but for
//     its "launcher" field), and in exact mode 2 and 3 shards give the same model;
//   - a task made to fail (PSTRAIN_FAULT_INJECTION=crash) fails the pass naming its task id,
//     nothing is promoted, and the rerun resumes after the last complete pass;
//   - with --retry-failed-shards a task that fails once is resubmitted, the pass succeeds, and
//     job.json records the retry;
//   - a corpus whose feature files changed is refused before any job is queued (exit 2, every
//     changed file counted);
//   - a task cancelled from outside fails the pass with the state the controller reports, also when
//     its worker died first and the batch script wrote the worker's 128+15;
//   - SIGINT or SIGTERM to the coordinator while the array runs cancels the array (squeue shows none of its
//     tasks) and promotes nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <boost/json.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/file_io.h"
#include "common/sha256.h"
#include "manifest/manifest.h"
#include "support/fault_fixture_util.h"
#include "support/shard_fixture.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

constexpr const char* kGroup = "slurm";

int ExitCode(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

// Deterministic files of a run directory: DeterministicDigests (telemetry.json and worker.stderr
// left out) without the Slurm launcher's telemetry directories (passes/NNN/slurm/) and without
// provenance.json, which is compared field by field.
std::map<std::string, std::string> ComparableDigests(const fs::path& run) {
  std::map<std::string, std::string> digests = DeterministicDigests(run);
  for (auto it = digests.begin(); it != digests.end();) {
    const bool slurm_dir = it->first.find("/slurm/") != std::string::npos;
    it = slurm_dir || it->first == "model/provenance.json" ? digests.erase(it) : std::next(it);
  }
  return digests;
}

// provenance.json without the fields that say how the shards were run: "launcher" and (Slurm only)
// "shard_nodes".
json::object ProvenanceWithoutLauncher(const fs::path& run) {
  json::object provenance = ReadJson(run / "model" / "provenance.json").as_object();
  provenance.erase("launcher");
  provenance.erase("shard_nodes");
  return provenance;
}

// One line per array task of `job_id` that the controller lists in `states` (squeue -t).
std::string SqueueTasks(const std::string& job_id, const std::string& states) {
  return RunCommand("squeue -h -r -j " + job_id + " -t " + states + " -o '%K %T' 2>&1").output;
}

class SlurmTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ::unsetenv("PSTRAIN_FAULT_INJECTION");
    BecomeChildSubreaper();
  }

  void SetUp() override {
    const char* conf = std::getenv("SLURM_CONF");
    ASSERT_NE(conf, nullptr) << "SLURM_CONF is not set: these tests need the local Slurm cluster (ctest fixture slurm_cluster, "
                                "or `scripts/local-slurm.sh start` and the SLURM_CONF it prints)";
    // The controller may be busy, or the node still completing jobs an earlier test cancelled:
    // wait up to 20 s for it to answer and take work (idle, mix or alloc).
    CommandResult sinfo;
    const auto give_up = std::chrono::steady_clock::now() + 20s;
    auto usable = [&] {
      return sinfo.exit_code == 0 && (sinfo.output.find("idle") != std::string::npos || sinfo.output.find("mix") != std::string::npos ||
                                      sinfo.output.find("alloc") != std::string::npos);
    };
    for (;;) {
      sinfo = RunCommand("sinfo -h -o '%P %t %D' 2>&1");
      if (usable() || std::chrono::steady_clock::now() > give_up) break;
      std::this_thread::sleep_for(200ms);
    }
    ASSERT_EQ(sinfo.exit_code, 0) << "the Slurm cluster of " << conf << " does not answer after 20 s (scripts/local-slurm.sh start; "
                                  << "logs in its log/ directory):\n" << sinfo.output;
    ASSERT_TRUE(usable()) << "no usable Slurm node after 20 s:\n" << sinfo.output;
  }

  void TearDown() override {
    for (auto& p : spawned_) p->KillEverything();
    spawned_.clear();
    for (const std::string& job : jobs_) RunCommand("scancel " + job + " >/dev/null 2>&1");
  }

  fs::path Scratch(const std::string& name) { return TestScratchDir(kGroup, name); }

  using Finished = FinishedProcess;
  Finished Run(const std::vector<std::string>& argv, const std::vector<std::string>& env, const fs::path& output) {
    spawned_.push_back(std::make_unique<SpawnedProcess>(argv, env, output));
    return WaitToEnd(*spawned_.back(), argv);
  }

  // `pstrain train` on the small corpus (8 utterances) with `extra` options.
  std::vector<std::string> Train(const fs::path& run, const std::vector<std::string>& extra) {
    if (corpus_.manifest.empty()) corpus_ = SmallCorpus(Scratch("corpus"));
    std::vector<std::string> args = {"--corpus-root", corpus_.corpus_root.string(), "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    return TrainArgv(run, args, corpus_.manifest);
  }

  // The job ids in passes/NNN/slurm/job.json (or its staging directory), remembered for TearDown.
  std::vector<std::string> JobIds(const fs::path& pass_dir) {
    std::vector<std::string> ids;
    const fs::path file = pass_dir / "slurm" / "job.json";
    if (!fs::exists(file)) return ids;
    const json::value job = ReadJson(file);
    for (const json::value& s : job.at("submissions").as_array()) {
      ids.emplace_back(s.at("job_id").as_string());
      jobs_.push_back(ids.back());
    }
    return ids;
  }

  // SIGINT or SIGTERM to the coordinator while both tasks of its array run (held by delays).
  void InterruptMidArray(int signal_number);
  void CancelOneTaskFromOutside(bool worker_status_first);

  CorpusFixture corpus_;
  std::vector<std::unique_ptr<SpawnedProcess>> spawned_;
  std::vector<std::string> jobs_;
};

// --- Same bytes as the local launcher ------------------------------------------------------------

TEST_F(SlurmTest, TwoAndThreeShardsTwoPassesAreByteIdenticalToTheLocalLauncher) {
  const std::vector<std::string> passes = {"--min-passes", "2", "--max-passes", "2"};
  std::map<int, fs::path> slurm_runs;
  for (const int jobs : {2, 3}) {
    SCOPED_TRACE("--jobs " + std::to_string(jobs));
    const fs::path dir = Scratch("jobs-" + std::to_string(jobs));
    std::vector<std::string> local_args = passes, slurm_args = passes;
    local_args.insert(local_args.end(), {"--jobs", std::to_string(jobs)});
    slurm_args.insert(slurm_args.end(), {"--jobs", std::to_string(jobs), "--launcher", "slurm", "--slurm-partition", "pstrain"});
    const auto start = std::chrono::steady_clock::now();
    const Finished slurm = Run(Train(dir / "slurm", slurm_args), {}, dir / "slurm.out");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(ExitCode(slurm.status), 0) << slurm.output;
    std::cout << "[slurm] --jobs " << jobs << ", 2 passes through Slurm: " << seconds << " s\n";
    const Finished local = Run(Train(dir / "local", local_args), {}, dir / "local.out");
    ASSERT_EQ(ExitCode(local.status), 0) << local.output;

    const auto slurm_digests = ComparableDigests(dir / "slurm");
    EXPECT_GT(slurm_digests.size(), 30u);
    EXPECT_EQ(slurm_digests, ComparableDigests(dir / "local")) << "Slurm and local runs differ";
    EXPECT_EQ(ProvenanceWithoutLauncher(dir / "slurm"), ProvenanceWithoutLauncher(dir / "local"));
    EXPECT_EQ(ReadJson(dir / "slurm" / "model" / "provenance.json").at("launcher"), json::value("slurm"));
    EXPECT_EQ(ReadJson(dir / "local" / "model" / "provenance.json").at("launcher"), json::value("local"));
    EXPECT_FALSE(ReadJson(dir / "local" / "model" / "provenance.json").as_object().contains("shard_nodes"));
    // The nodes that ran each shard of each pass (diagnostic).
    const json::value nodes = ReadJson(dir / "slurm" / "model" / "provenance.json").at("shard_nodes");
    ASSERT_EQ(nodes.as_array().size(), 2u) << json::serialize(nodes);
    EXPECT_EQ(nodes.at(1).at("pass"), json::value(2));
    EXPECT_EQ(nodes.at(1).at("nodes").as_array().size(), static_cast<std::size_t>(jobs));
    EXPECT_EQ(nodes.at(1).at("nodes").at(0), json::value("pstrain-node"));

    // Telemetry: one job per pass, every task COMPLETED with status 0 on the cluster's node, and
    // each shard's telemetry.json names the job and node.
    for (const std::uint32_t pass : {1u, 2u}) {
      const fs::path pass_dir = PassDir(dir / "slurm", pass);
      ASSERT_EQ(JobIds(pass_dir).size(), 1u) << pass;
      const json::value job = ReadJson(pass_dir / "slurm" / "job.json");
      ASSERT_EQ(job.at("tasks").as_array().size(), static_cast<std::size_t>(jobs));
      for (const json::value& task : job.at("tasks").as_array()) {
        EXPECT_EQ(task.at("state"), json::value("COMPLETED")) << json::serialize(task);
        EXPECT_EQ(task.at("exit_status"), json::value(0)) << json::serialize(task);
        EXPECT_EQ(task.at("node"), json::value("pstrain-node")) << json::serialize(task);
        EXPECT_EQ(task.at("attempts"), json::value(1)) << json::serialize(task);
      }
      const json::value telemetry = ReadJson(pass_dir / ShardDirName(0) / "telemetry.json");
      EXPECT_EQ(telemetry.at("slurm").at("node"), json::value("pstrain-node"));
      EXPECT_EQ(telemetry.at("slurm").at("array_job_id"), job.at("submissions").at(0).at("job_id"));
      EXPECT_EQ(telemetry.at("slurm").at("array_task_id"), json::value("0"));
    }
    slurm_runs[jobs] = dir / "slurm";
  }
  // Exact mode: any shard count, the same model.
  for (const char* file : {"means", "variances", "mixture_weights", "transition_matrices"}) {
    EXPECT_EQ(ReadFileText(slurm_runs[2] / "model" / file), ReadFileText(slurm_runs[3] / "model" / file)) << file;
  }
}

// --- A failing task --------------------------------------------------------------------------------

TEST_F(SlurmTest, FailingTaskFailsThePassWithItsTaskIdPromotesNothingAndTheRerunResumes) {
  const std::vector<std::string> args = {"--jobs", "3", "--min-passes", "2", "--max-passes", "2", "--launcher", "slurm"};
  const fs::path dir = Scratch("crash");
  const fs::path run = dir / "run";
  const Finished crashed = Run(Train(run, args), {"PSTRAIN_FAULT_INJECTION=crash:1:2"}, dir / "crash.out");
  EXPECT_EQ(ExitCode(crashed.status), 1) << crashed.output;
  const std::vector<std::string> jobs = JobIds(StagingPassDir(run, 2));
  ASSERT_EQ(jobs.size(), 1u) << crashed.output;
  EXPECT_THAT(crashed.output, HasSubstr("pstrain train: training failed: pass 2, shard 1 (Slurm job " + jobs[0] + ", array task 1"));
  EXPECT_THAT(crashed.output, HasSubstr("worker exited with status 134 (killed by signal 6)"));
  // The controller calls it FAILED, so the worker's own status is the whole story.
  EXPECT_THAT(crashed.output, Not(HasSubstr("task ended in state")));
  EXPECT_THAT(crashed.output, HasSubstr("its log " + (StagingPassDir(run, 2) / ShardDirName(1) / "worker.log").string()));
  EXPECT_THAT(crashed.output, HasSubstr("its output " + (StagingPassDir(run, 2) / "slurm" / "task-1.out").string()));
  EXPECT_EQ(SqueueTasks(jobs[0], "pending,running,completing,configuring,suspended"), "") << "tasks of the failed pass still active";
  EXPECT_FALSE(fs::exists(run / "model")) << "a model was promoted";
  EXPECT_FALSE(fs::exists(PassDir(run, 2))) << "the failed pass was promoted";
  ASSERT_TRUE(fs::is_regular_file(PassDir(run, 1) / "pass.json"));
  const json::value failed_job = ReadJson(StagingPassDir(run, 2) / "slurm" / "job.json");
  EXPECT_EQ(failed_job.at("tasks").at(1).at("state"), json::value("FAILED"));
  EXPECT_EQ(failed_job.at("tasks").at(1).at("exit_status"), json::value(134));

  const Finished rerun = Run(Train(run, args), {}, dir / "rerun.out");
  ASSERT_EQ(ExitCode(rerun.status), 0) << rerun.output;
  EXPECT_THAT(rerun.output, HasSubstr("pass 1: already complete (resumed)"));
  EXPECT_TRUE(fs::is_regular_file(run / "model" / "provenance.json"));

  // The resumed run ends with the bytes of an uninterrupted local run.
  const Finished local = Run(Train(dir / "local", {"--jobs", "3", "--min-passes", "2", "--max-passes", "2"}), {}, dir / "local.out");
  ASSERT_EQ(ExitCode(local.status), 0) << local.output;
  EXPECT_EQ(ComparableDigests(run), ComparableDigests(dir / "local"));
}

TEST_F(SlurmTest, RetryFailedShardsResubmitsAFailedTaskOnceAndRecordsIt) {
  const fs::path dir = Scratch("retry");
  const fs::path run = dir / "run";
  const std::string flag = (dir / "crashed-once").string();
  const Finished retried = Run(Train(run, {"--jobs", "2", "--max-passes", "1", "--launcher", "slurm", "--retry-failed-shards"}),
                               {"PSTRAIN_FAULT_INJECTION=crash-once:0:1:" + flag}, dir / "retry.out");
  ASSERT_EQ(ExitCode(retried.status), 0) << retried.output;
  EXPECT_TRUE(fs::exists(flag)) << "the injected crash did not happen";
  EXPECT_THAT(retried.output, HasSubstr("pass 1: resubmitting failed Slurm array task(s) 0 once"));
  const std::vector<std::string> jobs = JobIds(PassDir(run, 1));
  ASSERT_EQ(jobs.size(), 2u) << "expected the array and one resubmission";
  const json::value job = ReadJson(PassDir(run, 1) / "slurm" / "job.json");
  EXPECT_EQ(job.at("submissions").at(1).at("array"), json::value("0"));
  EXPECT_EQ(job.at("tasks").at(0).at("attempts"), json::value(2));
  EXPECT_EQ(job.at("tasks").at(0).at("job_id"), json::value(jobs[1]));
  EXPECT_EQ(job.at("tasks").at(0).at("state"), json::value("COMPLETED"));
  EXPECT_EQ(job.at("tasks").at(1).at("attempts"), json::value(1));
  EXPECT_TRUE(fs::is_regular_file(PassDir(run, 1) / "slurm" / "task-0.retry.out"));

  const Finished local = Run(Train(dir / "local", {"--jobs", "2", "--max-passes", "1"}), {}, dir / "local.out");
  ASSERT_EQ(ExitCode(local.status), 0) << local.output;
  EXPECT_EQ(ComparableDigests(run), ComparableDigests(dir / "local"));
}

// Bad input found by a task's worker (issue 13): the worker's reason travels back through
// SHARD_DIR/failure.json on the shared filesystem, so the pass fails as an input error (exit 2) with
// the message of an inline run, not as "worker exited with status 2".
TEST_F(SlurmTest, BadInputFoundByATaskIsAnInputErrorWithTheInlineMessage) {
  const fs::path dir = Scratch("bad-input");
  // The small corpus with one feature file truncated before its digest is recorded: only the
  // shard's .mfc parser can tell.
  const CorpusFixture small = SmallCorpus(dir / "small");
  std::vector<ManifestEntry> entries = Manifest::Load(small.manifest).entries();
  const fs::path root = dir / "corpus";
  for (ManifestEntry& entry : entries) {
    const fs::path target = root / entry.feature_path;
    fs::create_directories(target.parent_path());
    fs::copy_file(small.corpus_root / entry.feature_path, target);
  }
  const fs::path bad = root / entries[5].feature_path;  // shard 1 of 2
  fs::resize_file(bad, 1001);
  entries[5].feature_sha256 = Sha256OfFile(bad);
  const fs::path manifest = dir / "bad.manifest";
  Manifest(entries, "bad corpus").Save(manifest);
  auto train = [&](const fs::path& run, std::vector<std::string> extra) {
    std::vector<std::string> args = {"--corpus-root", root.string(), "--quiet", "--max-passes", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    return TrainArgv(run, args, manifest);
  };
  const Finished inline_run = Run(train(dir / "inline", {"--jobs", "1"}), {}, dir / "inline.out");
  ASSERT_EQ(ExitCode(inline_run.status), 2) << inline_run.output;
  ASSERT_THAT(inline_run.output, HasSubstr("pstrain train: error: " + bad.string() + ": "));
  const Finished slurm = Run(train(dir / "slurm", {"--jobs", "2", "--launcher", "slurm"}), {}, dir / "slurm.out");
  EXPECT_EQ(ExitCode(slurm.status), 2) << slurm.output;
  EXPECT_EQ(slurm.output, inline_run.output);
  JobIds(StagingPassDir(dir / "slurm", 1));  // for TearDown
  EXPECT_TRUE(fs::is_regular_file(StagingPassDir(dir / "slurm", 1) / ShardDirName(1) / "failure.json"));
  EXPECT_FALSE(fs::exists(dir / "slurm" / "model"));
}

// With Slurm the whole feature-file check runs before the job array is queued
// (training/feature_file_check.h When::kFirst): a corpus whose contents changed (the files still
// there, so the look of the local launcher would not see it) is refused with the check's error,
// every changed file counted, exit 2, and no pass directory and no job.
TEST_F(SlurmTest, AChangedCorpusIsRefusedBeforeAnyJobIsQueued) {
  const fs::path dir = Scratch("changed-corpus");
  const CorpusFixture small = SmallCorpus(dir / "small");
  const std::vector<ManifestEntry> entries = Manifest::Load(small.manifest).entries();
  const fs::path root = dir / "corpus";
  for (const ManifestEntry& entry : entries) {
    const fs::path target = root / entry.feature_path;
    fs::create_directories(target.parent_path());
    fs::copy_file(small.corpus_root / entry.feature_path, target);
  }
  for (const std::size_t u : {std::size_t{2}, std::size_t{6}}) {
    std::vector<std::uint8_t> bytes = ReadFileBytes(root / entries[u].feature_path);
    bytes[bytes.size() / 2] ^= 0x40;
    WriteFileAtomic(root / entries[u].feature_path, bytes.data(), bytes.size());
  }
  const fs::path run = dir / "run";
  const Finished slurm = Run(TrainArgv(run, {"--corpus-root", root.string(), "--quiet", "--max-passes", "1", "--jobs", "2",
                                             "--launcher", "slurm", "--slurm-partition", "pstrain"},
                                       small.manifest),
                             {}, dir / "train.out");
  EXPECT_EQ(ExitCode(slurm.status), 2) << slurm.output;
  EXPECT_THAT(slurm.output, HasSubstr((root / entries[2].feature_path).string()));
  EXPECT_THAT(slurm.output, HasSubstr("(2 of " + std::to_string(entries.size()) + " utterances have missing or changed feature files)"));
  EXPECT_FALSE(fs::exists(run / "passes"));
}

// A task cancelled from outside (scancel of one array task): the coordinator learns it from the
// controller and fails the pass with the task's state. scancel signals the batch script and the
// worker at once; when the worker dies first, the script still writes an exit marker with the
// worker's 128+15. `worker_status_first` forces that order: the test writes such a marker itself
// just before the scancel, and the reported cause must still be the controller's CANCELLED.
void SlurmTest::CancelOneTaskFromOutside(bool worker_status_first) {
  const fs::path dir = Scratch(worker_status_first ? "cancelled-marker-first" : "cancelled");
  const fs::path run = dir / "run";
  spawned_.push_back(std::make_unique<SpawnedProcess>(Train(run, {"--jobs", "2", "--max-passes", "1", "--launcher", "slurm"}),
                                                      std::vector<std::string>{"PSTRAIN_FAULT_INJECTION=delay:1:60000"},
                                                      dir / "train.out"));
  SpawnedProcess& coordinator = *spawned_.back();
  ASSERT_TRUE(coordinator.started());
  const fs::path pass_dir = StagingPassDir(run, 1);
  std::string job;
  for (const auto deadline = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < deadline;) {
    if (job.empty()) {
      const std::vector<std::string> ids = JobIds(pass_dir);
      if (!ids.empty()) job = ids.front();
    }
    if (!job.empty() && SqueueTasks(job, "running").find("1 RUNNING") != std::string::npos) break;
    std::this_thread::sleep_for(200ms);
  }
  ASSERT_FALSE(job.empty()) << "no job was submitted:\n" << coordinator.Output();
  if (worker_status_first) {
    const fs::path marker = pass_dir / "slurm" / "task-1.exit";
    WriteFileAtomic(marker, "143 pstrain-node " + job + "\n");
    // The coordinator sweeps markers every 200 ms: let it see this one before the controller knows.
    std::this_thread::sleep_for(500ms);
  }
  const CommandResult cancelled = RunCommand("scancel " + job + "_1 2>&1");
  ASSERT_EQ(cancelled.exit_code, 0) << cancelled.output;
  ASSERT_TRUE(coordinator.WaitForExit(60s)) << "the coordinator did not notice the cancelled task";
  const std::string output = coordinator.Output();
  EXPECT_EQ(ExitCode(coordinator.wait_status()), 1) << output;
  EXPECT_THAT(output, HasSubstr("training failed: pass 1, shard 1 (Slurm job " + job + ", array task 1"));
  EXPECT_THAT(output, HasSubstr("task ended in state CANCELLED"));
  if (worker_status_first) {
    EXPECT_THAT(output, HasSubstr("task ended in state CANCELLED; its worker exited with status 143 (killed by signal 15)"));
  }
  EXPECT_FALSE(fs::exists(run / "model"));
  EXPECT_FALSE(fs::exists(PassDir(run, 1)));
  const json::value record = ReadJson(pass_dir / "slurm" / "job.json");
  EXPECT_EQ(record.at("tasks").at(1).at("state"), json::value("CANCELLED"));
}

TEST_F(SlurmTest, TaskCancelledOutsideFailsThePassWithItsStateFromTheController) { CancelOneTaskFromOutside(false); }

TEST_F(SlurmTest, TaskCancelledOutsideAfterItsWorkerDiedStillReportsTheControllersState) { CancelOneTaskFromOutside(true); }

// --- The coordinator is interrupted ----------------------------------------------------------------

void SlurmTest::InterruptMidArray(int signal_number) {
  const fs::path dir = Scratch("interrupt");
  const fs::path run = dir / "run";
  // Both tasks hold their artifact back for a minute: the array is surely running when signalled.
  spawned_.push_back(std::make_unique<SpawnedProcess>(Train(run, {"--jobs", "2", "--max-passes", "1", "--launcher", "slurm"}),
                                                      std::vector<std::string>{"PSTRAIN_FAULT_INJECTION=delay:0:60000,delay:1:60000"},
                                                      dir / "train.out"));
  SpawnedProcess& coordinator = *spawned_.back();
  ASSERT_TRUE(coordinator.started());
  const fs::path pass_dir = StagingPassDir(run, 1);
  std::string job;
  std::string running;
  for (const auto deadline = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < deadline;) {
    if (job.empty()) {
      const std::vector<std::string> ids = JobIds(pass_dir);
      if (!ids.empty()) job = ids.front();
    }
    if (!job.empty()) {
      running = SqueueTasks(job, "running");
      if (running.find("0 RUNNING") != std::string::npos && running.find("1 RUNNING") != std::string::npos) break;
    }
    std::this_thread::sleep_for(200ms);
  }
  ASSERT_FALSE(job.empty()) << "no job was submitted:\n" << coordinator.Output();
  ASSERT_THAT(running, HasSubstr("0 RUNNING")) << "the array's tasks did not start";
  ASSERT_THAT(running, HasSubstr("1 RUNNING"));

  coordinator.Signal(signal_number);
  ASSERT_TRUE(coordinator.WaitForExit(60s)) << "the coordinator did not end after signal " << signal_number;
  const std::string output = coordinator.Output();
  EXPECT_EQ(ExitCode(coordinator.wait_status()), 1) << DescribeWaitStatus(coordinator.wait_status()) << "\n" << output;
  EXPECT_THAT(output, HasSubstr("pstrain train: training failed: interrupted by signal " + std::to_string(signal_number) +
                                "; cancelled Slurm job " + job));
  // Verified with squeue: no task of the array is pending, running or completing.
  EXPECT_EQ(SqueueTasks(job, "pending,running,completing,configuring,suspended"), "");
  EXPECT_THAT(SqueueTasks(job, "all"), HasSubstr("CANCELLED"));
  EXPECT_TRUE(RunningProcessesMentioning(run.string() + "/").empty()) << "a worker of the cancelled array is still running";
  EXPECT_FALSE(fs::exists(run / "model")) << "a model was promoted after the signal";
  EXPECT_FALSE(fs::exists(PassDir(run, 1))) << "the interrupted pass was promoted";
  EXPECT_FALSE(fs::exists(pass_dir / ShardDirName(0) / "artifact.json"));
}

TEST_F(SlurmTest, SigintToTheCoordinatorCancelsTheArrayAndPromotesNothing) { InterruptMidArray(SIGINT); }
TEST_F(SlurmTest, SigtermToTheCoordinatorCancelsTheArrayAndPromotesNothing) { InterruptMidArray(SIGTERM); }

}  // namespace
}  // namespace pstrain::testing
