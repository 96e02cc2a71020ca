// Multi-pass training in one process: E-step over the whole manifest, re-estimation, stop decision,
// repeated until converged or the pass limit. Each pass leaves RUNDIR/passes/NNN/ with its
// accumulators (accum/), its summary (summary.json) and its re-estimated model (model/), each
// written atomically; RUNDIR/model/ is replaced by the final model only when training succeeded.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>

#include "training/corpus_pass.h"

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
  AccumulateOptions accumulate;
  StopRule stop;
};

struct TrainResult {
  std::uint32_t passes = 0;
  StopDecision decision = StopDecision::kContinue;
  std::filesystem::path model_dir;
};

// Trains from the model in `model_dir` on `manifest` (features under `corpus_root`). Throws
// InputError for bad input, TrainingError when a pass cannot produce a model (no utterance aligned,
// a write failed). Progress lines go to `log`.
TrainResult Train(const std::filesystem::path& model_dir, const Manifest& manifest, const std::filesystem::path& corpus_root,
                  const Dictionary& dictionary, const TrainOptions& options, const std::filesystem::path& run_dir,
                  std::ostream& log);

// The model directory's feat.params for our features (-cmn/-varnorm set to what we computed).
std::string OutputFeatParams(const std::string& input_text, const FeatureOptions& features);

}  // namespace pstrain
