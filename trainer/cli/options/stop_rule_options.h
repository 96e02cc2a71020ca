// The command-line options of StopRule (training/): --min-passes, --max-passes, --convergence.
#pragma once

#include <boost/program_options/options_description.hpp>

#include "training/train_loop.h"

namespace pstrain::cli {

// Registers --min-passes, --max-passes and --convergence into `rule`; its current values are the defaults shown.
void AddOptions(boost::program_options::options_description& desc, StopRule& rule);

}  // namespace pstrain::cli
