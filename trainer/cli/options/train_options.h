// The command-line options of TrainOptions (training/): the pass inputs', the stop rule's and the launch options.
#pragma once

#include <boost/program_options/options_description.hpp>

#include "training/train_loop.h"

namespace pstrain::cli {

// Registers the options of PassInputs, StopRule and LaunchOptions into `options`; its current values are
// the defaults shown. (`progress` is not an option: `pstrain train` derives it from --quiet.)
void AddOptions(boost::program_options::options_description& desc, TrainOptions& options);

}  // namespace pstrain::cli
