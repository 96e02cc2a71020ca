// The command-line options of ModelOptions: --topn, --varfloor, --mwfloor and --tpfloor.
#include "cli/options/model_options.h"

#include "cli/options/option_values.h"
#include "coordinator/worker_flags.h"

namespace pstrain::cli {

void AddOptions(po::options_description& desc, ModelOptions& options) {
  desc.add_options()
      (worker_flag::kTopn, UnsignedOption(&options.topn), "densities evaluated per mixture (0 = all, SphinxTrain's CI setting)")
      (worker_flag::kVarfloor, FloatOption(&options.varfloor), "variance floor applied when loading the model")
      (worker_flag::kMwfloor, FloatOption(&options.mwfloor), "mixture-weight floor applied when loading the model")
      (worker_flag::kTpfloor, FloatOption(&options.tpfloor), "floor of non-zero transition probabilities when loading");
}

}  // namespace pstrain::cli
