// The command-line options of ForwardBackwardOptions (forward_backward/): beams, --spthresh, --2passvar.
#pragma once

#include <boost/program_options/options_description.hpp>

#include "forward_backward/forward_backward.h"

namespace pstrain::cli {

// Registers --abeam, --bbeam, --spthresh and --2passvar into `options`; its current values are the defaults shown.
void AddOptions(boost::program_options::options_description& desc, ForwardBackwardOptions& options);

}  // namespace pstrain::cli
