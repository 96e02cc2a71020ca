// The command-line options of ModelOptions (model/): --topn and the floors applied on load.
#pragma once

#include <boost/program_options/options_description.hpp>

#include "model/acoustic_model.h"

namespace pstrain::cli {

// Registers --topn, --varfloor, --mwfloor and --tpfloor into `options`; its current values are the defaults shown.
void AddOptions(boost::program_options::options_description& desc, ModelOptions& options);

}  // namespace pstrain::cli
