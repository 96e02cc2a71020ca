// Multi-pass training: each pass is a sharded E-step (coordinator/pass_runner.h: partition, shard
// workers, artifact validation, reduction), re-estimation and a stop
// decision, until converged or the pass limit.
//
//   RUNDIR/passes/NNN/shard-XXX/   each shard's artifact (payload, artifact.json, telemetry, logs)
//   RUNDIR/passes/NNN/accum/       the reduced statistics
//   RUNDIR/passes/NNN/model/       the model re-estimated from them
//   RUNDIR/passes/NNN/pass.json    the pass summary
//   RUNDIR/model/                  the final model and provenance.json
//
// A pass is built in passes/.NNN.staging and renamed into place whole; RUNDIR/model/ is replaced
// only after the last pass, so a failed or interrupted run never promotes anything. Rerunning with
// the same training fingerprint is a cache hit (nothing is done); an interrupted run resumes after
// its last complete pass.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>

#include "coordinator/pass_runner.h"

namespace pstrain {

struct StopRule {
  std::uint32_t min_passes = 1;
  std::uint32_t max_passes = 10;
  double convergence = 0.1;  // stop when the per-frame log-likelihood gain is not above this
};

enum class StopDecision { kContinue, kConverged, kMaxPasses };
const char* StopDecisionName(StopDecision decision);

// SphinxTrain's rule (norm_and_launchbw.pl): gain = current - previous per-frame log-likelihood;
// the first pass always continues (unless it is the last allowed); gain above the threshold
// continues until max_passes; otherwise continue until min_passes, then converged.
StopDecision DecideStop(const StopRule& rule, std::uint32_t pass, bool has_previous, double previous_per_frame,
                        double current_per_frame);

struct TrainOptions {
  PassInputs inputs;               // model_dir = the initial model
  StopRule stop;
  LaunchOptions launch;            // --jobs, --launcher and the Slurm options
  bool progress = false;           // per-shard progress on stderr (terminals only)
};

struct TrainResult {
  std::uint32_t passes = 0;
  StopDecision decision = StopDecision::kContinue;
  std::filesystem::path model_dir;
  bool cache_hit = false;
  std::uint32_t resumed_passes = 0;
  std::string training_fingerprint;
};

// Throws InputError for bad input, TrainingError when a pass fails (a worker, a validation check,
// a write). Progress lines go to `log`.
TrainResult Train(const TrainOptions& options, const std::filesystem::path& run_dir, std::ostream& log);

// The model directory's feat.params for our features (-cmn/-varnorm set to what we computed).
std::string OutputFeatParams(const std::string& input_text, const FeatureOptions& features);

}  // namespace pstrain
