// The command-line options of ForwardBackwardOptions: --abeam, --bbeam, --spthresh and --2passvar.
#include "cli/options/forward_backward_options.h"

#include "cli/options/option_values.h"

namespace pstrain::cli {

void AddOptions(po::options_description& desc, ForwardBackwardOptions& options) {
  desc.add_options()
      ("abeam", FloatOption(&options.beams.abeam), "forward (alpha) beam, relative to the best state")
      ("bbeam", FloatOption(&options.beams.bbeam), "backward (beta) beam, relative to the final alpha")
      ("2passvar", YesNoOption(&options.pass2var), "accumulate variances around the input means: yes|no")
      ("spthresh", FloatOption(&options.spthresh), "state posteriors at or below this add no counts");
}

}  // namespace pstrain::cli
