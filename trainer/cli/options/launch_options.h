// The command-line options of LaunchOptions (coordinator/): --jobs, --launcher and the Slurm options.
#pragma once

#include <boost/program_options/options_description.hpp>

#include "coordinator/pass_runner.h"

namespace pstrain::cli {

// Registers --jobs, --launcher and the SlurmOptions options into `options`; its current values are
// the defaults shown.
void AddOptions(boost::program_options::options_description& desc, LaunchOptions& options);

}  // namespace pstrain::cli
