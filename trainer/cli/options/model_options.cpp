// The command-line options of ModelOptions: --topn, --varfloor, --mwfloor and --tpfloor.
#include "cli/options/model_options.h"

#include "cli/options/option_values.h"

namespace pstrain::cli {

void AddOptions(po::options_description& desc, ModelOptions& options) {
  desc.add_options()
      ("topn", UnsignedOption(&options.topn), "densities evaluated per mixture (0 = all, SphinxTrain's CI setting)")
      ("varfloor", FloatOption(&options.varfloor), "variance floor applied when loading the model")
      ("mwfloor", FloatOption(&options.mwfloor), "mixture-weight floor applied when loading the model")
      ("tpfloor", FloatOption(&options.tpfloor), "floor of non-zero transition probabilities when loading");
}

}  // namespace pstrain::cli
