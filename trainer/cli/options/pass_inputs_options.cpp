// The command-line options of PassInputs apart from its paths: --reduction and the E-step's.
#include "cli/options/pass_inputs_options.h"

#include "cli/options/accumulate_options.h"
#include "cli/options/option_values.h"
#include "coordinator/worker_flags.h"

namespace pstrain::cli {

void AddOptions(po::options_description& desc, PassInputs& inputs) {
  desc.add_options()
      (worker_flag::kReduction, EnumOption(&inputs.reduction),
       "exact: results identical for every shard count; float32: SphinxTrain-style float32 partial sums");
  AddOptions(desc, inputs.options);
}

}  // namespace pstrain::cli
