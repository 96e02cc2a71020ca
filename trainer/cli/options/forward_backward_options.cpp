// The command-line options of ForwardBackwardOptions: --abeam, --bbeam, --spthresh and --2passvar.
#include "cli/options/forward_backward_options.h"

#include "cli/options/option_values.h"
#include "coordinator/worker_flags.h"

namespace pstrain::cli {

void AddOptions(po::options_description& desc, ForwardBackwardOptions& options) {
  desc.add_options()
      (worker_flag::kAbeam, FloatOption(&options.beams.abeam), "forward (alpha) beam, relative to the best state")
      (worker_flag::kBbeam, FloatOption(&options.beams.bbeam), "backward (beta) beam, relative to the final alpha")
      (worker_flag::kPass2var, YesNoOption(&options.pass2var), "accumulate variances around the input means: yes|no")
      (worker_flag::kSpthresh, FloatOption(&options.spthresh), "state posteriors at or below this add no counts");
}

}  // namespace pstrain::cli
