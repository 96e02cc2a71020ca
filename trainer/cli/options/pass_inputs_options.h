// The command-line options of PassInputs (shards/) apart from its paths: --reduction and the E-step's.
#pragma once

#include <boost/program_options/options_description.hpp>

#include "shards/shard_worker.h"

namespace pstrain::cli {

// Registers --reduction and the AccumulateOptions options into `inputs`; its current values are the
// defaults shown. The paths come from CorpusInputs (cli/options.h, ResolvePassInputs).
void AddOptions(boost::program_options::options_description& desc, PassInputs& inputs);

}  // namespace pstrain::cli
