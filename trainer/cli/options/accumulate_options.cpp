// The command-line options of AccumulateOptions and their cross-option checks.
#include "cli/options/accumulate_options.h"

#include "cli/commands.h"
#include "cli/options/feature_options.h"
#include "cli/options/forward_backward_options.h"
#include "cli/options/model_options.h"
#include "cli/options/option_values.h"
#include "coordinator/worker_flags.h"

namespace pstrain::cli {

void AddOptions(po::options_description& desc, AccumulateOptions& options) {
  AddOptions(desc, options.features);
  AddOptions(desc, options.model);
  AddOptions(desc, options.fb);
  desc.add_options()
      (worker_flag::kRetryBeams, RetryBeamsOption(&options.retry_beams),
       "after a failed alignment, retry with these ABEAM:BBEAM pairs in order (comma-separated), or none")
      (worker_flag::kMultipron, YesNoOption(&options.multipron)->implicit_value(YesNo{true}, "yes"),
       "train over every dictionary pronunciation of each word (WORD, WORD(2), ...): yes|no (docs/multipron.md)");
}

void CheckOptions(const AccumulateOptions& options) {
  if (options.features.varnorm && options.features.cmn == CmnMode::kNone) throw UsageError("--varnorm yes needs --cmn batch");
  if (!(options.fb.beams.abeam > 0 && options.fb.beams.abeam <= 1)) throw UsageError("--abeam must be in (0, 1]");
  if (!(options.fb.beams.bbeam > 0 && options.fb.beams.bbeam <= 1)) throw UsageError("--bbeam must be in (0, 1]");
  if (!(options.model.varfloor > 0)) throw UsageError("--varfloor must be positive");
}

}  // namespace pstrain::cli
