// The Slurm launcher: submitting a pass as a job array, waiting for it, cancelling and retrying it.
#include "coordinator/slurm_launcher.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "common/error.h"
#include "common/file_io.h"
#include "common/interrupt.h"
#include "coordinator/worker_failure.h"
#include "coordinator/worker_flags.h"

namespace pstrain {

namespace fs = std::filesystem;
namespace bp = boost::process;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

// How long a task that Slurm reports as ended may take to show its exit marker on the shared
// filesystem (attribute caches of network filesystems) before the task counts as failed.
constexpr auto kMarkerGrace = 60s;
constexpr auto kFirstQuery = 1s;
constexpr auto kMaxQueryInterval = 15s;
// Marker sweeps: every 200 ms, every 2 ms per pending task for large arrays (one open per pending
// task and sweep on a shared filesystem), at most every 5 s.
constexpr auto kMarkerPoll = 200ms;
constexpr auto kMarkerPollPerTask = 2ms;
constexpr auto kMaxMarkerPoll = 5s;
constexpr auto kCancelTimeout = 60s;
// A marker with a signal status (128+N): how long the controller is asked, and how often, for
// the task's final state before the worker's status alone is reported.
constexpr auto kSignalStateWait = 10s;
constexpr auto kSignalStateQuery = 250ms;
// Consecutive failed squeue calls (controller unreachable) before the pass fails.
constexpr int kMaxQueryFailures = 20;

std::string Quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string Tail(const fs::path& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "(no file)";
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() > max_bytes) text = "..." + text.substr(text.size() - max_bytes);
  return text.empty() ? "(empty)" : text;
}

// Starts a Slurm client in its own process group: a Ctrl-C on the terminal reaches the coordinator
// only, which then cancels the array itself, instead of killing an sbatch half-way (a job submitted
// but never known to the coordinator).
struct OwnProcessGroup : bp::extend::handler {
  template <class Executor>
  void on_exec_setup(Executor&) const {
    ::setpgid(0, 0);
  }
};

struct ToolResult {
  int status = -1;     // exit status; -1 when it could not be started
  std::string output;  // stdout and stderr
};

// Runs a Slurm client command (found in PATH) and collects its output.
ToolResult RunTool(const std::vector<std::string>& argv) {
  ToolResult result;
  const auto program = bp::search_path(argv.front());
  if (program.empty()) {
    result.output = argv.front() + " not found in PATH (is this a Slurm submit host? Debian: slurm-client)";
    return result;
  }
  bp::ipstream out;
  std::error_code ec;
  bp::child child(program, bp::args = std::vector<std::string>(argv.begin() + 1, argv.end()), (bp::std_out & bp::std_err) > out,
                  bp::std_in < bp::null, OwnProcessGroup(), ec);
  if (ec) {
    result.output = "cannot start " + program.string() + ": " + ec.message();
    return result;
  }
  std::string text((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  child.wait(ec);
  result.output = std::move(text);
  result.status = ec ? -1 : child.exit_code();
  return result;
}

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) text.pop_back();
  return text;
}

std::string CommandLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& arg : argv) line += (line.empty() ? "" : " ") + arg;
  return line;
}

std::string ArraySpec(const std::vector<std::uint32_t>& ids) {
  // Contiguous runs as a-b, comma-separated (sbatch --array syntax).
  std::string spec;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!spec.empty()) spec += ",";
    spec += std::to_string(ids[i]);
    if (j > i) spec += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  return spec;
}

bool IsSignalStatus(int status) { return status > 128 && status < 128 + 65; }

std::string DescribeStatus(int status) {
  std::string text = "exited with status " + std::to_string(status);
  if (IsSignalStatus(status)) text += " (killed by signal " + std::to_string(status - 128) + ")";
  return text;
}

// " (reason: R)" for a controller reason worth showing.
std::string ReasonSuffix(const std::string& reason) {
  return reason.empty() || reason == "None" ? "" : " (reason: " + reason + ")";
}

// What the controller says about one array task.
struct TaskView {
  std::string state, node, reason;
};

struct QueryResult {
  bool ok = false;
  bool job_unknown = false;  // the controller no longer (or never) knew the job
  std::map<std::uint32_t, TaskView> tasks;
  std::string error;
};

// Every element of array job `job_id` the controller still holds, in any state.
QueryResult QueryJob(const std::string& job_id) {
  QueryResult query;
  const ToolResult r = RunTool({"squeue", "-h", "-r", "-t", "all", "-j", job_id, "-o", "%K|%T|%N|%r"});
  if (r.status != 0) {
    if (r.output.find("Invalid job id") != std::string::npos) {
      query.ok = true;
      query.job_unknown = true;
      return query;
    }
    query.error = "squeue -j " + job_id + ": " + (r.status < 0 ? "" : "exit " + std::to_string(r.status) + ": ") + Trimmed(r.output);
    return query;
  }
  query.ok = true;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields;
    std::stringstream split(line);
    for (std::string field; std::getline(split, field, '|');) fields.push_back(field);
    if (fields.size() < 2) continue;
    try {
      std::size_t used = 0;
      const unsigned long id = std::stoul(fields[0], &used);
      if (used != fields[0].size()) continue;  // an unexpanded range such as [0-3]
      TaskView view{fields[1], fields.size() > 2 ? fields[2] : "", fields.size() > 3 ? fields[3] : ""};
      query.tasks[static_cast<std::uint32_t>(id)] = view;
    } catch (const std::exception&) {
      continue;
    }
  }
  return query;
}

// Per task: what happened, for the error message and job.json.
struct TaskRecord {
  std::string state = "SUBMITTED";
  std::optional<int> exit_status;
  std::string node;
  std::string output;  // file name inside the slurm directory
  std::string job_id;
  std::uint32_t attempts = 0;
  std::string failure;  // empty: succeeded (or not finished)
};

struct Submission {
  std::string job_id;
  std::string array;
  std::vector<std::string> sbatch;
};

}  // namespace

bool IsFinalSlurmState(const std::string& state) {
  static const std::set<std::string> kFinal = {"COMPLETED", "CANCELLED", "FAILED",  "TIMEOUT",      "PREEMPTED",   "NODE_FAIL",
                                               "BOOT_FAIL", "DEADLINE",  "REVOKED", "SPECIAL_EXIT", "OUT_OF_MEMORY"};
  return kFinal.count(state) > 0;
}

std::string SlurmBatchScript(const std::string& executable, const std::vector<ShardTask>& tasks, const std::string& slurm_dir) {
  if (tasks.empty()) throw TrainingError("Slurm launcher: no shard tasks");
  std::ostringstream script;
  script << "#!/bin/sh\n"
         << "# Written by pstrain's Slurm launcher: pass " << tasks.front().pass << ", " << tasks.size()
         << " shards; array task I runs shard I (docs/slurm.md).\n"
         << "task=\"${SLURM_ARRAY_TASK_ID:?pstrain: not started as a Slurm array task}\"\n"
         << "case \"$task\" in\n";
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    if (tasks[i].shard != i) throw TrainingError("Slurm launcher: task " + std::to_string(i) + " is shard " + std::to_string(tasks[i].shard));
    script << "  " << i << ") shard_dir=" << Quote(fs::absolute(tasks[i].shard_dir).lexically_normal().string()) << " ;;\n";
  }
  script << "  *) echo \"pstrain: array task $task is not a shard of this pass\" >&2; exit 3 ;;\n"
         << "esac\n";
  // One worker command for all tasks: the shard and its directory come from the task id; no
  // coordinator PID (the coordinator is on another machine).
  // Paths are made absolute: the task runs in the slurm directory, on another machine.
  std::vector<std::string> args = WorkerArguments(tasks.front());
  namespace f = worker_flag;
  static const std::set<std::string> kPathOptions = {f::Dashed(f::kModel), f::Dashed(f::kManifest), f::Dashed(f::kCorpusRoot),
                                                     f::Dashed(f::kDict), f::Dashed(f::kFiller)};
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (kPathOptions.count(args[i - 1]) && !args[i].empty()) args[i] = fs::absolute(args[i]).lexically_normal().string();
  }
  std::string command = Quote(executable);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    command += " " + (i > 0 && args[i - 1] == f::Dashed(f::kShard)            ? std::string("\"$task\"")
                      : i > 0 && args[i - 1] == f::Dashed(f::kOut)            ? std::string("\"$shard_dir\"")
                      : i > 0 && args[i - 1] == f::Dashed(f::kCoordinatorPid) ? std::string("0")
                                                                              : Quote(arg));
  }
  const std::string marker = Quote(slurm_dir) + "/task-\"$task\".exit";
  script << command << "\n"
         << "status=$?\n"
         << "node=\"${SLURMD_NODENAME:-$(hostname)}\"\n"
         << "printf '%s %s %s\\n' \"$status\" \"$node\" \"${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID:-none}}\" > " << marker << ".tmp && mv -f " << marker << ".tmp " << marker
         << " || { echo \"pstrain: cannot write the exit marker\" >&2; exit 70; }\n"
         << "exit \"$status\"\n";
  return script.str();
}

SlurmLauncher::SlurmLauncher(std::string pstrain_executable, SlurmOptions options)
    : executable_(std::move(pstrain_executable)), options_(std::move(options)) {}

void SlurmLauncher::Run(const std::vector<ShardTask>& tasks, const TaskDone& on_done) {
  if (tasks.empty()) return;
  InterruptGuard interrupt_guard;
  const std::uint32_t pass = tasks.front().pass;
  const fs::path slurm_dir = fs::absolute(fs::path(tasks.front().shard_dir).parent_path() / "slurm").lexically_normal();
  fs::create_directories(slurm_dir);
  const fs::path script_path = slurm_dir / "array.sh";
  WriteFileAtomic(script_path, SlurmBatchScript(executable_, tasks, slurm_dir.string()));
  fs::permissions(script_path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                                   fs::perms::others_exec);

  std::vector<TaskRecord> records(tasks.size());
  std::vector<Submission> submissions;
  // The array being waited for: cancelled (without waiting) if anything unexpected ends Run early
  // (a write error, an exception), so that no array outlives its coordinator's interest in it.
  struct ActiveJob {
    std::string id;
    ~ActiveJob() {
      if (!id.empty()) RunTool({"scancel", id});
    }
  } active;
  const std::string pass_label = "pass " + std::to_string(pass);

  auto write_job_json = [&]() {
    json::object root;
    root["format"] = "pstrain-slurm-job-1";
    root["pass"] = pass;
    root["shards"] = tasks.size();
    root["partition"] = options_.partition;
    root["retry_failed_shards"] = options_.retry_failed;
    json::array subs;
    for (const Submission& s : submissions) {
      json::object o;
      o["job_id"] = s.job_id;
      o["array"] = s.array;
      json::array argv;
      for (const std::string& a : s.sbatch) argv.push_back(json::value(a));
      o["sbatch"] = std::move(argv);
      subs.push_back(std::move(o));
    }
    root["submissions"] = std::move(subs);
    json::array list;
    for (std::size_t i = 0; i < records.size(); ++i) {
      const TaskRecord& r = records[i];
      json::object o;
      o["task"] = i;
      o["shard_dir"] = tasks[i].shard_dir;
      o["job_id"] = r.job_id;
      o["attempts"] = r.attempts;
      o["state"] = r.state;
      if (r.exit_status) o["exit_status"] = *r.exit_status;
      else o["exit_status"] = nullptr;
      o["node"] = r.node;
      o["output"] = r.output;
      if (!r.failure.empty()) o["failure"] = r.failure;
      list.push_back(std::move(o));
    }
    root["tasks"] = std::move(list);
    WriteFileAtomic(slurm_dir / "job.json", json::serialize(root) + "\n");
  };

  // Cancels the job and waits (with back-off) until the controller shows none of its tasks active.
  auto cancel = [&](const std::string& job_id) -> std::string {
    const ToolResult r = RunTool({"scancel", job_id});
    if (r.status != 0) return "scancel " + job_id + " failed: " + Trimmed(r.output);
    const auto deadline = Clock::now() + kCancelTimeout;
    auto interval = 250ms;
    while (Clock::now() < deadline) {
      const ToolResult q = RunTool({"squeue", "-h", "-j", job_id, "-o", "%i"});
      if ((q.status == 0 && Trimmed(q.output).empty()) || q.output.find("Invalid job id") != std::string::npos) return "";
      std::this_thread::sleep_for(interval);
      interval = std::min<std::chrono::milliseconds>(interval * 2, 2s);
    }
    return "tasks of job " + job_id + " still active " + std::to_string(kCancelTimeout.count()) + " s after scancel";
  };

  auto failure_text = [&](std::uint32_t id) {
    const TaskRecord& r = records[id];
    const fs::path worker_log = fs::path(tasks[id].shard_dir) / "worker.log";
    std::string text = pass_label + ", shard " + std::to_string(id) + " (Slurm job " + r.job_id + ", array task " + std::to_string(id) +
                       (r.node.empty() ? "" : ", node " + r.node) + "): " + r.failure;
    text += "; its log " + worker_log.string() + " ends:\n" + Tail(worker_log, 1000);
    text += "\nits output " + (slurm_dir / r.output).string() + " ends:\n" + Tail(slurm_dir / r.output, 2000);
    return text;
  };

  // Submits the tasks `ids` as one array and waits for them. With `fail_fast`, the first failed task
  // cancels the others. Returns the ids that failed; throws when interrupted or Slurm cannot be used.
  auto run_array = [&](const std::vector<std::uint32_t>& ids, const std::string& output_pattern, bool fail_fast) {
    for (std::uint32_t id : ids) {
      std::error_code ec;
      fs::remove(slurm_dir / ("task-" + std::to_string(id) + ".exit"), ec);
    }
    std::vector<std::string> argv = {"sbatch",
                                     "--parsable",
                                     "--array=" + ArraySpec(ids),
                                     "--job-name=pstrain-pass-" + std::to_string(pass),
                                     "--output=" + (slurm_dir / output_pattern).string(),
                                     "--chdir=" + slurm_dir.string(),
                                     "--ntasks=1"};
    if (!options_.partition.empty()) argv.push_back("--partition=" + options_.partition);
    for (const std::string& extra : options_.sbatch_args) argv.push_back(extra);
    argv.push_back(script_path.string());
    const ToolResult submitted = RunTool(argv);
    // --parsable prints "JOBID" or "JOBID;CLUSTER"; sbatch may also print warnings (same stream here).
    std::string job_id;
    std::istringstream lines(submitted.output);
    for (std::string line; std::getline(lines, line);) {
      const std::string candidate = Trimmed(line).substr(0, Trimmed(line).find(';'));
      if (!candidate.empty() && candidate.find_first_not_of("0123456789") == std::string::npos) job_id = candidate;
    }
    if (submitted.status != 0 || job_id.empty()) {
      throw TrainingError(pass_label + ": submitting the job array failed: " + CommandLine(argv) + "\n" +
                          (submitted.status < 0 ? "" : "sbatch exit " + std::to_string(submitted.status) + ": ") + Trimmed(submitted.output));
    }
    active.id = job_id;
    submissions.push_back({job_id, ArraySpec(ids), argv});
    for (std::uint32_t id : ids) {
      TaskRecord& r = records[id];
      r.job_id = job_id;
      ++r.attempts;
      r.state = "PENDING";
      r.exit_status.reset();
      r.failure.clear();
      std::string output = output_pattern;
      output.replace(output.find("%a"), 2, std::to_string(id));
      r.output = output;
    }
    write_job_json();

    std::set<std::uint32_t> pending(ids.begin(), ids.end());
    std::vector<std::uint32_t> failed;
    std::map<std::uint32_t, Clock::time_point> grace;  // ended per Slurm, marker not seen yet
    // Marker says "killed by signal", controller not asked yet: a task cancelled, timed out or
    // preempted by Slurm often gets its worker killed before the batch script, which then writes
    // 128+N. The controller's final state says who killed it; the marker alone does not.
    std::map<std::uint32_t, Clock::time_point> signalled;
    auto query_interval = std::chrono::duration_cast<std::chrono::milliseconds>(kFirstQuery);
    auto next_query = Clock::now() + query_interval;
    int query_failures = 0;
    std::string last_query_error;

    while (!pending.empty()) {
      if (const std::optional<std::string> stop = StopRequest()) {
        const std::string problem = cancel(job_id);
        active.id.clear();
        for (std::uint32_t id : pending) records[id].state = "CANCELLED";
        write_job_json();
        throw TrainingError(*stop + "; cancelled Slurm job " + job_id + (problem.empty() ? " (no task of it is active)" : " (" + problem + ")"));
      }
      // Exit markers: the authoritative exit status of each worker.
      for (auto it = pending.begin(); it != pending.end();) {
        const std::uint32_t id = *it;
        const fs::path marker = slurm_dir / ("task-" + std::to_string(id) + ".exit");
        std::ifstream in(marker);
        int status = 0;
        std::string node, marker_job;
        // A marker of another array (an earlier, abandoned submission of this pass) is not ours.
        if (signalled.count(id) || !(in >> status >> node >> marker_job) || marker_job != job_id) {
          ++it;
          continue;
        }
        TaskRecord& r = records[id];
        r.exit_status = status;
        if (!node.empty()) r.node = node;
        if (status == 0) {
          r.state = "COMPLETED";
          r.failure.clear();
        } else if (IsSignalStatus(status)) {
          r.failure = "worker " + DescribeStatus(status);
          signalled[id] = Clock::now() + kSignalStateWait;
          grace.erase(id);
          next_query = std::min(next_query, Clock::now());
          ++it;
          continue;
        } else {
          r.state = "FAILED";
          r.failure = "worker " + DescribeStatus(status);
          failed.push_back(id);
        }
        it = pending.erase(it);
      }
      if (fail_fast && !failed.empty()) break;
      const auto now = Clock::now();
      if (!pending.empty() && now >= next_query) {
        const QueryResult q = QueryJob(job_id);
        if (!q.ok) {
          last_query_error = q.error;
          if (++query_failures >= kMaxQueryFailures) {
            cancel(job_id);
            throw TrainingError(pass_label + ": lost contact with the Slurm controller while waiting for job " + job_id + ": " +
                                last_query_error);
          }
        } else {
          query_failures = 0;
          for (auto it = pending.begin(); it != pending.end();) {
            const std::uint32_t id = *it;
            const auto found = q.tasks.find(id);
            TaskRecord& r = records[id];
            if (found != q.tasks.end()) {
              r.state = found->second.state;
              if (!found->second.node.empty() && found->second.node != "(null)") r.node = found->second.node;
            }
            if (signalled.count(id)) {
              // The marker is in; only the controller's verdict on who sent the signal is awaited.
              if (found != q.tasks.end() && IsFinalSlurmState(found->second.state)) {
                if (found->second.state != "FAILED" && found->second.state != "COMPLETED") {
                  r.failure = "task ended in state " + found->second.state + ReasonSuffix(found->second.reason) + "; its " + r.failure;
                } else {
                  r.state = "FAILED";
                }
                signalled.erase(id);
                failed.push_back(id);
                it = pending.erase(it);
              } else {
                ++it;
              }
              continue;
            }
            ++it;
            // Not listed at all: purged from the controller (or never known); marker awaited.
            const bool ended = found == q.tasks.end() || IsFinalSlurmState(found->second.state);
            if (!ended) {
              grace.erase(id);
              continue;
            }
            if (found != q.tasks.end() && found->second.state != "COMPLETED") {
              // Ended without a marker: never ran to the end of the batch script.
              r.failure = "task ended in state " + found->second.state + ReasonSuffix(found->second.reason) +
                          " without an exit status from the worker";
              // Fails below unless the marker shows up in the meantime (written just before the
              // task ended: a worker that exited non-zero).
              if (!grace.count(id)) grace[id] = now + 2s;
            } else if (!grace.count(id)) {
              grace[id] = now + kMarkerGrace;
            }
          }
        }
        query_interval = std::min<std::chrono::milliseconds>(query_interval * 2, kMaxQueryInterval);
        next_query = Clock::now() + (signalled.empty() ? query_interval : kSignalStateQuery);
      }
      for (auto it = signalled.begin(); it != signalled.end();) {
        if (Clock::now() < it->second) {
          ++it;
          continue;
        }
        // No final state from the controller in time: the worker's own status is all there is.
        records[it->first].state = "FAILED";
        failed.push_back(it->first);
        pending.erase(it->first);
        it = signalled.erase(it);
      }
      for (auto it = grace.begin(); it != grace.end();) {
        if (!pending.count(it->first)) {
          it = grace.erase(it);
          continue;
        }
        if (Clock::now() >= it->second) {
          TaskRecord& r = records[it->first];
          if (r.failure.empty()) {
            r.failure = "Slurm reports the task as " + (r.state == "PENDING" ? std::string("gone") : r.state) + " but its exit marker " +
                        (slurm_dir / ("task-" + std::to_string(it->first) + ".exit")).string() + " did not appear within " +
                        std::to_string(kMarkerGrace.count()) + " s (is the run directory on a filesystem shared with the compute nodes?)";
          }
          if (r.state == "PENDING" || r.state == "RUNNING") r.state = "UNKNOWN";
          failed.push_back(it->first);
          pending.erase(it->first);
          it = grace.erase(it);
          continue;
        }
        ++it;
      }
      if (fail_fast && !failed.empty()) break;
      if (!pending.empty()) {
        const std::chrono::milliseconds sweep = kMarkerPollPerTask * static_cast<long>(pending.size());
        std::this_thread::sleep_for(std::clamp<std::chrono::milliseconds>(sweep, kMarkerPoll, kMaxMarkerPoll));
      }
    }
    if (!pending.empty()) {
      // Failing fast: the others are cancelled and must be gone before the pass is abandoned.
      const std::string problem = cancel(job_id);
      for (std::uint32_t id : pending) {
        records[id].state = "CANCELLED";
        if (!problem.empty()) records[id].failure = problem;
      }
    }
    active.id.clear();
    write_job_json();
    std::sort(failed.begin(), failed.end());
    return failed;
  };

  std::vector<std::uint32_t> all;
  for (std::uint32_t i = 0; i < tasks.size(); ++i) all.push_back(i);
  std::vector<std::uint32_t> failed = run_array(all, "task-%a.out", !options_.retry_failed);
  if (!failed.empty() && options_.retry_failed) {
    std::string list;
    for (std::uint32_t id : failed) list += (list.empty() ? "" : ",") + std::to_string(id);
    std::cerr << "pstrain: " << pass_label << ": resubmitting failed Slurm array task(s) " << list << " once\n";
    for (std::uint32_t id : failed) {
      std::cerr << failure_text(id) << "\n";
      // A clean shard directory for the second attempt (its first output stays in task-I.out).
      std::error_code ec;
      fs::remove_all(tasks[id].shard_dir, ec);
    }
    failed = run_array(failed, "task-%a.retry.out", true);
  }
  if (!failed.empty()) {
    // Bad input found by the worker of the first failed task: the same InputError (exit 2, same
    // message) as with one job or the local launcher.
    const TaskRecord& first = records[failed.front()];
    if (first.exit_status && *first.exit_status == 2) {
      if (std::optional<std::string> input_error = ReadWorkerInputError(tasks[failed.front()].shard_dir)) {
        throw InputError(*input_error);
      }
    }
    std::string message = failure_text(failed.front());
    if (failed.size() > 1) {
      message += "\n(" + std::to_string(failed.size() - 1) + " more failed task(s) of this pass; see " + (slurm_dir / "job.json").string() + ")";
    }
    throw TrainingError(message);
  }
  if (on_done) {
    for (std::size_t i = 0; i < tasks.size(); ++i) on_done(i);
  }
}

}  // namespace pstrain
