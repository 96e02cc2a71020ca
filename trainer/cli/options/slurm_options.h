// The command-line options of SlurmOptions (coordinator/): --slurm-partition, --slurm-opt, --retry-failed-shards.
#pragma once

#include <boost/program_options/options_description.hpp>

#include "coordinator/slurm_launcher.h"

namespace pstrain::cli {

// Registers the options of the Slurm launcher into `options` (they apply with --launcher slurm).
void AddOptions(boost::program_options::options_description& desc, SlurmOptions& options);

}  // namespace pstrain::cli
