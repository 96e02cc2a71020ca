// One sharded pass (partition, launch, validate, reduce) and MakeLauncher.
#include "coordinator/pass_runner.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <future>
#include <optional>
#include <system_error>

#include "common/error.h"
#include "common/file_io.h"
#include "common/standby_thread.h"
#include "formats/mdef.h"
#include "formats/param_files.h"
#include "provenance/provenance.h"
#include "shards/partition.h"

namespace pstrain {

namespace fs = std::filesystem;

namespace {

// Whether `shard`'s directory is a directory and its exact_counts a regular file, neither a
// symbolic link: only then is it read before validation (which refuses links) has looked at it.
bool NoLinkOnTheWay(const fs::path& work_dir, std::uint32_t shard) {
  std::error_code dir_ec, file_ec;
  const fs::path dir = work_dir / ShardDirName(shard);
  const fs::file_status dir_status = fs::symlink_status(dir, dir_ec);
  const fs::file_status file_status = fs::symlink_status(dir / "exact_counts", file_ec);
  return !dir_ec && !file_ec && fs::is_directory(dir_status) && fs::is_regular_file(file_status);
}

}  // namespace

PassExpectation ExpectationFor(const PassInputs& inputs, const Manifest& manifest, std::uint32_t pass, std::uint32_t shard_count,
                               const std::optional<std::string>& model_fingerprint) {
  PassExpectation expected;
  expected.pass = pass;
  expected.shard_count = shard_count;
  expected.fingerprints.model = model_fingerprint ? *model_fingerprint : ModelFingerprint(inputs.model_dir);
  expected.fingerprints.config =
      ConfigFingerprint(inputs.options, inputs.reduction, DictionaryFingerprint(inputs.dict, inputs.filler));
  expected.fingerprints.manifest = manifest.Fingerprint();
  expected.fingerprints.pass = PassFingerprint(pass, shard_count, expected.fingerprints.model, expected.fingerprints.config,
                                               expected.fingerprints.manifest);
  // Every shard must have been computed by this build: the same binary and shared libraries.
  expected.code_identity = ProcessCodeIdentity();
  for (const ManifestEntry& entry : manifest.entries()) expected.manifest_ids.push_back(entry.utt_id);
  if (inputs.options.multipron) {
    expected.multipron = true;
    expected.n_tied_states = Mdef::Load((fs::path(inputs.model_dir) / "mdef").string()).n_tied_state();
  }
  expected.statistics_shape = StatisticsShapeOf(inputs.model_dir);
  expected.pass2var = inputs.options.fb.pass2var;
  return expected;
}

AccumulatorShape StatisticsShapeOf(const fs::path& model_dir) {
  return StatisticsShape(ReadGaussianFile((model_dir / "means").string()), ReadArray3DFile((model_dir / "transition_matrices").string()));
}

std::vector<ShardTask> ShardTasks(const PassInputs& inputs, std::uint32_t pass, std::uint32_t shard_count, const fs::path& work_dir) {
  std::vector<ShardTask> tasks;
  for (std::uint32_t shard = 0; shard < shard_count; ++shard) {
    ShardTask task;
    task.inputs = inputs;
    task.pass = pass;
    task.shard = shard;
    task.shard_count = shard_count;
    task.shard_dir = (work_dir / ShardDirName(shard)).string();
    tasks.push_back(std::move(task));
  }
  return tasks;
}

ShardedPassResult RunShardedPass(const PassInputs& inputs, const Manifest& manifest, std::uint32_t pass, std::uint32_t shard_count,
                                 const fs::path& work_dir, Launcher& launcher, const std::optional<std::string>& model_fingerprint,
                                 const std::function<void()>& first_shard_done, const LentModel& lent_model,
                                 const fs::path& reduced_dir) {
  if (shard_count == 0) throw TrainingError("pass " + std::to_string(pass) + ": no shards to validate");
  std::vector<ShardTask> tasks = ShardTasks(inputs, pass, shard_count, work_dir);
  // Shards run on this thread take their ranges of `manifest` (the parse of inputs.manifest_path
  // the expectations are made of) rather than parsing the file again.
  if (launcher.runs_tasks_on_this_thread()) {
    for (ShardTask& task : tasks) task.lent_manifest = &manifest;
  }
  if (lent_model.files != nullptr) {
    if (shard_count != 1 || !launcher.runs_tasks_on_this_thread() || lent_model.digests == nullptr) {
      throw TrainingError("pass " + std::to_string(pass) + ": internal: a model lent to a pass of " + std::to_string(shard_count) +
                          " shards, or run elsewhere, or without digests");
    }
    tasks[0].lent_model = lent_model.files;
    tasks[0].lent_model_digests = lent_model.digests;
    tasks[0].lent_model_freed = lent_model.freed;
  }
  // The pass's only shard, run on this thread in exact mode, lends its sums back: the reduction
  // takes them, not its exact_counts read back and hashed again (and accum/exact_counts is linked
  // to that file, not copied: for 2,102 senones x 16 Gaussians 43 MB neither read nor written
  // again; docs/performance.md, thirty-eighth round).
  LentShardSums lent_sums;
  if (inputs.reduction == ReductionMode::kExact && shard_count == 1 && launcher.runs_tasks_on_this_thread()) {
    tasks[0].lent_sums = &lent_sums;
  }
  // Each shard is validated as soon as its worker ends, and reduced while the other workers still
  // run: in exact mode at once (the sums do not depend on the order, shards/reducer.h), in float32
  // mode as soon as it and every lower shard are validated. What is reported stays what a check
  // after the last worker would report: the lowest shard's rejection, then a reduction error (in
  // exact mode the first met).
  std::optional<PassExpectation> expected;
  std::vector<std::optional<ShardArtifact>> artifacts(shard_count);
  std::vector<std::exception_ptr> rejections(shard_count);
  std::exception_ptr reduction_error;
  ShardReducer reducer(work_dir, inputs.reduction);
  // The sums' exact_counts is written as the last shard is added (with one shard, as its file is
  // read, or, its sums lent, linked), not encoded and hashed after the reduction, after the last
  // worker (for 2,102 senones x 16 Gaussians 43 MB; docs/performance.md, thirty-seventh round).
  if (inputs.reduction == ReductionMode::kExact && !reduced_dir.empty()) reducer.WriteSumsInto(reduced_dir, shard_count);
  std::vector<ShardEvents> events(shard_count);  // for the pass's telemetry
  std::uint32_t shards_reported = 0;  // validated (for the fsyncs of their files)
  std::uint32_t shards_done = 0;      // reported finished, validated or not
  std::vector<std::future<void>> early_syncs;  // waited for before RunShardedPass returns or throws
  // What every artifact must meet, and the shape the reducer sizes its sums from: at the first
  // report, or (below) beforehand.
  const auto prepare = [&] {
    expected = ExpectationFor(inputs, manifest, pass, shard_count, model_fingerprint);
    if (expected->statistics_shape && expected->pass2var) reducer.ExpectStatistics(*expected->statistics_shape, *expected->pass2var);
  };
  // A launcher that runs the shards on this thread leaves the other CPUs free meanwhile (but for
  // the shard's read-ahead): the pass's expectations are computed there, not after the last shard.
  // Taken by the first report, which meets its exception where it would have met ExpectationFor's
  // own. (Not the exact sums: 6 MB of fresh pages for a tied CD model, allocated beside the running
  // shard's own, raised the peak memory of a 1-job pass from 23 to 30-31 MB, at bw's 2x.)
  std::future<void> prepared;
  if (launcher.runs_tasks_on_this_thread()) prepared = std::async(std::launch::async | std::launch::deferred, prepare);
  // The thread that adds the last shard's exact_counts while it is validated, started now (see
  // common/standby_thread.h: started when needed, it waited up to 4 ms for a CPU). Without it
  // (no thread could be started) the last shard is added after its validation, as the others.
  std::optional<StandbyThread> ahead_thread;
  if (inputs.reduction == ReductionMode::kExact && tasks[0].lent_sums == nullptr) {
    try {
      ahead_thread.emplace();
    } catch (const std::system_error&) {
    }
  }
  auto shard_done = [&](std::size_t shard) {
    events[shard].reported = std::chrono::steady_clock::now();
    const bool last = ++shards_done == shard_count;
    if (shards_done == 1 && first_shard_done) first_shard_done();
    // The reducer hashes the files it adds as it reads them (exact_counts in exact mode, bw's count
    // files in float32 mode: read once, and what is added is what was checked); a shard that will
    // not be reduced, after a reduction error, is hashed here.
    // A shard run on this thread lent its sums with the digests of exact_counts and bw's count files
    // as it wrote them (shards/reducer.h LendExactSums): the reducer checks those against the
    // artifact's, and neither file is hashed again here (for 2,102 senones x 16 Gaussians the count
    // files are 10.5 MB; docs/performance.md, fortieth round).
    const bool lent_digests = lent_sums.sums && lent_sums.count_files.size() == std::size(kBwCountFiles);
    const PayloadDigests digests = reduction_error                                  ? PayloadDigests::kAll
                                   : lent_digests                                   ? PayloadDigests::kLentByThisProcess
                                   : inputs.reduction == ReductionMode::kExact ? PayloadDigests::kExactCountsByTheReducer
                                                                                : PayloadDigests::kCountFilesByTheReducer;
    // In exact mode the last shard's exact_counts is added while its artifact is validated, on
    // another thread (unless its sums were lent: nothing to read): after the last worker nothing
    // else runs, and the two were the largest parts of the pass's serial tail. What is reported is
    // what validating first would report: the validation's rejection if there is one (the sums
    // then hold a rejected shard: Discard), else the reducer's.
    StandbyFuture<void> added_ahead;
    struct WaitForAddedAhead {
      StandbyFuture<void>& added;
      ~WaitForAddedAhead() {
        if (added.valid()) added.wait();
      }
    } wait_for_added_ahead{added_ahead};
    try {
      if (prepared.valid()) prepared.get();
      if (!expected) prepare();
      const bool none_refused = std::none_of(rejections.begin(), rejections.end(), [](const std::exception_ptr& e) { return e != nullptr; });
      if (last && none_refused && !reduction_error && ahead_thread && expected->statistics_shape && expected->pass2var &&
          reducer.Takes(static_cast<std::uint32_t>(shard)) && NoLinkOnTheWay(work_dir, static_cast<std::uint32_t>(shard))) {
        added_ahead = ahead_thread->Run([&reducer, shard] { reducer.AddExactCountsAhead(static_cast<std::uint32_t>(shard)); });
      }
      artifacts[shard] = ValidateShard(work_dir, static_cast<std::uint32_t>(shard), *expected, digests);
      events[shard].validated = std::chrono::steady_clock::now();
    } catch (...) {
      rejections[shard] = std::current_exception();
      if (added_ahead.valid()) {
        added_ahead.wait();
        reducer.Discard(static_cast<std::uint32_t>(shard));
      }
      return;
    }
    try {
      // Its files' fsyncs, which the workers of this machine leave to the coordinator: while
      // another shard still runs, at once on a thread of their own (off the pass's critical path,
      // and this thread stays free to reap the next worker); the last shard's with the pass's own
      // files, before the pass directory's rename (its write-back starts now).
      if (launcher.coordinator_syncs()) {
        const fs::path shard_dir = work_dir / ShardDirName(static_cast<std::uint32_t>(shard));
        if (++shards_reported < shard_count) {
          early_syncs.push_back(std::async(std::launch::async, [shard_dir] { SyncExistingFiles(shard_dir, ExistingFilesSync::kNow); }));
        } else {
          SyncExistingFiles(shard_dir, ExistingFilesSync::kWithScope);
        }
      }
      if (reduction_error) return;
      if (inputs.reduction == ReductionMode::kExact) {
        if (added_ahead.valid()) added_ahead.get();  // its rejection or error, as if Add had met it
        if (lent_sums.sums) {
          reducer.LendExactSums(static_cast<std::uint32_t>(shard), std::move(lent_sums));
          lent_sums.sums.reset();
        }
        reducer.Add(static_cast<std::uint32_t>(shard), *artifacts[shard]);
        events[shard].reduced = std::chrono::steady_clock::now();
      } else {
        for (std::uint32_t next = reducer.reduced_shards(); next < shard_count && artifacts[next]; ++next) {
          reducer.Add(next, *artifacts[next]);
          events[next].reduced = std::chrono::steady_clock::now();
        }
      }
    } catch (const ArtifactRejected& rejected) {
      // A digest the reducer checked (above): the rejected shard's (in float32 mode maybe a lower
      // one than the shard just reported).
      if (rejected.shard() < shard_count) rejections[rejected.shard()] = std::current_exception();
    } catch (...) {
      reduction_error = std::current_exception();
    }
  };
  {
    struct WaitForSyncs {
      std::vector<std::future<void>>& syncs;
      ~WaitForSyncs() {
        for (std::future<void>& sync : syncs) {
          if (sync.valid()) sync.wait();
        }
      }
    } wait_for_syncs{early_syncs};
    launcher.Run(tasks, shard_done);
  }
  for (const std::exception_ptr& rejection : rejections) {
    if (rejection) std::rethrow_exception(rejection);
  }
  if (reduction_error) std::rethrow_exception(reduction_error);
  if (reducer.reduced_shards() != shard_count) {
    throw TrainingError("pass " + std::to_string(pass) + ": " + std::to_string(shard_count - reducer.reduced_shards()) +
                        " shard(s) were never reported finished by the " + launcher.name() + " launcher");
  }
  for (std::future<void>& sync : early_syncs) sync.get();  // a failed fsync fails the pass
  ShardedPassResult result;
  result.shard_count = shard_count;
  result.fingerprints = expected->fingerprints;
  result.code_identity = expected->code_identity;
  for (std::optional<ShardArtifact>& artifact : artifacts) result.artifacts.push_back(std::move(*artifact));
  result.reduced = std::move(reducer).Finish();
  result.events = std::move(events);
  result.reduced_at = std::chrono::steady_clock::now();
  return result;
}

const char* LauncherKindName(LauncherKind kind) { return kind == LauncherKind::kSlurm ? "slurm" : "local"; }

LauncherKind ParseLauncherKind(const std::string& name) {
  if (name == "local") return LauncherKind::kLocal;
  if (name == "slurm") return LauncherKind::kSlurm;
  throw InputError("--launcher: unknown launcher " + Quoted(name) + " (available: local, slurm)");
}

std::unique_ptr<Launcher> MakeLauncher(const LaunchOptions& options) {
  const SlurmOptions& slurm = options.slurm;
  if (options.launcher == LauncherKind::kSlurm) return std::make_unique<SlurmLauncher>(SelfExecutable(), slurm);
  if (!slurm.partition.empty() || !slurm.sbatch_args.empty() || slurm.retry_failed) {
    throw InputError("--slurm-partition, --slurm-opt and --retry-failed-shards need --launcher slurm");
  }
  if (options.jobs <= 1) return std::make_unique<InlineLauncher>();
  return std::make_unique<LocalProcessLauncher>(SelfExecutable(), options.jobs);
}

}  // namespace pstrain
