// The command-line options of StopRule: --min-passes, --max-passes and --convergence.
#include "cli/options/stop_rule_options.h"

#include "cli/options/option_values.h"

namespace pstrain::cli {

void AddOptions(po::options_description& desc, StopRule& rule) {
  desc.add_options()
      ("min-passes", UnsignedOption(&rule.min_passes), "run at least this many passes")
      ("max-passes", UnsignedOption<1>(&rule.max_passes), "run at most this many passes (at least 1)")
      ("convergence", FloatOption(&rule.convergence), "converged when the per-frame log-likelihood gain is not above this (SphinxTrain's rule)");
}

}  // namespace pstrain::cli
