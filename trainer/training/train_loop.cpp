// Multi-pass training: the named steps of a pass and the loop over passes until the stop rule says so.
#include "training/train_loop.h"

#include <boost/json.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <utility>

#include "common/error.h"
#include "common/file_io.h"
#include "common/interrupt.h"
#include "common/sha256.h"
#include "formats/feat_params.h"
#include "provenance/provenance.h"
#include "provenance/provenance_file.h"
#include "model/model_checks.h"
#include "reestimate/reestimate.h"
#include "shards/partition.h"
#include "shards/run_layout.h"
#include "coordinator/pass_summary.h"

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


// What a finished pass directory says about itself, for resuming.
struct CompletedPass {
  bool valid = false;
  double per_frame = 0.0;
  StopDecision decision = StopDecision::kContinue;
  std::string not_verified;  // why a pass with a matching fingerprint is recomputed (empty: none)
};

CompletedPass ReadCompletedPass(const fs::path& pass_dir, const std::string& training_fingerprint) {
  CompletedPass completed;
  std::error_code ec;
  if (!fs::is_regular_file(pass_dir / "pass.json", ec) || !fs::is_directory(pass_dir / "model", ec)) return completed;
  try {
    const json::value summary = json::parse(ReadFileText(pass_dir / "pass.json"));
    if (summary.at("training_fingerprint").as_string() != training_fingerprint) return completed;
    // Its model and accum/ must be what the pass wrote: the SHA-256 recorded in pass.json.
    if (!summary.as_object().contains("files")) {
      completed.not_verified = (pass_dir / "pass.json").string() + " records no file digests (an older format)";
      return completed;
    }
    const json::array& recorded = summary.at("files").as_array();
    const json::array actual = PassFileDigests(pass_dir);
    if (json::serialize(recorded) != json::serialize(actual)) {
      std::string file;
      for (const json::value& entry : recorded) {
        const std::string name(entry.at("file").as_string());
        const fs::path path = pass_dir / name;
        std::error_code file_ec;
        if (!fs::is_regular_file(path, file_ec) || Sha256OfFile(path) != entry.at("sha256").as_string()) {
          file = name;
          break;
        }
      }
      if (file.empty()) {  // every recorded file verifies: an extra file
        for (const json::value& entry : actual) {
          bool listed = false;
          for (const json::value& r : recorded) listed = listed || r.at("file") == entry.at("file");
          if (!listed) {
            file = std::string(entry.at("file").as_string());
            break;
          }
        }
      }
      completed.not_verified = (pass_dir / file).string() + " does not verify against the SHA-256 in pass.json";
      return completed;
    }
    // Recomputed from the exact values (a JSON double need not parse back to the same bits).
    FixedPoint total = 0;
    if (!FixedFromHex(std::string(summary.at("totals").at("total_log_likelihood_exact").as_string()), total)) return completed;
    const std::uint64_t frames = summary.at("totals").at("total_frames").to_number<std::uint64_t>();
    if (frames == 0) return completed;
    completed.per_frame = FromFixed(total) / static_cast<double>(frames);
    const std::string decision(summary.at("stop_decision").as_string());
    completed.decision = decision == "converged" ? StopDecision::kConverged
                         : decision == "max-passes" ? StopDecision::kMaxPasses
                                                    : StopDecision::kContinue;
    completed.valid = true;
  } catch (const std::exception&) {
    completed.valid = false;  // unreadable: recomputed
  }
  return completed;
}

constexpr const char* kModelFiles[] = {"mdef", "means", "variances", "mixture_weights", "transition_matrices", "feat.params", "noisedict"};

// The model files present in `dir` with their SHA-256, in kModelFiles order.
json::array ModelFileDigests(const fs::path& dir) {
  json::array files;
  for (const char* name : kModelFiles) {
    if (!fs::is_regular_file(dir / name)) continue;
    json::object file;
    file["file"] = name;
    file["sha256"] = Sha256OfFile(dir / name);
    files.push_back(std::move(file));
  }
  return files;
}

// Per pass run through Slurm, the node that ran each shard, from passes/NNN/slurm/job.json
// (diagnostic, like the host; the job ids stay in job.json: telemetry). Empty for local runs.
json::array ShardNodes(const fs::path& run_dir, std::uint32_t passes) {
  json::array list;
  for (std::uint32_t pass = 1; pass <= passes; ++pass) {
    char name[16];
    std::snprintf(name, sizeof(name), "%03u", pass);
    const fs::path job = run_dir / "passes" / name / "slurm" / "job.json";
    std::error_code ec;
    if (!fs::is_regular_file(job, ec)) continue;
    try {
      const json::value parsed = json::parse(ReadFileText(job));
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

void SaveModelDir(const ModelFiles& model, const fs::path& dir) {
  fs::create_directories(dir);
  model.Save(dir.string());
}

}  // namespace

TrainResult Train(const TrainOptions& options, const fs::path& run_dir, std::ostream& log) {
  // SIGINT/SIGTERM stop the run between utterances (inline) or stop the workers (launcher):
  // nothing is promoted, and the error says why.
  InterruptGuard interrupt_guard;
  const PassInputs& base = options.inputs;
  ModelFiles initial = LoadCheckedModel(base.model_dir);
  const Manifest manifest = Manifest::Load(base.manifest_path);
  CheckManifest(manifest, base.corpus_root);
  Dictionary dictionary = Dictionary::Load(base.dict, false);
  dictionary.Merge(Dictionary::Load(base.filler, true));
  CheckWords(manifest, dictionary);
  if (options.stop.max_passes == 0) throw InputError("--max-passes must be at least 1");
  if (options.stop.min_passes > options.stop.max_passes) throw InputError("--min-passes is larger than --max-passes");
  if (options.launch.jobs == 0) throw InputError("--jobs must be at least 1");
  std::unique_ptr<Launcher> launcher = MakeLauncher(options.launch);
  launcher->set_progress(options.progress);
  const std::uint32_t shard_count = EffectiveShardCount(options.launch.jobs, manifest.size());

  TrainingIdentity identity;
  identity.build = ProcessBuildIdentity();  // cached: computed once per process
  const std::string dictionary_fingerprint = DictionaryFingerprint(base.dict, base.filler);
  identity.canonical_config = CanonicalConfig(base.options, base.reduction, dictionary_fingerprint);
  identity.config_fingerprint = ConfigFingerprint(base.options, base.reduction, dictionary_fingerprint);
  identity.manifest_fingerprint = manifest.Fingerprint();
  identity.input_model_fingerprint = ModelFingerprint(base.model_dir);
  identity.requested_jobs = options.launch.jobs;
  identity.shard_count = shard_count;
  identity.reduction = ReductionModeName(base.reduction);
  identity.launcher = launcher->name();
  identity.min_passes = options.stop.min_passes;
  identity.max_passes = options.stop.max_passes;
  identity.convergence = options.stop.convergence;
  TrainResult result;
  result.training_fingerprint = TrainingFingerprint(identity);
  result.model_dir = run_dir / "model";

  // A model an earlier pstrain set aside (.model.old) while its two-step swap was interrupted is put
  // back first: it may be the finished model this run is asked for.
  RecoverDirectory(result.model_dir);
  // Cache hit: the final model of an identical training is already there.
  try {
    if (fs::is_regular_file(result.model_dir / "provenance.json")) {
      const json::value provenance = json::parse(ReadFileText(result.model_dir / "provenance.json"));
      // A hit needs the same fingerprint and the model files exactly as training wrote them.
      if (provenance.at("training_fingerprint").as_string() == result.training_fingerprint &&
          json::serialize(provenance.at("model_files")) == json::serialize(ModelFileDigests(result.model_dir))) {
        result.cache_hit = true;
        result.passes = static_cast<std::uint32_t>(provenance.at("passes").as_array().size());
        const std::string decision(provenance.at("stop_decision").as_string());
        result.decision = decision == "converged" ? StopDecision::kConverged : StopDecision::kMaxPasses;
        log << "up to date: " << result.model_dir.string() << " has training fingerprint " << result.training_fingerprint << "\n";
        return result;
      }
    }
  } catch (const std::exception&) {
    // An unreadable provenance file is no cache hit; the run proceeds and rewrites it.
  }

  if (initial.has_feat_params) initial.feat_params_text = OutputFeatParams(initial.feat_params_text, base.options.features);
  ModelFiles model = std::move(initial);  // not a copy: a CD model's mdef alone is megabytes
  fs::create_directories(run_dir / kRunPassesDir);
  std::vector<json::object> pass_records;
  bool has_previous = false;
  double previous_per_frame = 0.0;
  StopDecision decision = StopDecision::kContinue;
  std::uint32_t pass = 1;

  // Resume after the last complete pass of an identical training.
  for (; pass <= options.stop.max_passes; ++pass) {
    const fs::path pass_dir = PassDir(run_dir, pass);
    RecoverDirectory(pass_dir);
    const CompletedPass completed = ReadCompletedPass(pass_dir, result.training_fingerprint);
    if (!completed.not_verified.empty()) log << "pass " << pass << ": " << completed.not_verified << ": recomputed\n";
    if (!completed.valid) break;
    model = LoadCheckedModel((pass_dir / "model").string());
    pass_records.push_back(json::parse(ReadFileText(pass_dir / "pass.json")).as_object());
    has_previous = true;
    previous_per_frame = completed.per_frame;
    decision = completed.decision;
    ++result.resumed_passes;
    // A staging directory left by an interrupted run (after the exchange it holds a superseded copy).
    fs::remove_all(HiddenSibling(pass_dir, ".staging"));
    log << "pass " << pass << ": already complete (resumed)\n";
    if (decision != StopDecision::kContinue) break;
  }
  if (decision != StopDecision::kContinue) ++pass;

  for (; decision == StopDecision::kContinue; ++pass) {
    const auto pass_start = std::chrono::steady_clock::now();
    const fs::path final_pass_dir = PassDir(run_dir, pass);
    const fs::path pass_dir = StagingPassDir(run_dir, pass);
    fs::remove_all(pass_dir);
    fs::create_directories(pass_dir);
    PassInputs inputs = base;
    if (pass > 1) inputs.model_dir = (PassDir(run_dir, pass - 1) / "model").string();
    ShardedPassResult sharded = RunShardedPass(inputs, manifest, pass, shard_count, pass_dir, *launcher);
    const ReducedPass& reduced = sharded.reduced;
    if (reduced.total_frames == 0) {
      throw TrainingError("pass " + std::to_string(pass) + ": no utterance could be aligned (all " + std::to_string(manifest.size()) +
                          " skipped)");
    }
    WriteReducedStatistics(reduced, pass_dir / "accum");
    ReestimationReport report;
    // The survival prior is applied here, once, to the reduced statistics (never per shard); the
    // next pass starts from a fresh bitmap.
    ModelFiles next = Reestimate(reduced.accumulators, model, &report, &reduced.fallback_senones);
    SaveModelDir(next, pass_dir / "model");

    const double total_log_likelihood = reduced.log_likelihood.value();
    const double per_frame = total_log_likelihood / static_cast<double>(reduced.total_frames);
    decision = DecideStop(options.stop, pass, has_previous, previous_per_frame, per_frame);
    PassRecordInput record{pass,
                           result.training_fingerprint,
                           options.launch.jobs,
                           shard_count,
                           ReductionModeName(base.reduction),
                           sharded.fingerprints,
                           sharded.code_identity,
                           &sharded.artifacts,
                           &reduced,
                           &report,
                           StopDecisionName(decision),
                           per_frame - previous_per_frame,
                           has_previous,
                           {}};
    record.files = PassFileDigests(pass_dir);  // verified when a later run resumes after this pass
    const std::string pass_json = PassJson(record);
    WriteFileAtomic(pass_dir / "pass.json", pass_json);
    ReplaceDirectory(pass_dir, final_pass_dir);
    pass_records.push_back(json::parse(pass_json).as_object());

    std::uint32_t processed = 0, retried = 0, skipped = 0;
    for (const ShardArtifact& a : sharded.artifacts) {
      processed += static_cast<std::uint32_t>(a.processed_ids.size());
      retried += static_cast<std::uint32_t>(a.retried_ids.size());
      skipped += static_cast<std::uint32_t>(a.skipped.size());
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - pass_start).count();
    char line[320];
    std::snprintf(line, sizeof(line),
                  "pass %u: %llu frames, %.6f per frame (gain %s), processed %u, retried %u, skipped %u, %u shard%s, %.3f s -> %s", pass,
                  static_cast<unsigned long long>(reduced.total_frames), per_frame,
                  has_previous ? std::to_string(per_frame - previous_per_frame).c_str() : "n/a", processed, retried, skipped,
                  shard_count, shard_count == 1 ? "" : "s", seconds, StopDecisionName(decision));
    log << line << std::endl;

    model = std::move(next);
    has_previous = true;
    previous_per_frame = per_frame;
  }
  result.passes = pass - 1;
  result.decision = decision;

  // Promote: the final model plus provenance.json, staged and renamed in whole.
  const fs::path staging = run_dir / ".model.staging";
  fs::remove_all(staging);
  SaveModelDir(model, staging);
  ProvenanceRecord provenance{identity, result.training_fingerprint, launcher->name(), HostName(),
                              ShardNodes(run_dir, result.passes), ModelFileDigests(staging), {}, StopDecisionName(decision)};
  for (const json::object& p : pass_records) provenance.passes.push_back(p);
  WriteFileAtomic(staging / "provenance.json", ProvenanceJson(provenance));
  ReplaceDirectory(staging, result.model_dir);
  // Passes beyond the last one belong to an earlier, different training of this RUNDIR: remove them
  // so that RUNDIR describes one training only.
  for (std::uint32_t stale = result.passes + 1; fs::exists(PassDir(run_dir, stale)); ++stale) {
    fs::remove_all(PassDir(run_dir, stale));
    log << "removed passes/" << PassName(stale) << " of an earlier training\n";
  }
  return result;
}

}  // namespace pstrain
