// The command-line options of FeatureOptions (features/): --cmn and --varnorm.
#pragma once

#include <boost/program_options/options_description.hpp>

#include "features/features.h"

namespace pstrain::cli {

// Registers --cmn and --varnorm into `options`; its current values are the defaults shown.
void AddOptions(boost::program_options::options_description& desc, FeatureOptions& options);

}  // namespace pstrain::cli
