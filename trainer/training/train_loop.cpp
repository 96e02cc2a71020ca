// The training loop: named steps from the inputs to the promoted model (training/train_loop.h).
#include "training/train_loop.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <ostream>
#include <string_view>
#include <system_error>
#include <utility>

#include "accumulators/accumulators.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/interrupt.h"
#include "common/iso_time.h"
#include "common/parallel_for.h"
#include "common/sha256.h"
#include "common/standby_thread.h"
#include "common/thread_cpu.h"
#include "formats/feat_params.h"
#include "provenance/fingerprints.h"
#include "provenance/provenance.h"
#include "provenance/provenance_file.h"
#include "model/acoustic_model.h"
#include "model/model_checks.h"
#include "reestimate/reestimate.h"
#include "shards/partition.h"
#include "shards/run_layout.h"
#include "coordinator/pass_file.h"
#include "coordinator/pass_summary.h"
#include "coordinator/pass_telemetry.h"
#include "training/feature_file_check.h"

namespace pstrain {

namespace fs = std::filesystem;
namespace json = boost::json;

const char* StopDecisionName(StopDecision decision) {
  switch (decision) {
    case StopDecision::kContinue: return "continue";
    case StopDecision::kConverged: return "converged";
    case StopDecision::kMaxPasses: return "max-passes";
  }
  return "?";
}

StopDecision DecideStop(const StopRule& rule, std::uint32_t pass, bool has_previous, double previous_per_frame,
                        double current_per_frame) {
  const StopDecision go_on = pass >= rule.max_passes ? StopDecision::kMaxPasses : StopDecision::kContinue;
  if (!has_previous) return go_on;  // the first pass has nothing to compare with
  const double gain = current_per_frame - previous_per_frame;
  if (gain > rule.convergence) return go_on;
  if (pass < rule.min_passes) return go_on;
  return StopDecision::kConverged;
}

std::string OutputFeatParams(const std::string& input_text, const FeatureOptions& features) {
  FeatParams params = FeatParams::Parse(input_text, "feat.params");
  params.Set("cmn", features.cmn == CmnMode::kBatch ? "batch" : "none");
  params.Set("varnorm", features.varnorm ? "yes" : "no");
  params.Set("agc", "none");
  return params.Serialize();
}

namespace {

// A model file this large is hashed beside its writes (RunPass): cd_tied_g8's 0.75 MB means and
// variances and larger, not the small files, for which a thread's start would cost what it saves.
constexpr std::size_t kHashBesideBytes = std::size_t(256) << 10;

// --- Step 1: resolve and check the inputs ----------------------------------------------------------

// The inputs of a training, loaded and checked once.
struct CheckedInputs {
  ModelFiles initial;
  ModelFileDigests initial_digests;  // of `initial`'s files as loaded
  Manifest manifest;
  std::unique_ptr<Launcher> launcher;
  std::uint32_t shard_count = 0;
  // Its check of the manifest's feature files (training/feature_file_check.h); declared last: it
  // refers to `manifest`, which outlives it.
  std::unique_ptr<FeatureFileCheck> feature_files;
};

// The input model, read and checked (on its own thread: see Train).
struct LoadedModel {
  ModelFiles files;
  ModelFileDigests digests;  // of its files as loaded
};
LoadedModel LoadInputModel(const TrainOptions& options) {
  LoadedModel model;
  model.files = LoadCheckedModel(options.inputs.model_dir, model.digests);
  return model;
}

// Then its feature files, once `checked` is where it stays (the check keeps a reference to its
// manifest): all of them now before a Slurm job array is queued; with the local launcher each is
// only looked at (`present`: that look's answer, made while the model was still loading), and the
// passes check them as they read them (training/feature_file_check.h).
FeatureFileCheck::When FeatureFileCheckWhen(const TrainOptions& options) {
  return options.launch.launcher == LauncherKind::kSlurm ? FeatureFileCheck::When::kFirst : FeatureFileCheck::When::kWhenNeeded;
}

void StartFeatureFileCheck(const TrainOptions& options, CheckedInputs& checked, std::optional<bool> present) {
  checked.feature_files =
      std::make_unique<FeatureFileCheck>(checked.manifest, options.inputs.corpus_root, FeatureFileCheckWhen(options), present);
}

void ResolveInputs(const TrainOptions& options, CheckedInputs& checked) {
  const PassInputs& base = options.inputs;
  Dictionary dictionary = Dictionary::Load(base.dict, false);
  dictionary.Merge(Dictionary::Load(base.filler, true));
  CheckWords(checked.manifest, dictionary);
  if (options.stop.max_passes == 0) throw InputError("--max-passes must be at least 1");
  if (options.stop.min_passes > options.stop.max_passes) throw InputError("--min-passes is larger than --max-passes");
  if (options.launch.jobs == 0) throw InputError("--jobs must be at least 1");
  checked.launcher = MakeLauncher(options.launch);
  checked.launcher->set_progress(options.progress);
  checked.shard_count = EffectiveShardCount(options.launch.jobs, checked.manifest.size());
}

// --- Step 2: fingerprint them once -----------------------------------------------------------------

TrainingIdentity FingerprintInputs(const TrainOptions& options, const CheckedInputs& checked) {
  const PassInputs& base = options.inputs;
  TrainingIdentity identity;
  identity.build = ProcessBuildIdentity();  // cached: computed once per process
  const std::string dictionary_fingerprint = DictionaryFingerprint(base.dict, base.filler);
  identity.canonical_config = CanonicalConfig(base.options, base.reduction, dictionary_fingerprint);
  identity.config_fingerprint = ConfigFingerprint(base.options, base.reduction, dictionary_fingerprint);
  identity.manifest_fingerprint = checked.manifest.Fingerprint();
  identity.input_model_fingerprint = ModelFingerprint(checked.initial_digests);  // the model loaded
  identity.requested_jobs = options.launch.jobs;
  identity.shard_count = checked.shard_count;
  identity.reduction = ReductionModeName(base.reduction);
  identity.launcher = checked.launcher->name();
  identity.min_passes = options.stop.min_passes;
  identity.max_passes = options.stop.max_passes;
  identity.convergence = options.stop.convergence;
  return identity;
}

// provenance.json's model_files: one {"file", "sha256"} object per digest, in their (kModelFiles) order.
json::array ModelFilesJson(const ModelFileDigests& digests) {
  json::array files;
  for (const auto& [name, sha256] : digests) {
    json::object file;
    file["file"] = name;
    file["sha256"] = sha256;
    files.push_back(std::move(file));
  }
  return files;
}

StopDecision ParseStopDecision(const std::string& name) {
  return name == "converged" ? StopDecision::kConverged : name == "max-passes" ? StopDecision::kMaxPasses : StopDecision::kContinue;
}

// Cache hit: RUNDIR/model is the final model of an identical training, its files exactly as training
// wrote them (provenance.json's digests).
bool FindFinishedModel(TrainResult& result, std::ostream& log) {
  try {
    const fs::path provenance_path = result.model_dir / "provenance.json";
    if (!fs::is_regular_file(provenance_path)) return false;
    const json::value provenance = json::parse(ReadRegularFileText(provenance_path, kMaxProvenanceBytes));
    if (provenance.at("training_fingerprint").as_string() != result.training_fingerprint ||
        json::serialize(provenance.at("model_files")) != json::serialize(ModelFilesJson(ModelDirDigests(result.model_dir.string())))) {
      return false;
    }
    result.cache_hit = true;
    result.passes = static_cast<std::uint32_t>(provenance.at("passes").as_array().size());
    result.decision = ParseStopDecision(std::string(provenance.at("stop_decision").as_string()));
    log << "up to date: " << result.model_dir.string() << " has training fingerprint " << result.training_fingerprint << "\n";
    return true;
  } catch (const std::exception&) {
    return false;  // an unreadable provenance file is no cache hit; the run proceeds and rewrites it
  }
}

// --- Step 3: run or resume a pass ------------------------------------------------------------------

// What a finished pass directory says about itself, for resuming.
struct CompletedPass {
  bool valid = false;
  double per_frame = 0.0;
  StopDecision decision = StopDecision::kContinue;
  PassFile file;
  std::string text;          // pass.json's bytes: provenance.json embeds json::parse(text), as for a fresh pass
  std::string not_verified;  // why a pass with a matching fingerprint is recomputed (empty: none)
};

CompletedPass ReadCompletedPass(const fs::path& pass_dir, const std::string& training_fingerprint) {
  CompletedPass completed;
  std::error_code ec;
  const fs::path pass_json = pass_dir / kPassFileName;
  if (!fs::is_regular_file(pass_json, ec) || !fs::is_directory(pass_dir / "model", ec)) return completed;
  try {
    completed.text = ReadRegularFileText(pass_json, kMaxPassFileBytes);
    completed.file = ParsePassFile(completed.text);
  } catch (const std::exception& error) {
    completed.not_verified = SanitizedMessage(pass_json.string() + ": unreadable: " + error.what());  // names the field
    return completed;
  }
  const PassFile& summary = completed.file;
  if (summary.training_fingerprint != training_fingerprint) return completed;
  // Its model and accum/ must be what the pass wrote: the SHA-256 recorded in pass.json.
  const std::vector<PassFileDigest> actual = PassFileDigests(pass_dir);
  if (summary.files != actual) {
    std::string file;
    for (const PassFileDigest& entry : summary.files) {
      const fs::path path = pass_dir / entry.file;
      std::error_code file_ec;
      if (!fs::is_regular_file(path, file_ec) || Sha256OfFile(path) != entry.sha256) {
        file = entry.file;
        break;
      }
    }
    if (file.empty()) {  // every recorded file verifies: an extra file
      for (const PassFileDigest& entry : actual) {
        bool listed = false;
        for (const PassFileDigest& r : summary.files) listed = listed || r.file == entry.file;
        if (!listed) {
          file = entry.file;
          break;
        }
      }
    }
    completed.not_verified = (pass_dir / file).string() + " does not verify against the SHA-256 in pass.json";
    return completed;
  }
  // Recomputed from the exact values (a JSON double need not parse back to the same bits).
  FixedPoint total = 0;
  if (!FixedFromHex(summary.outcomes.totals.total_log_likelihood_exact, total)) return completed;
  const std::uint64_t frames = summary.outcomes.totals.total_frames;
  if (frames == 0) return completed;
  completed.per_frame = FromFixed(total) / static_cast<double>(frames);
  completed.decision = ParseStopDecision(summary.stop_decision);
  completed.valid = true;
  return completed;
}

// The state of the loop between passes.
struct LoopState {
  ModelFiles model;                          // the model the next pass starts from
  std::vector<json::object> pass_records;    // pass.json of every pass so far, for provenance.json
  std::vector<PassFileDigest> files;         // the last pass's files and their SHA-256 (pass.json)
  bool has_previous = false;
  double previous_per_frame = 0.0;
  StopDecision decision = StopDecision::kContinue;
  std::uint32_t pass = 1;                    // the next pass to run
  // RUNDIR/.model.staging's files already written by the last pass this process ran (the bytes of
  // its model/, see RunPass), and the scope that fsyncs them before the final exchange; empty when
  // the last pass was resumed (PromoteFinalModel then copies its model/).
  std::unique_ptr<DirectorySyncScope> final_model_sync;
  // model/mdef as every pass of this process writes it (re-estimation never changes the mdef):
  // encoded and hashed once, off the first pass's serial tail (RunPass); with one job again in each
  // pass's tail, as it is not kept beside the next pass's shard.
  struct EncodedMdef {
    std::string text;    // ModelFiles::mdef.Serialize()
    std::string sha256;  // of text
  };
  std::optional<EncodedMdef> mdef;
};

// The model/ files among a pass's recorded files (pass.json's `files`), in kModelFiles order, with
// the SHA-256 recorded for each: the model that pass wrote, as a fingerprint or a copy sees it.
ModelFileDigests RecordedModelDigests(const std::vector<PassFileDigest>& files) {
  ModelFileDigests digests;
  for (const char* name : kModelFiles) {
    const std::string relative = std::string("model/") + name;
    const auto file = std::find_if(files.begin(), files.end(), [&](const PassFileDigest& f) { return f.file == relative; });
    if (file != files.end()) digests.emplace_back(name, file->sha256);
  }
  return digests;
}

// pass.json's record in provenance.json: the parse of its bytes (the same function of the same bytes
// for a fresh and a resumed pass; Boost.JSON 1.81 does not parse every double back to its bits, so
// a record is never re-serialized from PassFile's doubles).
json::object PassRecord(const std::string& pass_json_text) { return json::parse(pass_json_text).as_object(); }

// Resume after the last complete pass of an identical training: each pass that verifies is taken
// as it is, the first that does not is recomputed (and the run says why).
void ResumeFinishedPasses(const TrainOptions& options, const fs::path& run_dir, TrainResult& result, LoopState& state,
                          std::ostream& log) {
  for (; state.pass <= options.stop.max_passes; ++state.pass) {
    const fs::path pass_dir = PassDir(run_dir, state.pass);
    RecoverDirectory(pass_dir);
    const CompletedPass completed = ReadCompletedPass(pass_dir, result.training_fingerprint);
    if (!completed.not_verified.empty()) log << "pass " << state.pass << ": " << completed.not_verified << ": recomputed\n";
    if (!completed.valid) break;
    state.model = LoadCheckedModel((pass_dir / "model").string());
    state.pass_records.push_back(PassRecord(completed.text));
    state.files = completed.file.files;
    state.has_previous = true;
    state.previous_per_frame = completed.per_frame;
    state.decision = completed.decision;
    ++result.resumed_passes;
    // A staging directory left by an interrupted run (after the exchange it holds a superseded copy).
    fs::remove_all(HiddenSibling(pass_dir, ".staging"));
    log << "pass " << state.pass << ": already complete (resumed)\n";
    if (state.decision != StopDecision::kContinue) break;
  }
  if (state.decision != StopDecision::kContinue) ++state.pass;
}

// The pass's telemetry (coordinator/pass_telemetry.h), its times from `pass_start`, up to now
// (model/ and accum/ written).
PassTelemetry MakePassTelemetry(std::chrono::steady_clock::time_point pass_start, std::chrono::system_clock::time_point start_time,
                                const std::string& launcher, const ShardedPassResult& sharded,
                                std::chrono::steady_clock::time_point reestimated_at, const ThreadCpuSeconds& process_cpu0,
                                const ThreadCpuSeconds& children_cpu0) {
  const auto now = std::chrono::steady_clock::now();
  const ThreadCpuSeconds process_cpu = CpuDifference(ProcessCpu(), process_cpu0);
  const ThreadCpuSeconds children_cpu = CpuDifference(WaitedChildrenCpu(), children_cpu0);
  auto since_start = [&](std::chrono::steady_clock::time_point at) { return std::chrono::duration<double>(at - pass_start).count(); };
  PassTelemetry t;
  t.pid = static_cast<std::int64_t>(::getpid());
  t.host = HostName();
  t.start = IsoTime(start_time);
  t.launcher = launcher;
  for (std::size_t shard = 0; shard < sharded.events.size(); ++shard) {
    const ShardEvents& e = sharded.events[shard];
    t.shards.push_back({static_cast<std::uint32_t>(shard), since_start(e.reported), since_start(e.validated), since_start(e.reduced)});
  }
  t.reduced_seconds = since_start(sharded.reduced_at);
  t.reestimated_seconds = since_start(reestimated_at);
  t.written_seconds = since_start(now);
  if (process_cpu.known()) {
    t.user_cpu_seconds = process_cpu.user;
    t.system_cpu_seconds = process_cpu.system;
  }
  if (children_cpu.known()) {
    t.children_user_cpu_seconds = children_cpu.user;
    t.children_system_cpu_seconds = children_cpu.system;
  }
  return t;
}

// One pass, built in passes/.NNN.staging: the sharded E-step (its shards validated and reduced by
// the coordinator as they finish), the reduced statistics written, re-estimation, the
// stop decision, pass.json, and the directory promoted to passes/NNN by one exchange.
void RunPass(const TrainOptions& options, const CheckedInputs& checked, const fs::path& run_dir, const TrainResult& result,
             LoopState& state, std::ostream& log) {
  const std::uint32_t pass = state.pass;
  const PassInputs& base = options.inputs;
  const auto pass_start = std::chrono::steady_clock::now();
  const auto pass_start_time = std::chrono::system_clock::now();
  const ThreadCpuSeconds process_cpu0 = ProcessCpu(), children_cpu0 = WaitedChildrenCpu();
  const fs::path final_pass_dir = PassDir(run_dir, pass);
  const fs::path pass_dir = StagingPassDir(run_dir, pass);
  fs::remove_all(pass_dir);
  fs::create_directories(pass_dir);
  // The pass directory becomes visible only by its rename (ReplaceDirectory below, which fsyncs
  // each directory under it first): no directory fsync per file.
  DirectorySyncScope pass_sync(pass_dir);
  PassInputs inputs = base;
  if (pass > 1) inputs.model_dir = (PassDir(run_dir, pass - 1) / "model").string();
  // Every shard must have trained with the model re-estimated from below: the one loaded at the
  // start, or the one the previous pass wrote (pass.json's digests of its model/, as written or as
  // resume verified them). A model directory changed in between is refused (model-fingerprint).
  const ModelFileDigests input_digests = pass == 1 ? checked.initial_digests : RecordedModelDigests(state.files);
  const std::string model_fingerprint = ModelFingerprint(input_digests);

  // Run, validate and reduce. A pass that completes has checked every feature file against the
  // manifest as it read it. One that fails reports the feature-file check's error instead of its
  // own if the check fails (every bad file counted), with its staging directory removed (RUNDIR and
  // RUNDIR/passes, created before it, stay).
  // The tail's two writers' threads, started now (common/standby_thread.h: started when needed,
  // each waited up to 3 ms for a CPU). Without them (no thread could be started) std::async.
  // Declared before what their tasks use: each task is waited for (FinishExactCounts,
  // FinishCountFiles, or get()) before that ends.
  std::optional<StandbyThread> exact_counts_writer, count_files_writer;
  try {
    exact_counts_writer.emplace();
    count_files_writer.emplace();
  } catch (const std::system_error&) {
    exact_counts_writer.reset();
    count_files_writer.reset();
  }
  // The mdef's bytes for model/, encoded (0.8 ms for a tied CD model's) and hashed on a CPU the
  // workers leave free: with several jobs once the first worker has ended, on its CPU; with one on
  // the thread that reads the model back once the shard's E-step has ended (below). Taken before
  // re-estimation (which moves the model).
  const auto encode_mdef_now = [](const Mdef& model_mdef) {
    LoopState::EncodedMdef encoded{model_mdef.Serialize(), ""};
    encoded.sha256 = Sha256Hex(encoded.text);
    return encoded;
  };
  std::future<LoopState::EncodedMdef> mdef;
  const auto encode_mdef = [&] {
    if (state.mdef || mdef.valid()) return;
    try {
      mdef = std::async(std::launch::async | std::launch::deferred, [&] { return encode_mdef_now(state.model.mdef); });
    } catch (const std::exception&) {
      // (no thread: model/ serializes it as before)
    }
  };
  // With one job the shard runs in this process: the parameter files held here for re-estimation
  // (mdef, means, variances, mixture weights, transition matrices: 11.5 MB for 2,102 senones x 16
  // Gaussians) are lent to it instead of being loaded a second time (LentModel), and read back from
  // the same files once its E-step has ended (and the model it built from them is freed), each
  // required to have the digest the pass's model fingerprint was made of, on a thread of their own
  // while the shard writes its files and they are validated and added; the mdef's bytes for model/
  // are encoded there too, after it. With the fixed mmap threshold of
  // common/malloc_thresholds.h, a 1-job pass of that model peaked at 69.6-69.7 MB instead of 87.2
  // (docs/performance.md, thirty-fourth round).
  const bool model_lent = checked.launcher->runs_tasks_on_this_thread() && checked.shard_count == 1;
  std::optional<LoopState::EncodedMdef> mdef_read_back;
  const auto read_back = [&] {
    state.model.ReloadParameterFiles(inputs.model_dir, input_digests);
    if (!state.mdef) mdef_read_back = encode_mdef_now(state.model.mdef);
  };
  std::future<void> model_back;  // (a std::async future: its destructor waits for the task)
  const auto start_read_back = [&] {
    if (model_back.valid()) return;
    try {
      model_back = std::async(std::launch::async | std::launch::deferred, read_back);
    } catch (const std::exception&) {
      // (no thread: read back before re-estimation, below)
    }
  };
  ModelFiles lent = model_lent ? state.model.TakeParameterFiles() : ModelFiles();  // (taken by the shard)
  const fs::path accum_dir = pass_dir / "accum";  // the reduced statistics
  ShardedPassResult sharded;
  try {
    sharded = RunShardedPass(inputs, checked.manifest, pass, checked.shard_count, pass_dir, *checked.launcher, model_fingerprint,
                             model_lent ? std::function<void()>() : std::function<void()>(encode_mdef),
                             model_lent ? LentModel{&lent, &input_digests, start_read_back} : LentModel{}, accum_dir);
  } catch (...) {
    if (checked.feature_files->Failed()) {
      std::error_code ec;
      fs::remove_all(pass_dir, ec);
      checked.feature_files->Require();  // throws its error
    }
    throw;
  }
  checked.feature_files->CoveredByPass();
  ReducedPass& reduced = sharded.reduced;
  if (reduced.total_frames == 0) {
    throw TrainingError("pass " + std::to_string(pass) + ": no utterance could be aligned (all " +
                        std::to_string(checked.manifest.size()) + " skipped)");
  }
  // The workers have ended, so the tail runs in three parts at once. First, one thread takes the
  // digest of accum/exact_counts, which in exact mode the reducer wrote as it added the last shard
  // (where it did not, a 1-job pass whose link the file system refused: writes it from the exact
  // sums, hashing the bytes as it writes them), and frees the sums once nothing reads them any more.
  // This thread builds the view re-estimation reads (in exact mode without its mean and variance
  // sums, which are read from the exact sums: TailView). Then one writes bw's files of accum/, also
  // hashing each as it is written (gauden_counts streamed: no copy of the statistics is held beside
  // the exact sums), unless the reducer linked the 1-job shard's there (it then takes their lent
  // digests), and this thread re-estimates (a large model with a helper thread: with one job the
  // other writers are soon done, with two the three share the CPUs) and writes model/, hashing its
  // large files on a thread beside the writes (docs/performance.md).
  fs::create_directories(accum_dir);  // (in exact mode the reducer wrote exact_counts into it)
  const bool exact = reduced.exact.has_value();  // (float32 mode writes no exact_counts)
  std::promise<void> sums_read_by_all;  // the double view built, or (TailView) re-estimation and the count files done
  const std::shared_future<void> readers_done = sums_read_by_all.get_future().share();
  StandbyFuture<std::vector<PassFileDigest>> exact_counts = RunOnStandby(exact_counts_writer, [&] {
    const std::string digest = WriteAndReleaseExactCounts(reduced, accum_dir, readers_done);  // of the file's bytes; frees the sums
    std::vector<PassFileDigest> written;
    if (exact) written.push_back({"accum/exact_counts", digest});
    return written;
  });
  // Should this thread throw before it collects them, each writer ends first (a deferred one runs
  // in wait()), before what it reads is freed: no file of the pass directory is still being written
  // when its scope ends. The sums are declared read first (if this thread did not get that far; the
  // count files' writer, declared later, has ended by then), so that the sums' writer ends.
  struct FinishExactCounts {
    std::promise<void>& sums_read_by_all;
    bool signalled = false;
    StandbyFuture<std::vector<PassFileDigest>>& written;
    ~FinishExactCounts() {
      if (!signalled) sums_read_by_all.set_value();
      if (written.valid()) written.wait();
    }
  } finish_exact_counts{sums_read_by_all, false, exact_counts};
  // (On all CPUs but the one the sums' writer has.) Without the mean and variance sums in exact
  // mode (TailView): re-estimation and the count files' writer then read those from the exact sums,
  // which their writer frees only once both are done (below).
  const Accumulators statistics = TailView(reduced, std::max(1u, CheckParallelism() - 1));
  const GaussianRows rows = ReducedGaussianRows(reduced, statistics);
  const auto sums_read = [&] {
    sums_read_by_all.set_value();
    finish_exact_counts.signalled = true;
  };
  if (!rows) sums_read();
  StandbyFuture<std::vector<PassFileDigest>> count_files = RunOnStandby(count_files_writer, [&] {
    const std::vector<std::string> digests = WriteReducedCountFiles(reduced, statistics, accum_dir);  // of the bytes written (or linked)
    std::vector<PassFileDigest> written;
    for (std::size_t f = 0; f < std::size(kBwCountFiles); ++f) written.push_back({std::string("accum/") + kBwCountFiles[f], digests[f]});
    return written;
  });
  struct FinishCountFiles {
    StandbyFuture<std::vector<PassFileDigest>>& written;
    ~FinishCountFiles() {
      if (written.valid()) written.wait();
    }
  } finish_count_files{count_files};

  // Re-estimate. The survival prior is applied here, once, to the reduced statistics (never per
  // shard); the next pass starts from a fresh bitmap. In place: the previous model is not needed
  // after this (state.model becomes `next` below).
  ReestimationReport report;
  if (model_back.valid()) model_back.get();
  else if (model_lent) read_back();
  if (mdef_read_back) state.mdef = std::move(mdef_read_back);
  if (mdef.valid()) state.mdef = mdef.get();
  ModelFiles next = Reestimate(statistics, std::move(state.model), &report, &reduced.fallback_senones, rows, CheckParallelism());
  const auto reestimated_at = std::chrono::steady_clock::now();
  const double per_frame = reduced.log_likelihood.value() / static_cast<double>(reduced.total_frames);
  const StopDecision decision = DecideStop(options.stop, pass, state.has_previous, state.previous_per_frame, per_frame);
  // model/, serialized once and hashed from memory. After the last pass the same bytes also go to
  // the final model's staging directory (RUNDIR/.model.staging), written here beside accum/'s
  // files: the final model is then not read back, hashed again and copied after the pass
  // (PromoteFinalModel). The final exchange still waits for this pass's directory to be in place.
  const fs::path model_dir = pass_dir / "model";
  fs::create_directories(model_dir);
  if (decision != StopDecision::kContinue) {
    const fs::path staging = FinalModelStagingDir(run_dir);
    fs::remove_all(staging);
    fs::create_directories(staging);
    state.final_model_sync = std::make_unique<DirectorySyncScope>(staging);
  }
  // A file of kHashBesideBytes or more (a tied model's means and variances) is hashed on a thread of
  // its own while this one writes it (twice after the last pass): with one job the second CPU is
  // free here (docs/performance.md, forty-first round).
  std::vector<PassFileDigest> hashed;
  next.ForEachEncodedFile([&](const char* name, const void* data, std::size_t size) {
    const bool encoded_mdef = state.mdef && std::string_view(name) == kModelFiles[0];  // (its bytes are state.mdef->text)
    std::vector<fs::path> copies{model_dir / name};
    if (state.final_model_sync) copies.push_back(state.final_model_sync->root() / name);
    if (encoded_mdef) {
      for (const fs::path& copy : copies) WriteFileAtomic(copy, data, size);
      hashed.push_back({std::string("model/") + name, state.mdef->sha256});
    } else {
      hashed.push_back({std::string("model/") + name, WriteFileCopiesHashed(copies, data, size, size >= kHashBesideBytes)});
    }
  }, state.mdef ? &state.mdef->text : nullptr);
  // With one job, the next pass's shard runs in this process: the text is encoded again in its tail
  // rather than held beside it.
  if (model_lent) state.mdef.reset();
  // Every file of model/ and accum/ (pass.json's list; listed once every part is done, so that no
  // temporary file is seen), with the digests taken above.
  // The count files first: with `rows` they read the exact sums, which go once they are written.
  std::vector<PassFileDigest> count_digests = count_files.get();
  if (rows) sums_read();
  for (PassFileDigest& digest : exact_counts.get()) hashed.push_back(std::move(digest));
  for (PassFileDigest& digest : count_digests) hashed.push_back(std::move(digest));
  std::vector<PassFileDigest> files = PassFileDigests(pass_dir, PassFiles::kAll, CheckParallelism(), hashed);
  // When the steps so far happened (not deterministic: beside pass.json, never in it).
  WriteFileAtomic(pass_dir / kPassTelemetryFile,
                  SerializePassTelemetry(MakePassTelemetry(pass_start, pass_start_time, checked.launcher->name(), sharded,
                                                           reestimated_at, process_cpu0, children_cpu0)));

  // Promote: pass.json (with the digests a later resume verifies), then the exchange.
  PassRecordInput record{pass,
                         result.training_fingerprint,
                         options.launch.jobs,
                         checked.shard_count,
                         ReductionModeName(base.reduction),
                         sharded.fingerprints,
                         sharded.code_identity,
                         &sharded.artifacts,
                         &reduced,
                         &report,
                         StopDecisionName(decision),
                         per_frame - state.previous_per_frame,
                         state.has_previous,
                         {}};
  record.files = std::move(files);
  const PassFile pass_file = PassFileFrom(record);
  const std::string pass_json = SerializePassFile(pass_file);
  WriteFileAtomic(pass_dir / kPassFileName, pass_json);
  // The final model's files (after the last pass) are fsynced first, then this pass's: one after
  // another, as fsyncs side by side each waited longer for the device (docs/performance.md).
  if (state.final_model_sync) state.final_model_sync->Sync();
  ReplaceDirectory(pass_dir, final_pass_dir);
  state.pass_records.push_back(PassRecord(pass_json));
  state.files = std::move(record.files);

  const PassTotals& totals = pass_file.outcomes.totals;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - pass_start).count();
  char line[320];
  std::snprintf(line, sizeof(line),
                "pass %u: %llu frames, %.6f per frame (gain %s), processed %llu, retried %llu, skipped %llu, %u shard%s, %.3f s -> %s", pass,
                static_cast<unsigned long long>(reduced.total_frames), per_frame,
                state.has_previous ? std::to_string(per_frame - state.previous_per_frame).c_str() : "n/a",
                static_cast<unsigned long long>(totals.processed), static_cast<unsigned long long>(totals.retried),
                static_cast<unsigned long long>(totals.skipped), checked.shard_count, checked.shard_count == 1 ? "" : "s", seconds,
                StopDecisionName(decision));
  log << line << std::endl;

  state.model = std::move(next);
  state.has_previous = true;
  state.previous_per_frame = per_frame;
  state.decision = decision;
}

// --- Last steps: write provenance and promote the final model --------------------------------------

// Per pass run through Slurm, the node that ran each shard, from passes/NNN/slurm/job.json
// (diagnostic, like the host; the job ids stay in job.json: telemetry). Empty for local runs.
json::array ShardNodes(const fs::path& run_dir, std::uint32_t passes) {
  json::array list;
  for (std::uint32_t pass = 1; pass <= passes; ++pass) {
    const fs::path job = PassDir(run_dir, pass) / "slurm" / "job.json";
    std::error_code ec;
    if (!fs::is_regular_file(job, ec)) continue;
    try {
      const json::value parsed = json::parse(ReadRegularFileText(job, kMaxPassFileBytes));
      json::array nodes;
      for (const json::value& task : parsed.at("tasks").as_array()) nodes.push_back(task.at("node"));
      json::object entry;
      entry["pass"] = pass;
      entry["nodes"] = std::move(nodes);
      list.push_back(std::move(entry));
    } catch (const std::exception&) {
      continue;  // telemetry only: an unreadable job.json is left out
    }
  }
  return list;
}

// The final model is the last pass's model: its files are copied from passes/NNN/model, each
// required to have the SHA-256 that pass.json records for it (a file changed since the pass wrote or
// resume verified it stops the run), and those digests are provenance.json's model_files, in
// kModelFiles order as ModelDirDigests lists them. Nothing is serialized or hashed twice.
json::array CopyLastPassModel(const fs::path& pass_dir, const std::vector<PassFileDigest>& files, const fs::path& into) {
  const ModelFileDigests recorded_digests = RecordedModelDigests(files);
  for (const auto& [name, recorded] : recorded_digests) {
    const fs::path from = pass_dir / "model" / name;
    const std::vector<std::uint8_t> bytes = ReadFileBytes(from);
    const std::string sha256 = Sha256Hex(bytes.data(), bytes.size());
    if (sha256 != recorded) {
      throw TrainingError(from.string() + ": SHA-256 " + sha256 + " differs from " + recorded + " in " +
                          (pass_dir / kPassFileName).string() + ": the pass's model changed after it was written; not promoted");
    }
    WriteFileAtomic(into / name, bytes);
  }
  return ModelFilesJson(recorded_digests);  // each file's bytes have the recorded digest (checked above)
}

// The final model plus provenance.json, staged in RUNDIR/.model.staging and exchanged with
// RUNDIR/model in one step. The model files are there already when this process ran the last pass
// (RunPass wrote them with its model/, from the same bytes, whose digests pass.json records);
// otherwise (every pass resumed) they are copied from the last pass's model/ and checked.
void PromoteFinalModel(const fs::path& run_dir, const TrainingIdentity& identity, const CheckedInputs& checked, const TrainResult& result,
                       LoopState& state) {
  const fs::path staging = FinalModelStagingDir(run_dir);
  json::array model_files;
  if (state.final_model_sync) {
    model_files = ModelFilesJson(RecordedModelDigests(state.files));
  } else {
    fs::remove_all(staging);
    fs::create_directories(staging);
    state.final_model_sync = std::make_unique<DirectorySyncScope>(staging);  // fsynced by ReplaceDirectory
    model_files = CopyLastPassModel(PassDir(run_dir, result.passes), state.files, staging);
  }
  ProvenanceRecord provenance{identity, result.training_fingerprint, checked.launcher->name(), HostName(),
                              ShardNodes(run_dir, result.passes), std::move(model_files), {}, StopDecisionName(state.decision)};
  for (const json::object& p : state.pass_records) provenance.passes.push_back(p);
  WriteFileAtomic(staging / "provenance.json", ProvenanceJson(provenance));
  ReplaceDirectory(staging, result.model_dir);
  state.final_model_sync.reset();
}

// Steps 2 to 4, once the inputs are loaded (if they throw, Train reports a failed feature-file check instead).
TrainResult TrainWith(const TrainOptions& options, CheckedInputs& checked, const fs::path& run_dir, std::ostream& log) {
  const TrainingIdentity identity = FingerprintInputs(options, checked);
  TrainResult result;
  result.training_fingerprint = TrainingFingerprint(identity);
  result.model_dir = run_dir / "model";

  // A model an earlier pstrain set aside (.model.old) while its two-step swap was interrupted is put
  // back first: it may be the finished model this run is asked for.
  RecoverDirectory(result.model_dir);
  if (FindFinishedModel(result, log)) {
    checked.feature_files->Require();  // a cache hit still requires the corpus the manifest describes
    return result;
  }

  if (checked.initial.has_feat_params) {
    checked.initial.feat_params_text = OutputFeatParams(checked.initial.feat_params_text, options.inputs.options.features);
  }
  LoopState state;
  state.model = std::move(checked.initial);  // not a copy: a CD model's mdef alone is megabytes
  fs::create_directories(run_dir / kRunPassesDir);
  ResumeFinishedPasses(options, run_dir, result, state, log);
  try {
    while (state.decision == StopDecision::kContinue) {
      RunPass(options, checked, run_dir, result, state, log);
      ++state.pass;
    }
    result.passes = state.pass - 1;
    result.decision = state.decision;

    checked.feature_files->Require();  // (all passes resumed: no pass read the corpus)
    PromoteFinalModel(run_dir, identity, checked, result, state);
  } catch (...) {
    // A final model staged by the last pass is never promoted after a failure: its directory goes
    // (an interrupted process leaves it, and the next run removes it before staging its own).
    if (state.final_model_sync) {
      state.final_model_sync.reset();
      std::error_code ec;
      fs::remove_all(FinalModelStagingDir(run_dir), ec);
    }
    throw;
  }
  // Passes beyond the last one belong to an earlier, different training of this RUNDIR: remove them
  // so that RUNDIR describes one training only.
  for (std::uint32_t stale = result.passes + 1; fs::exists(PassDir(run_dir, stale)); ++stale) {
    fs::remove_all(PassDir(run_dir, stale));
    log << "removed passes/" << PassName(stale) << " of an earlier training\n";
  }
  return result;
}

}  // namespace

TrainResult Train(const TrainOptions& options, const fs::path& run_dir, std::ostream& log) {
  // SIGINT/SIGTERM stop the run between utterances (inline) or stop the workers (launcher):
  // nothing is promoted, and the error says why.
  InterruptGuard interrupt_guard;
  // The build identity hashes this binary and its shared libraries (once per process), and the input
  // model is read and checked: each on a thread of its own while the manifest and the dictionary
  // are read here, all independent of one another. An error is the one the steps one after another
  // would report: the model's first, then the manifest's, the feature files', the dictionary's.
  std::future<void> build_identity = std::async(std::launch::async | std::launch::deferred, [] { ProcessBuildIdentity(); });
  std::future<LoadedModel> model = std::async(std::launch::async | std::launch::deferred, [&] { return LoadInputModel(options); });
  std::exception_ptr load_error, resolve_error;
  std::optional<CheckedInputs> checked;
  try {
    checked.emplace(CheckedInputs{ModelFiles{}, {}, Manifest::Load(options.inputs.manifest_path), nullptr, 0, nullptr});
  } catch (...) {
    load_error = std::current_exception();
  }
  if (!load_error) {
    try {
      ResolveInputs(options, *checked);  // its error is reported after the feature files'
    } catch (...) {
      resolve_error = std::current_exception();
    }
  }
  // With the local launcher, the feature files are looked at (exist, regular) while the model's
  // thread may still be reading (a tied CD model's load outlasts the manifest's), and the answer is
  // acted on below, once the model is known good: the same errors in the same order, the look
  // (1-3 ms for the benchmark corpus) no longer after the model's load (docs/performance.md,
  // twenty-sixth round).
  std::optional<bool> features_present;
  if (!load_error && FeatureFileCheckWhen(options) == FeatureFileCheck::When::kWhenNeeded) {
    features_present = FeatureFilesPresent(checked->manifest, options.inputs.corpus_root);
  }
  LoadedModel loaded = model.get();  // throws the model's error, which comes first
  // The model's thread freed the file bytes it parsed into its own malloc arena: those below the
  // mmap threshold (common/malloc_thresholds.h) would stay resident there for the whole run; given
  // back now (peak RSS, docs/performance.md).
  ::malloc_trim(0);
  if (load_error) std::rethrow_exception(load_error);
  // The feature files once the model is known to be good: with Slurm, or when a file is missing,
  // the check reads the whole corpus, which a bad model's error must not wait for.
  StartFeatureFileCheck(options, *checked, features_present);
  checked->initial = std::move(loaded.files);
  checked->initial_digests = std::move(loaded.digests);
  try {
    if (resolve_error) std::rethrow_exception(resolve_error);
    build_identity.get();
    return TrainWith(options, *checked, run_dir, log);
  } catch (...) {
    // A failed feature-file check is the cause to report, whatever else failed (a worker reading a
    // changed file, say): its error is thrown instead.
    if (checked->feature_files->Failed()) checked->feature_files->Require();
    throw;
  }
}

}  // namespace pstrain
