// The command-line options of AccumulateOptions (estep/): its parts' options, --retry-beams, --multipron.
#pragma once

#include <boost/program_options/options_description.hpp>

#include "estep/corpus_pass.h"

namespace pstrain::cli {

// Registers the options of FeatureOptions, ModelOptions and ForwardBackwardOptions, --retry-beams
// and --multipron into `options`; its current values are the defaults shown.
void AddOptions(boost::program_options::options_description& desc, AccumulateOptions& options);
// The checks that need more than one option's value or a range: --abeam and --bbeam in (0, 1],
// --varfloor positive, --varnorm yes only with --cmn batch. A UsageError (exit 2) names the option.
void CheckOptions(const AccumulateOptions& options);

}  // namespace pstrain::cli
