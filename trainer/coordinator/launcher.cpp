// The inline and local-process launchers, and the worker command line (WorkerArguments).
#include "coordinator/launcher.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <exception>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

#include "common/error.h"
#include "common/interrupt.h"
#include "coordinator/worker_failure.h"
#include "coordinator/worker_flags.h"
#include "coordinator/worker_process.h"
#include "provenance/provenance.h"

namespace pstrain {

namespace fs = std::filesystem;

namespace {

std::string Num(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  return buffer;
}

std::string Tail(const fs::path& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "(no log)";
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() > max_bytes) text = "..." + text.substr(text.size() - max_bytes);
  return text.empty() ? "(empty log)" : text;
}

std::string DescribeExit(int native_status) {
  if (WIFSIGNALED(native_status)) return "was killed by signal " + std::to_string(WTERMSIG(native_status));
  if (WIFEXITED(native_status)) return "exited with status " + std::to_string(WEXITSTATUS(native_status));
  return "ended abnormally";
}

}  // namespace

std::string SelfExecutable() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw TrainingError("cannot locate the pstrain executable (/proc/self/exe): " + ec.message());
  return self.string();
}

std::vector<std::string> WorkerArguments(const ShardTask& task) {
  const PassInputs& in = task.inputs;
  const AccumulateOptions& o = in.options;
  std::string retry;
  for (const BeamOptions& beam : o.retry_beams) retry += (retry.empty() ? "" : ",") + Num(beam.abeam) + ":" + Num(beam.bbeam);
  namespace f = worker_flag;
  std::vector<std::string> args = {"worker"};
  const auto add = [&args](const char* flag, std::string value) {
    args.push_back(f::Dashed(flag));
    args.push_back(std::move(value));
  };
  add(f::kModel, in.model_dir);
  add(f::kManifest, in.manifest_path);
  add(f::kCorpusRoot, in.corpus_root);
  add(f::kDict, in.dict);
  add(f::kFiller, in.filler);
  add(f::kPass, std::to_string(task.pass));
  add(f::kShard, std::to_string(task.shard));
  add(f::kShards, std::to_string(task.shard_count));
  add(f::kReduction, ReductionModeName(in.reduction));
  add(f::kOut, task.shard_dir);
  add(f::kCoordinatorPid, std::to_string(::getpid()));
  if (task.coordinator_syncs) add(f::kCoordinatorSyncs, "yes");
  add(f::kCmn, o.features.cmn == CmnMode::kBatch ? "batch" : "none");
  add(f::kVarnorm, o.features.varnorm ? "yes" : "no");
  add(f::kTopn, std::to_string(o.model.topn));
  add(f::kAbeam, Num(o.fb.beams.abeam));
  add(f::kBbeam, Num(o.fb.beams.bbeam));
  add(f::kPass2var, o.fb.pass2var ? "yes" : "no");
  add(f::kVarfloor, Num(o.model.varfloor));
  add(f::kMwfloor, Num(o.model.mwfloor));
  add(f::kTpfloor, Num(o.model.tpfloor));
  add(f::kSpthresh, Num(o.fb.spthresh));
  add(f::kRetryBeams, retry.empty() ? "none" : retry);
  if (o.multipron) add(f::kMultipron, "yes");
  return args;
}

namespace {

// One progress line on stderr, rewritten in place: shards done, utterances/s, estimated time left.
class ProgressLine {
 public:
  ProgressLine(bool enabled, const std::vector<ShardTask>& tasks) : enabled_(enabled), tasks_(tasks), start_(std::chrono::steady_clock::now()) {}
  ~ProgressLine() {
    if (enabled_ && shown_) std::fprintf(stderr, "\r%*s\r", 79, "");
  }
  void ShardDone(const ShardTask& task) {
    ++done_;
    // Counted only for the line shown (a quiet run does not read the logs: the last shard's is
    // read after every worker has finished, on the pass's critical path).
    if (!enabled_ || tasks_.empty()) return;
    // The shard's worker.log has one line per utterance; its 4th field is the frame count.
    std::ifstream log(fs::path(task.shard_dir) / "worker.log");
    for (std::string line; std::getline(log, line);) {
      ++utterances_;
      std::istringstream fields(line);
      std::string tag, index, id;
      std::size_t frames = 0;
      if (fields >> tag >> index >> id >> frames) frames_ += frames;
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double left = done_ ? elapsed / double(done_) * double(tasks_.size() - done_) : 0.0;
    std::fprintf(stderr, "\r  pass %u: %zu/%zu shards done, %.0f utt/s, %.0f frames/s, ~%.0f s left   ", tasks_.front().pass, done_,
                 tasks_.size(), elapsed > 0 ? double(utterances_) / elapsed : 0.0, elapsed > 0 ? double(frames_) / elapsed : 0.0, left);
    std::fflush(stderr);
    shown_ = true;
  }

 private:
  bool enabled_;
  const std::vector<ShardTask>& tasks_;
  std::chrono::steady_clock::time_point start_;
  std::size_t done_ = 0, utterances_ = 0, frames_ = 0;
  bool shown_ = false;
};

// Returns when a worker of `fds` has exited, or after at most 50 ms (so that a signal to the
// coordinator is seen soon); after 10 ms when a pidfd is missing.
void WaitForAnExit(const std::vector<int>& fds) {
  std::vector<pollfd> polled;
  for (int fd : fds) {
    if (fd < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      return;
    }
    polled.push_back({fd, POLLIN, 0});
  }
  ::poll(polled.data(), polled.size(), 50);  // EINTR (a signal) returns early too: the caller checks
}

}  // namespace

void InlineLauncher::Run(const std::vector<ShardTask>& tasks, const TaskDone& on_done) {
  ProgressLine progress(progress_, tasks);
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    // One shard at a time in this process: a second CPU may read ahead and add for it
    // (AccumulateOptions::helper_threads).
    ShardTask task = tasks[i];
    task.inputs.options.helper_threads = true;
    task.coordinator_syncs = true;  // this process: RunShardedPass fsyncs the shard's files
    RunShardTask(task);
    progress.ShardDone(tasks[i]);
    if (on_done) on_done(i);
  }
}

LocalProcessLauncher::LocalProcessLauncher(std::string pstrain_executable, std::uint32_t max_parallel)
    : executable_(std::move(pstrain_executable)), max_parallel_(std::max<std::uint32_t>(1, max_parallel)) {}

void LocalProcessLauncher::Run(const std::vector<ShardTask>& tasks, const TaskDone& on_done) {
  InterruptGuard interrupt_guard;
  struct Running {
    std::size_t task;
    WorkerProcess process;
  };
  std::vector<Running> running;
  ProgressLine progress(progress_, tasks);
  std::size_t next = 0;
  std::optional<std::string> failure;
  std::optional<std::string> input_failure;  // a worker's bad-input report: fails the pass as an InputError

  // The files this process's code identity hashed, as stamps (provenance/code_file_stamps.h): a
  // worker running the same, unchanged files takes their digests instead of hashing them again.
  const std::string code_file_stamps = EncodeCodeFileStamps(ProcessCodeFileStamps());
  std::vector<std::size_t> finished;  // ended successfully, not yet passed to on_done
  std::exception_ptr callback_error;
  // false (and callback_error set) when on_done threw: the pass stops.
  auto notify_finished = [&]() {
    for (std::size_t task : finished) {
      if (!on_done || callback_error) break;
      try {
        on_done(task);
      } catch (...) {
        callback_error = std::current_exception();
      }
    }
    finished.clear();
    return !callback_error;
  };

  auto stop_all = [&]() {
    for (Running& r : running) r.process.Kill();  // SIGKILL if it still runs; reaped
    running.clear();
  };

  while ((next < tasks.size() || !running.empty()) && !failure) {
    while (next < tasks.size() && running.size() < max_parallel_) {
      const ShardTask& task = tasks[next];
      fs::create_directories(task.shard_dir);
      const fs::path log = fs::path(task.shard_dir) / "worker.stderr";
      std::error_code ec;
      ShardTask local = task;
      local.coordinator_syncs = true;  // its child, on this machine: RunShardedPass fsyncs its files
      WorkerProcess process =
          WorkerProcess::Start(executable_, WorkerArguments(local), log, kCodeFileStampsVariable, code_file_stamps, ec);
      if (ec) {
        failure = "shard " + std::to_string(task.shard) + ": cannot start worker " + executable_ + ": " + ec.message();
        break;
      }
      running.push_back({next, std::move(process)});
      ++next;
    }
    if (failure) break;
    // The tasks that ended since the last look, reported once their slots are refilled: the other
    // workers run meanwhile.
    if (!notify_finished()) break;
    // Reap finished workers; any failure stops the pass.
    for (std::size_t i = 0; i < running.size() && !failure;) {
      if (running[i].process.Running()) {
        ++i;
        continue;
      }
      const int status = running[i].process.Wait();  // (reaped by Running(): its status)
      const ShardTask& task = tasks[running[i].task];
      if (WIFEXITED(status) && WEXITSTATUS(status) == 2) input_failure = ReadWorkerInputError(task.shard_dir);
      if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        const fs::path stderr_log = fs::path(task.shard_dir) / "worker.stderr";
        const fs::path utterance_log = fs::path(task.shard_dir) / "worker.log";
        failure = "pass " + std::to_string(task.pass) + ", shard " + std::to_string(task.shard) + ": worker (pid " +
                  std::to_string(running[i].process.pid()) + ") " + DescribeExit(status) + "; its log " + utterance_log.string() +
                  " ends:\n" + Tail(utterance_log, 1000);
        std::error_code size_ec;
        if (fs::file_size(stderr_log, size_ec) > 0 && !size_ec) {
          *failure += "\nits output " + stderr_log.string() + " ends:\n" + Tail(stderr_log, 2000);
        }
        running.erase(running.begin() + static_cast<long>(i));
        continue;
      }
      progress.ShardDone(task);
      finished.push_back(running[i].task);
      running.erase(running.begin() + static_cast<long>(i));
    }
    if (const std::optional<std::string> stop = StopRequest()) {
      failure = *stop + "; stopped " + std::to_string(running.size()) + " running workers";
      break;
    }
    if (!running.empty() && finished.empty()) {
      std::vector<int> fds;
      for (const Running& r : running) fds.push_back(r.process.exit_fd());
      WaitForAnExit(fds);
    }
  }
  stop_all();
  if (callback_error) std::rethrow_exception(callback_error);
  // Bad input found by a worker: the same InputError (exit 2, same message) as with one job.
  if (input_failure) throw InputError(*input_failure);
  if (failure) throw TrainingError(*failure);
  notify_finished();
  if (callback_error) std::rethrow_exception(callback_error);
}

}  // namespace pstrain
