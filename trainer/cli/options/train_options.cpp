// The command-line options of TrainOptions: the pass inputs', the stop rule's and the launch options.
#include "cli/options/train_options.h"

#include "cli/options/launch_options.h"
#include "cli/options/pass_inputs_options.h"
#include "cli/options/stop_rule_options.h"

namespace pstrain::cli {

void AddOptions(boost::program_options::options_description& desc, TrainOptions& options) {
  AddOptions(desc, options.stop);
  AddOptions(desc, options.launch);
  AddOptions(desc, options.inputs);
}

}  // namespace pstrain::cli
