#include "training/train_loop.h"

#include <cmath>
#include <cstdio>
#include <ostream>

#include "common/error.h"
#include "common/file_io.h"
#include "formats/feat_params.h"
#include "reestimate/reestimate.h"
#include "training/pass_summary.h"

namespace pstrain {

namespace fs = std::filesystem;

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

std::string PassName(std::uint32_t pass) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "%03u", pass);
  return buffer;
}

// Writes `model` into `dest` through a staging directory, so `dest` is either the old complete
// model or the new complete one.
void SaveModelAtomically(const ModelFiles& model, const fs::path& dest) {
  const fs::path staging = dest.parent_path() / ("." + dest.filename().string() + ".staging");
  fs::remove_all(staging);
  fs::create_directories(staging);
  model.Save(staging.string());
  ReplaceDirectory(staging, dest);
}

}  // namespace

TrainResult Train(const fs::path& model_dir, const Manifest& manifest, const fs::path& corpus_root, const Dictionary& dictionary,
                  const TrainOptions& options, const fs::path& run_dir, std::ostream& log) {
  ModelFiles model = ModelFiles::Load(model_dir.string());
  CheckManifest(manifest, corpus_root);
  CheckWords(manifest, dictionary);
  if (options.stop.max_passes == 0) throw InputError("--max-passes must be at least 1");
  if (options.stop.min_passes > options.stop.max_passes) throw InputError("--min-passes is larger than --max-passes");
  if (model.has_feat_params) model.feat_params_text = OutputFeatParams(model.feat_params_text, options.accumulate.features);

  fs::create_directories(run_dir / "passes");
  const std::string fingerprint = manifest.Fingerprint();
  TrainResult result;
  bool has_previous = false;
  double previous_per_frame = 0.0;
  for (std::uint32_t pass = 1;; ++pass) {
    // A pass is built in a staging directory and renamed into place when complete, so a failed
    // pass leaves no partial directory and an earlier run's pass NNN stays intact until replaced.
    const fs::path final_pass_dir = run_dir / "passes" / PassName(pass);
    const fs::path pass_dir = run_dir / "passes" / ("." + PassName(pass) + ".staging");
    fs::remove_all(pass_dir);
    fs::create_directories(pass_dir);
    CorpusPassResult pass_result = RunCorpusPass(model, manifest, 0, manifest.size(), corpus_root, dictionary, options.accumulate, nullptr);
    if (pass_result.total_frames == 0) {
      throw TrainingError("pass " + std::to_string(pass) + ": no utterance could be aligned (all " +
                          std::to_string(manifest.size()) + " skipped; first reason: " +
                          (pass_result.outcomes.empty() ? std::string("none") : pass_result.outcomes[0].reason) + ")");
    }
    pass_result.accumulators.Write((pass_dir / "accum").string());
    ReestimationReport report;
    ModelFiles next = Reestimate(pass_result.accumulators.ToAccumulators(), model, &report);
    fs::create_directories(pass_dir / "model");
    next.Save((pass_dir / "model").string());

    const double total_log_likelihood = pass_result.total_log_likelihood.value();
    const double per_frame = total_log_likelihood / static_cast<double>(pass_result.total_frames);
    const StopDecision decision = DecideStop(options.stop, pass, has_previous, previous_per_frame, per_frame);
    PassSummaryInput summary{pass, fingerprint, &pass_result, &report, StopDecisionName(decision), per_frame - previous_per_frame, has_previous};
    WriteFileAtomic(pass_dir / "summary.json", PassSummaryJson(summary));
    ReplaceDirectory(pass_dir, final_pass_dir);
    char line[256];
    std::snprintf(line, sizeof(line), "pass %u: %llu frames, log-likelihood %.6e (%.6f per frame), processed %u, retried %u, skipped %u -> %s",
                  pass, static_cast<unsigned long long>(pass_result.total_frames), total_log_likelihood, per_frame,
                  pass_result.n_processed, pass_result.n_retried, pass_result.n_skipped, StopDecisionName(decision));
    log << line << std::endl;

    model = std::move(next);
    has_previous = true;
    previous_per_frame = per_frame;
    result.passes = pass;
    result.decision = decision;
    if (decision != StopDecision::kContinue) break;
  }
  result.model_dir = run_dir / "model";
  SaveModelAtomically(model, result.model_dir);
  return result;
}

}  // namespace pstrain
