// Faults through the real `pstrain train` (issue 3, "Faults" and the kill tests): a worker that
// crashes or is killed fails the pass naming the shard and the cause; the coordinator killed with
// SIGKILL, SIGTERM or SIGINT takes its workers along (verified by PID within 5 s); in every case
// nothing is promoted, and a rerun resumes after the last complete pass and ends with the same bytes
// as an uninterrupted run (telemetry excluded).
//
// Faults come from PSTRAIN_FAULT_INJECTION (shards/shard_worker.h): crash:SHARD:PASS aborts the
// worker, hang:SHARD:PASS makes it sleep for an hour before writing its artifact. The coordinator
// is started with fork+exec in its own process group; every process a test starts is SIGKILLed and
// reaped when the test ends, whatever failed (SpawnedProcess, TearDown).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/file_io.h"
#include "common/sha256.h"
#include "formats/s3_file.h"
#include "provenance/code_file_stamps.h"
#include "support/fault_fixture_util.h"
#include "support/shard_fixture.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr const char* kGroup = "fault";

ino_t Inode(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

int ExitCode(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

std::vector<std::string> Entries(const fs::path& dir) {
  std::vector<std::string> names;
  if (!fs::is_directory(dir)) return names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string LastLine(const fs::path& path) {
  std::ifstream in(path);
  std::string last;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) last = line;
  }
  return last;
}

// Digests of the files below `prefix` in a DeterministicDigests map.
std::map<std::string, std::string> Under(const std::map<std::string, std::string>& digests, const std::string& prefix) {
  std::map<std::string, std::string> out;
  for (const auto& [path, digest] : digests) {
    if (path.rfind(prefix, 0) == 0) out[path] = digest;
  }
  return out;
}

class FaultTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ::unsetenv("PSTRAIN_FAULT_INJECTION");
    BecomeChildSubreaper();  // workers orphaned by a killed coordinator come to us and are reaped
  }

  void TearDown() override {
    for (auto& p : spawned_) p->KillEverything();
    spawned_.clear();
    // Nothing that mentions this test's scratch directory may outlive the test.
    const std::vector<ProcessIdentity> left = RunningProcessesMentioning(scratch_marker_);
    for (const ProcessIdentity& p : left) ::kill(p.pid, SIGKILL);
    WaitUntilGone(left, 5s);
    EXPECT_TRUE(left.empty()) << left.size() << " process(es) of this test were still running at its end (killed now)";
  }

  fs::path Scratch(const std::string& name) {
    const fs::path dir = TestScratchDir(kGroup, name);
    scratch_marker_ = dir.parent_path().string() + "/";
    return dir;
  }

  SpawnedProcess& Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env, const fs::path& output) {
    spawned_.push_back(std::make_unique<SpawnedProcess>(argv, env, output));
    return *spawned_.back();
  }

  using Finished = FinishedProcess;
  // Runs to the end (at most two minutes) and returns the wait status and the output.
  Finished RunToEnd(const std::vector<std::string>& argv, const std::vector<std::string>& env, const fs::path& output) {
    return WaitToEnd(Spawn(argv, env, output), argv);
  }

  // An uninterrupted `pstrain train ARGS` in its own directory: the bytes every rerun must match.
  std::map<std::string, std::string> Reference(const std::vector<std::string>& args) {
    const fs::path dir = Scratch("reference");
    const Finished f = RunToEnd(TrainArgv(dir / "run", args), {}, dir / "train.out");
    EXPECT_EQ(ExitCode(f.status), 0) << f.output;
    const auto digests = DeterministicDigests(dir / "run");
    EXPECT_GT(digests.size(), 40u);
    return digests;
  }

  // The coordinator has been stopped in pass `failed_pass` (> 1): no model, no passes/NNN of that
  // pass, passes before it complete. The rerun without faults resumes after them (their files are
  // not rewritten) and ends with the reference's bytes.
  void ExpectResumeToReference(const fs::path& run, const std::vector<std::string>& args, std::uint32_t failed_pass,
                               const std::map<std::string, std::string>& reference) {
    EXPECT_FALSE(fs::exists(run / "model")) << "a failed run promoted a model";
    EXPECT_FALSE(fs::exists(run / ".model.staging"));
    EXPECT_FALSE(fs::exists(PassDir(run, failed_pass))) << "the failed pass was promoted";
    std::vector<std::string> expected_entries;
    for (std::uint32_t p = 1; p < failed_pass; ++p) expected_entries.push_back(PassName(p));
    expected_entries.push_back(StagingPassDir(run, failed_pass).filename().string());
    std::sort(expected_entries.begin(), expected_entries.end());
    EXPECT_EQ(Entries(PassesDir(run)), expected_entries);
    ASSERT_TRUE(fs::is_regular_file(PassDir(run, 1) / "pass.json"));
    const ino_t pass1_inode = Inode(PassDir(run, 1) / "pass.json");
    const auto pass1_before = Under(DeterministicDigests(run), PassKey(1) + "/");

    const Finished rerun = RunToEnd(TrainArgv(run, args), {}, run.parent_path() / "rerun.out");
    ASSERT_EQ(ExitCode(rerun.status), 0) << rerun.output;
    for (std::uint32_t p = 1; p < failed_pass; ++p) {
      EXPECT_THAT(rerun.output, HasSubstr("pass " + std::to_string(p) + ": already complete (resumed)"));
    }
    EXPECT_THAT(rerun.output, HasSubstr("pass " + std::to_string(failed_pass) + ": "));
    EXPECT_EQ(Inode(PassDir(run, 1) / "pass.json"), pass1_inode) << "passes/001 was recomputed instead of reused";
    const auto after = DeterministicDigests(run);
    EXPECT_EQ(Under(after, PassKey(1) + "/"), pass1_before);
    EXPECT_EQ(after, reference) << "the resumed run differs from an uninterrupted run";
  }

  // Starts the coordinator with `fault`, waits for `count` workers of pass `pass` (the hung ones).
  std::vector<WorkerProcess> StartHungPass(SpawnedProcess*& coordinator, const fs::path& run, const std::vector<std::string>& args,
                                           const std::string& fault, int pass, std::size_t count) {
    coordinator = &Spawn(TrainArgv(run, args), {"PSTRAIN_FAULT_INJECTION=" + fault}, run.parent_path() / "train.out");
    if (!coordinator->started()) return {};
    std::vector<WorkerProcess> workers = WaitForWorkers(coordinator->pid(), pass, count, 60s);
    for (const WorkerProcess& w : workers) coordinator->Track(w.id);
    return workers;
  }

  void KillCoordinatorMidPass(int signal_number);

  std::vector<std::unique_ptr<SpawnedProcess>> spawned_;
  std::string scratch_marker_ = "/nonexistent-marker/";
};

// --- A worker crashes ----------------------------------------------------------------------------

TEST_F(FaultTest, CrashedWorkerFailsThePassAndTheRerunResumes) {
  const std::vector<std::string> args = {"--jobs", "3", "--max-passes", "3"};
  const auto reference = Reference(args);
  const fs::path run = Scratch("crash") / "run";
  const Finished crashed = RunToEnd(TrainArgv(run, args), {"PSTRAIN_FAULT_INJECTION=crash:1:2"}, run.parent_path() / "train.out");
  EXPECT_EQ(ExitCode(crashed.status), 1) << crashed.output;
  const fs::path staging_shard = StagingPassDir(run, 2) / ShardDirName(1);
  EXPECT_THAT(crashed.output, HasSubstr("pstrain train: training failed: pass 2, shard 1: worker (pid "));
  EXPECT_THAT(crashed.output, HasSubstr("was killed by signal 6"));
  EXPECT_THAT(crashed.output, HasSubstr("its log " + (staging_shard / "worker.log").string() + " ends:\n"));
  EXPECT_THAT(crashed.output, HasSubstr("pass 1: ")) << "pass 1 should have completed before the crash";
  EXPECT_TRUE(RunningProcessesMentioning(run.string() + "/").empty()) << "a worker outlived the failed run";
  ExpectResumeToReference(run, args, 2, reference);
}

// The contract asks for the worker's log with the error. An aborting worker writes nothing to its
// stderr (worker.stderr), while its per-shard log worker.log holds the utterances it processed: the
// message must quote the latter too.
TEST_F(FaultTest, CrashMessageIncludesTheTailOfTheWorkerLog) {
  const fs::path run = Scratch("crash-log") / "run";
  const Finished crashed = RunToEnd(TrainArgv(run, {"--jobs", "3", "--max-passes", "1"}), {"PSTRAIN_FAULT_INJECTION=crash:1:1"},
                                    run.parent_path() / "train.out");
  EXPECT_EQ(ExitCode(crashed.status), 1) << crashed.output;
  const fs::path worker_log = StagingPassDir(run, 1) / ShardDirName(1) / "worker.log";
  const std::string last = LastLine(worker_log);
  ASSERT_FALSE(last.empty()) << worker_log << " is empty";
  EXPECT_THAT(crashed.output, HasSubstr(last));
  EXPECT_THAT(crashed.output, ::testing::Not(HasSubstr("(empty log)")));
}

// --- A worker is killed ------------------------------------------------------------------------------

TEST_F(FaultTest, KilledWorkerFailsThePassAndLeavesThePreviousModel) {
  // Both workers hang in pass 1 (so the surviving worker must be stopped by the coordinator, not
  // end by itself); shard 0's is SIGKILLed. RUNDIR holds the model of an earlier, different
  // training (2 passes), which must stay as it is.
  const std::vector<std::string> args = {"--jobs", "2", "--max-passes", "3"};
  const auto reference = Reference(args);
  const fs::path run = Scratch("kill-worker") / "run";
  const Finished previous = RunToEnd(TrainArgv(run, {"--jobs", "2", "--max-passes", "2"}), {}, run.parent_path() / "previous.out");
  ASSERT_EQ(ExitCode(previous.status), 0) << previous.output;
  const auto before = DeterministicDigests(run);
  ASSERT_FALSE(Under(before, "model/").empty());

  SpawnedProcess* coordinator = nullptr;
  const std::vector<WorkerProcess> workers = StartHungPass(coordinator, run, args, "hang:0:1,hang:1:1", 1, 2);
  ASSERT_EQ(workers.size(), 2u) << "the two hung workers of pass 1 did not appear";
  ASSERT_EQ(workers[0].shard, 0);
  ASSERT_EQ(workers[1].shard, 1);
  ASSERT_TRUE(IsRunning(workers[0].id) && IsRunning(workers[1].id));
  ASSERT_EQ(::kill(workers[0].id.pid, SIGKILL), 0);

  ASSERT_TRUE(coordinator->WaitForExit(20s)) << "the coordinator did not end after its worker was killed";
  const std::string output = coordinator->Output();
  EXPECT_EQ(ExitCode(coordinator->wait_status()), 1) << DescribeWaitStatus(coordinator->wait_status()) << "\n" << output;
  EXPECT_THAT(output, HasSubstr("training failed: pass 1, shard 0: worker (pid " + std::to_string(workers[0].id.pid) +
                                ") was killed by signal 9"));
  EXPECT_THAT(output, HasSubstr("its log " + (StagingPassDir(run, 1) / ShardDirName(0) / "worker.log").string()));
  EXPECT_TRUE(WaitUntilGone({workers[1].id}, 5s).empty()) << "shard 1's worker (pid " << workers[1].id.pid << ") is still running";
  EXPECT_TRUE(RunningProcessesMentioning(run.string() + "/").empty());

  // Nothing promoted: the earlier training's model and passes are byte for byte what they were.
  auto after = DeterministicDigests(run);
  for (auto it = after.begin(); it != after.end();) it = it->first.rfind(StagingPassDir(fs::path(), 1).generic_string() + "/", 0) == 0 ? after.erase(it) : std::next(it);
  EXPECT_EQ(after, before);
  EXPECT_FALSE(fs::exists(PassDir(run, 3)));

  // The rerun (the training fingerprint differs from the earlier one's: nothing is reused) ends
  // with the bytes of an uninterrupted run.
  const Finished rerun = RunToEnd(TrainArgv(run, args), {}, run.parent_path() / "rerun.out");
  ASSERT_EQ(ExitCode(rerun.status), 0) << rerun.output;
  EXPECT_THAT(rerun.output, ::testing::Not(HasSubstr("resumed")));
  EXPECT_EQ(DeterministicDigests(run), reference);
}

// --- The coordinator is killed ------------------------------------------------------------------------

void FaultTest::KillCoordinatorMidPass(int signal_number) {
  // Pass 1 completes; both workers of pass 2 hang until the coordinator is signalled.
  const std::vector<std::string> args = {"--jobs", "2", "--max-passes", "3"};
  const auto reference = Reference(args);
  const fs::path run = Scratch("kill-coordinator") / "run";
  SpawnedProcess* coordinator = nullptr;
  const std::vector<WorkerProcess> workers = StartHungPass(coordinator, run, args, "hang:0:2,hang:1:2", 2, 2);
  ASSERT_EQ(workers.size(), 2u) << "the two hung workers of pass 2 did not appear";
  for (const WorkerProcess& w : workers) ASSERT_TRUE(IsRunning(w.id)) << "worker of shard " << w.shard;

  coordinator->Signal(signal_number);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<ProcessIdentity> still = WaitUntilGone({workers[0].id, workers[1].id}, 5s);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(still.empty()) << still.size() << " worker(s) still running 5 s after the coordinator got signal " << signal_number;
  std::cout << "[kill] workers gone " << seconds << " s after signal " << signal_number << " to the coordinator\n";

  ASSERT_TRUE(coordinator->WaitForExit(10s)) << "the coordinator did not end after signal " << signal_number;
  const int status = coordinator->wait_status();
  const std::string output = coordinator->Output();
  if (signal_number == SIGKILL) {
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << DescribeWaitStatus(status);
  } else {
    // SIGTERM and SIGINT end the run as a failure that says so.
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << DescribeWaitStatus(status) << "\n" << output;
    EXPECT_EQ(ExitCode(status), 1) << output;
    EXPECT_THAT(output, HasSubstr("pstrain train: training failed: interrupted by signal " + std::to_string(signal_number)));
  }
  EXPECT_TRUE(RunningProcessesMentioning(run.string() + "/").empty());
  ExpectResumeToReference(run, args, 2, reference);
}

TEST_F(FaultTest, SigkillToTheCoordinatorTakesItsWorkersAlongAndTheRerunResumes) { KillCoordinatorMidPass(SIGKILL); }
TEST_F(FaultTest, SigtermToTheCoordinatorStopsItsWorkersSaysInterruptedAndTheRerunResumes) { KillCoordinatorMidPass(SIGTERM); }

// With one job the shard runs inline (no worker process): SIGTERM is noticed before the next
// utterance, the run says so and promotes nothing. The delay fault holds pass 1 open after its
// utterances so that the signal arrives mid-run; pass 2 then stops at its first utterance.
TEST_F(FaultTest, SigtermWithOneJobStopsInlineAndSaysInterrupted) {
  const fs::path run = Scratch("sigterm-inline") / "run";
  spawned_.push_back(std::make_unique<SpawnedProcess>(TrainArgv(run, {"--jobs", "1", "--max-passes", "3"}),
                                                      std::vector<std::string>{"PSTRAIN_FAULT_INJECTION=delay:0:1500"},
                                                      run.parent_path() / "train.out"));
  SpawnedProcess& coordinator = *spawned_.back();
  ASSERT_TRUE(coordinator.started());
  std::this_thread::sleep_for(500ms);
  coordinator.Signal(SIGTERM);
  ASSERT_TRUE(coordinator.WaitForExit(20s)) << "the inline run did not stop after SIGTERM";
  EXPECT_EQ(ExitCode(coordinator.wait_status()), 1) << coordinator.Output();
  EXPECT_THAT(coordinator.Output(), HasSubstr("interrupted by signal 15"));
  EXPECT_FALSE(fs::exists(run / "model")) << "a model was promoted after SIGTERM";
}
TEST_F(FaultTest, SigintToTheCoordinatorStopsItsWorkersSaysInterruptedAndTheRerunResumes) { KillCoordinatorMidPass(SIGINT); }

// --- A worker runs another build ---------------------------------------------------------------------

// The workers run whatever binary is at the coordinator's path when they start (on a cluster: the
// binary the node sees there). The coordinator runs from a copy of pstrain; once both workers of
// pass 1 run, another build (the copy with one byte appended) is renamed over that path. Pass 1,
// computed by the coordinator's build, completes; pass 2's workers run the other build and their
// artifacts are rejected by the code-identity check, failing the pass, promoting nothing.
TEST_F(FaultTest, WorkersOfAnotherBuildFailThePassByCodeIdentity) {
  const fs::path dir = Scratch("other-build");
  const fs::path binary = dir / "bin" / "pstrain";
  fs::create_directories(binary.parent_path());
  fs::copy_file(PSTRAIN_BINARY, binary);
  fs::permissions(binary, fs::perms::owner_all);
  // Old enough for the coordinator to hand its workers the binary's stat stamp (a file written in
  // the last 2 s gets none): the replaced binary below must be refused all the same.
  std::this_thread::sleep_for(2200ms);
  const fs::path run = dir / "run";
  std::vector<std::string> argv = TrainArgv(run, {"--jobs", "2", "--min-passes", "2", "--max-passes", "2"});
  argv.front() = binary.string();
  // The delays keep pass 1's workers alive long enough to be seen and the binary replaced (2.5 s).
  SpawnedProcess& coordinator = Spawn(argv, {"PSTRAIN_FAULT_INJECTION=delay:0:2500,delay:1:2500"}, dir / "train.out");
  ASSERT_TRUE(coordinator.started());
  const std::vector<WorkerProcess> workers = WaitForWorkers(coordinator.pid(), 1, 2, 60s);
  for (const WorkerProcess& w : workers) coordinator.Track(w.id);
  ASSERT_EQ(workers.size(), 2u) << "the two workers of pass 1 did not appear";
  // Each worker was given the stamp and digest of the binary it runs (provenance/code_file_stamps.h).
  const std::string binary_sha256 = Sha256OfFile(binary);
  for (const WorkerProcess& w : workers) {
    const std::string environ = ReadFileText("/proc/" + std::to_string(w.id.pid) + "/environ");
    const std::string prefix = std::string(kCodeFileStampsVariable) + "=";
    const std::size_t at = environ.find(prefix);
    ASSERT_NE(at, std::string::npos) << "worker " << w.id.pid << " has no " << kCodeFileStampsVariable;
    const std::size_t end = environ.find('\0', at);
    const std::vector<CodeFileStamp> stamps = DecodeCodeFileStamps(std::string_view(environ).substr(at + prefix.size(), end - at - prefix.size()));
    ASSERT_FALSE(stamps.empty());
    EXPECT_EQ(stamps.front().path, "/proc/self/exe");
    EXPECT_EQ(stamps.front().sha256, binary_sha256);
    struct stat st {};
    ASSERT_EQ(::stat(binary.c_str(), &st), 0);
    EXPECT_EQ(stamps.front().inode, static_cast<std::uint64_t>(st.st_ino));
  }

  const fs::path other = dir / "bin" / "pstrain.other";
  fs::copy_file(PSTRAIN_BINARY, other);
  std::ofstream(other, std::ios::binary | std::ios::app) << '\n';
  fs::permissions(other, fs::perms::owner_all);
  fs::rename(other, binary);  // running processes keep the file they were started from

  const Finished f = WaitToEnd(coordinator, argv);
  EXPECT_EQ(ExitCode(f.status), 1) << DescribeWaitStatus(f.status) << "\n" << f.output;
  const fs::path rejected = StagingPassDir(run, 2) / ShardDirName(0) / "artifact.json";
  EXPECT_THAT(f.output, HasSubstr("pstrain train: training failed: shard 0 rejected by check \"code-identity\" (" + rejected.string() +
                                  "): artifact was computed by another build of pstrain"));
  EXPECT_THAT(f.output, HasSubstr("pass 1: ")) << "pass 1 should have completed";
  EXPECT_TRUE(fs::is_regular_file(PassDir(run, 1) / "pass.json"));
  EXPECT_FALSE(fs::exists(PassDir(run, 2))) << "the rejected pass was promoted";
  EXPECT_FALSE(fs::exists(run / "model")) << "a model was promoted";
  EXPECT_EQ(RunCommand(Pstrain("validate " + ShellQuote(PassDir(run, 1).string()))).exit_code, 0);
  // Pass 1's shards and pass.json carry the coordinator's identity; the rejected shard another one.
  const auto identity = [](const fs::path& file) { return std::string(ReadJson(file).at("code_identity").as_string()); };
  const std::string coordinator_identity = identity(PassDir(run, 1) / "pass.json");
  EXPECT_EQ(identity(PassDir(run, 1) / ShardDirName(1) / "artifact.json"), coordinator_identity);
  ASSERT_TRUE(fs::is_regular_file(rejected));
  EXPECT_NE(identity(rejected), coordinator_identity);
  EXPECT_THAT(f.output, HasSubstr("code_identity " + identity(rejected) + ", expected " + coordinator_identity));
}


// --- Resume verifies what it reuses (issue 13 B) ----------------------------------------------------
//
// pass.json records the SHA-256 of the pass's model files and accum/ files. A finished pass whose
// model was changed consistently (a value of means altered and its s3 checksum recomputed, so the
// file still loads) or whose accum/ was changed is not resumed: the rerun names the pass and the
// file, recomputes it (and everything after it) and ends with the bytes of an uninterrupted run.
TEST_F(FaultTest, ResumeRecomputesAFinishedPassWhoseFilesDoNotVerify) {
  const std::vector<std::string> args = {"--jobs", "1", "--max-passes", "2"};
  const auto reference = Reference(args);
  for (const std::string file : {"model/means", "accum/mixw_counts"}) {
    SCOPED_TRACE(file);
    const fs::path run = Scratch("tampered-" + fs::path(file).filename().string()) / "run";
    const Finished first = RunToEnd(TrainArgv(run, args), {}, run.parent_path() / "train.out");
    ASSERT_EQ(ExitCode(first.status), 0) << first.output;
    fs::remove_all(run / "model");  // no cache hit: the rerun resumes from the passes
    const fs::path target = PassDir(run, 1) / file;
    if (file == "model/means") {
      S3File s3 = ReadS3(target.string());
      ASSERT_FALSE(s3.words.empty());
      s3.words.back() = FloatBits(BitsToFloat(s3.words.back()) + 0.25f);
      const std::vector<std::uint8_t> bytes = EncodeS3(s3);
      WriteFileAtomic(target, bytes);
      ASSERT_NO_THROW(ReadS3(target.string())) << "the tampered means must still load";
    } else {
      std::ofstream(target, std::ios::binary | std::ios::app) << '\0';
    }
    const Finished rerun = RunToEnd(TrainArgv(run, args), {}, run.parent_path() / "rerun.out");
    ASSERT_EQ(ExitCode(rerun.status), 0) << rerun.output;
    EXPECT_THAT(rerun.output, ::testing::Not(HasSubstr("pass 1: already complete (resumed)")));
    EXPECT_THAT(rerun.output, HasSubstr("pass 1: " + (PassDir(run, 1) / file).string() + " does not verify"));
    EXPECT_EQ(DeterministicDigests(run), reference) << "the rerun reused a finished pass that does not verify";
  }
}

// --- SIGKILL at every rename of a run (issue 13 A) ------------------------------------------------
//
// A run that replaces an earlier training of the same RUNDIR (float32 -> exact: every pass directory
// and the final model are replaced) is killed by strace at each rename(2) and renameat2(2) it makes
// (strace counts each syscall separately, so rename, renameat and renameat2 are enumerated in turn; `when=N` kills on entry to the
// N-th call, before it happens). After every kill RUNDIR/model must be complete, the previous model
// or the new one, never missing; a rerun must end with the bytes of an uninterrupted run.

namespace {

// The start of a command line that runs pstrain under strace. In the sanitized build it turns off
// LeakSanitizer for the traced process: LeakSanitizer cannot run under ptrace (it stops the process
// with "LeakSanitizer has encountered a fatal error ... does not work under ptrace" and exit 1).
// AddressSanitizer and UBSan stay on.
std::vector<std::string> Strace() {
  std::vector<std::string> argv;
#ifdef PSTRAIN_SANITIZED
  const char* options = std::getenv("ASAN_OPTIONS");
  argv = {"env", std::string("ASAN_OPTIONS=") + (options != nullptr ? std::string(options) + ":" : "") + "detect_leaks=0"};
#endif
  argv.push_back("strace");
  return argv;
}

// The number of calls of `syscall` (rename or renameat2) that `argv` makes in its main process.
std::size_t CountSyscalls(const std::vector<std::string>& argv, const std::string& syscall, const fs::path& trace) {
  std::vector<std::string> traced = Strace();
  traced.insert(traced.end(), {"-qq", "-o", trace.string(), "-e", "trace=" + syscall});
  traced.insert(traced.end(), argv.begin(), argv.end());
  const CommandResult r = RunCommand(ShellCommand(traced) + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(trace);
  std::size_t count = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(syscall + "(", 0) == 0) ++count;
  }
  return count;
}

void CopyTree(const fs::path& from, const fs::path& to) {
  fs::remove_all(to);
  fs::create_directories(to.parent_path());
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
}

}  // namespace

TEST_F(FaultTest, SigkillAtEveryRenameLeavesACompleteModelAndTheRerunEndsWithTheSameBytes) {
  ASSERT_EQ(RunCommand("strace -V >/dev/null 2>&1").exit_code, 0) << "strace is needed (scripts/bootstrap.sh installs it)";
  const std::vector<std::string> previous_args = {"--jobs", "1", "--max-passes", "2", "--reduction", "float32"};
  const std::vector<std::string> args = {"--jobs", "1", "--max-passes", "2"};
  const auto reference = Reference(args);
  const auto new_model = Under(reference, "model/");
  ASSERT_FALSE(new_model.empty());

  const fs::path base = Scratch("previous") / "run";
  const Finished previous = RunToEnd(TrainArgv(base, previous_args), {}, base.parent_path() / "train.out");
  ASSERT_EQ(ExitCode(previous.status), 0) << previous.output;
  const auto previous_model = Under(DeterministicDigests(base), "model/");
  ASSERT_FALSE(previous_model.empty());
  ASSERT_NE(previous_model, new_model);

  const fs::path work = Scratch("kills");
  std::size_t kills = 0;
  for (const std::string syscall : {"rename", "renameat", "renameat2"}) {
    const fs::path counted = work / ("count-" + syscall) / "run";
    CopyTree(base, counted);
    const std::size_t calls = CountSyscalls(TrainArgv(counted, args), syscall, work / ("count-" + syscall) / "trace");
    EXPECT_EQ(Under(DeterministicDigests(counted), "model/"), new_model);
    for (std::size_t when = 1; when <= calls; ++when) {
      SCOPED_TRACE(syscall + " #" + std::to_string(when) + " of " + std::to_string(calls));
      const fs::path run = work / (syscall + "-" + std::to_string(when)) / "run";
      CopyTree(base, run);
      std::vector<std::string> killed = Strace();
      killed.insert(killed.end(), {"-qq", "-o", "/dev/null", "-e", "trace=" + syscall, "-e",
                                   "inject=" + syscall + ":signal=SIGKILL:when=" + std::to_string(when)});
      const std::vector<std::string> train = TrainArgv(run, args);
      killed.insert(killed.end(), train.begin(), train.end());
      const CommandResult k = RunCommand(ShellCommand(killed) + " 2>&1");
      EXPECT_NE(k.exit_code, 0) << "not killed: " << k.output;
      ++kills;
      const auto model = Under(DeterministicDigests(run), "model/");
      EXPECT_TRUE(model == previous_model || model == new_model)
          << "after the kill RUNDIR/model is neither the previous model nor the new one (" << model.size() << " files)";
      const Finished rerun = RunToEnd(TrainArgv(run, args), {}, run.parent_path() / "rerun.out");
      ASSERT_EQ(ExitCode(rerun.status), 0) << rerun.output;
      EXPECT_EQ(DeterministicDigests(run), reference) << "the rerun differs from an uninterrupted run";
    }
  }
  EXPECT_GT(kills, 10u);
}

// An I/O error at each directory exchange (renameat2: each pass's, then the final model's, whose
// files the last pass has staged before its own exchange) fails the run with its error, leaves
// RUNDIR/model as it was and no RUNDIR/.model.staging, and the rerun ends with the bytes of an
// uninterrupted run.
TEST_F(FaultTest, AnIoErrorAtEveryExchangeFailsTheRunLeavingThePreviousModelAndNoStaging) {
  ASSERT_EQ(RunCommand("strace -V >/dev/null 2>&1").exit_code, 0) << "strace is needed (scripts/bootstrap.sh installs it)";
  const std::vector<std::string> previous_args = {"--jobs", "1", "--max-passes", "2", "--reduction", "float32"};
  const std::vector<std::string> args = {"--jobs", "1", "--max-passes", "2"};
  const auto reference = Reference(args);
  const fs::path base = Scratch("previous") / "run";
  const Finished previous = RunToEnd(TrainArgv(base, previous_args), {}, base.parent_path() / "train.out");
  ASSERT_EQ(ExitCode(previous.status), 0) << previous.output;
  const auto previous_model = Under(DeterministicDigests(base), "model/");
  ASSERT_FALSE(previous_model.empty());

  const fs::path work = Scratch("io-errors");
  const fs::path counted = work / "count" / "run";
  CopyTree(base, counted);
  const std::size_t calls = CountSyscalls(TrainArgv(counted, args), "renameat2", work / "count" / "trace");
  EXPECT_GE(calls, 3u) << "two passes and the final model are exchanged";
  for (std::size_t when = 1; when <= calls; ++when) {
    SCOPED_TRACE("renameat2 #" + std::to_string(when) + " of " + std::to_string(calls));
    const fs::path run = work / ("renameat2-" + std::to_string(when)) / "run";
    CopyTree(base, run);
    std::vector<std::string> failing = Strace();
    failing.insert(failing.end(), {"-qq", "-o", "/dev/null", "-e", "trace=renameat2", "-e",
                                   "inject=renameat2:error=EIO:when=" + std::to_string(when)});
    const std::vector<std::string> train = TrainArgv(run, args);
    failing.insert(failing.end(), train.begin(), train.end());
    const CommandResult f = RunCommand(ShellCommand(failing) + " 2>&1");
    EXPECT_NE(f.exit_code, 0) << "the failed exchange was not reported: " << f.output;
    EXPECT_NE(f.output.find("Input/output error"), std::string::npos) << f.output;
    EXPECT_EQ(Under(DeterministicDigests(run), "model/"), previous_model) << "a failed run changed RUNDIR/model";
    EXPECT_FALSE(fs::exists(FinalModelStagingDir(run))) << "a failed run left the final model's staging";
    const Finished rerun = RunToEnd(TrainArgv(run, args), {}, run.parent_path() / "rerun.out");
    ASSERT_EQ(ExitCode(rerun.status), 0) << rerun.output;
    EXPECT_EQ(DeterministicDigests(run), reference) << "the rerun differs from an uninterrupted run";
  }
}

// Workers on this machine leave their files' fsyncs to the coordinator (ShardTask::coordinator_syncs),
// which makes every file of every shard durable, and each shard directory, before the pass directory
// is renamed into place. Traced with strace (-y names each descriptor's file): no worker process
// fsyncs anything; the coordinator's process fsyncs each file the finished pass's shard directories
// hold, under its staging name, before the pass's rename, and 1 job (the shard in the coordinator's
// own process) does the same.
TEST_F(FaultTest, LocalWorkersLeaveTheirFsyncsToTheCoordinatorBeforeThePassRename) {
  ASSERT_EQ(RunCommand("strace -V >/dev/null 2>&1").exit_code, 0) << "strace is needed (scripts/bootstrap.sh installs it)";
  for (const char* jobs : {"2", "1"}) {
    SCOPED_TRACE(std::string("--jobs ") + jobs);
    const fs::path dir = Scratch(std::string("fsyncs-") + jobs);
    const fs::path run = dir / "run";
    std::vector<std::string> traced = Strace();
    traced.insert(traced.end(), {"-f", "-y", "-qq", "-o", (dir / "trace").string(), "-e", "trace=fsync,fdatasync,renameat2,clone,clone3"});
    const std::vector<std::string> train = TrainArgv(run, {"--jobs", jobs, "--max-passes", "1"});
    traced.insert(traced.end(), train.begin(), train.end());
    const CommandResult r = RunCommand(ShellCommand(traced) + " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // Each line: TID syscall(...) = result (a call another thread interrupts is split into
    // "<unfinished ...>" and "<... NAME resumed>" lines). Each thread's process is followed through
    // the clones: a thread (CLONE_THREAD) joins its creator's process, anything else starts one.
    // A new thread's first calls can be printed before its creator's clone returns, so the whole
    // trace is read first and the processes are worked out after.
    std::map<std::string, std::pair<std::string, bool>> created_by;  // thread id -> (creator, CLONE_THREAD)
    std::map<std::string, std::string> unfinished;                   // thread id -> the start of its interrupted call
    std::vector<std::pair<std::string, std::string>> thread_calls;   // (thread id, call), in trace order
    std::ifstream in(dir / "trace");
    for (std::string line; std::getline(in, line);) {
      const std::size_t space = line.find(' ');
      if (space == std::string::npos) continue;
      const std::string tid = line.substr(0, space);
      std::string call = line.substr(line.find_first_not_of(' ', space));
      if (call.find("<unfinished ...>") != std::string::npos) {
        unfinished[tid] = call;
        continue;
      }
      if (call.rfind("<... ", 0) == 0) call = unfinished[tid] + call;
      if (call.rfind("clone(", 0) == 0 || call.rfind("clone3(", 0) == 0) {
        created_by[call.substr(call.rfind("= ") + 2)] = {tid, call.find("CLONE_THREAD") != std::string::npos};
        continue;
      }
      thread_calls.emplace_back(tid, call);
    }
    const std::function<std::string(const std::string&)> process = [&](const std::string& tid) {
      const auto it = created_by.find(tid);
      return it != created_by.end() && it->second.second ? process(it->second.first) : tid;
    };
    std::string coordinator;
    std::vector<std::pair<std::string, std::string>> calls;  // (process id, call)
    for (const auto& [tid, call] : thread_calls) {
      if (call.rfind("renameat2(", 0) == 0 && call.find("/passes/.001.staging") != std::string::npos) coordinator = process(tid);
      calls.emplace_back(process(tid), call);
    }
    ASSERT_FALSE(coordinator.empty()) << "no rename of the pass directory in the trace";
    std::set<std::string> synced_before_rename;
    bool renamed = false;
    for (const auto& [pid, call] : calls) {
      const bool sync = call.rfind("fsync(", 0) == 0 || call.rfind("fdatasync(", 0) == 0;
      if (sync) {
        EXPECT_EQ(pid, coordinator) << "a worker synced: " << call;
      }
      if (call.rfind("renameat2(", 0) == 0 && call.find("/passes/.001.staging") != std::string::npos) renamed = true;
      if (!sync || renamed) continue;
      const std::size_t open = call.find('<'), close = call.find('>', open);
      if (open != std::string::npos && close != std::string::npos) synced_before_rename.insert(call.substr(open + 1, close - open - 1));
    }
    const fs::path staging = fs::canonical(run / "passes") / ".001.staging";
    std::size_t shard_files = 0;
    for (const auto& shard : fs::directory_iterator(PassDir(run, 1))) {
      if (shard.path().filename().string().rfind("shard-", 0) != 0) continue;
      const fs::path staged_shard = staging / shard.path().filename();
      EXPECT_TRUE(synced_before_rename.count(staged_shard.string())) << staged_shard << " was not fsynced before the pass rename";
      for (const auto& file : fs::directory_iterator(shard.path())) {
        ++shard_files;
        const fs::path staged = staged_shard / file.path().filename();
        EXPECT_TRUE(synced_before_rename.count(staged.string())) << staged << " was not fsynced before the pass rename";
      }
    }
    EXPECT_GE(shard_files, std::string(jobs) == "2" ? 14u : 7u);  // artifact, payload, telemetry, logs
  }
}

}  // namespace
}  // namespace pstrain::testing
