// The command-line options of FeatureOptions: --cmn and --varnorm.
#include "cli/options/feature_options.h"

#include "cli/options/option_values.h"

namespace pstrain::cli {

void AddOptions(po::options_description& desc, FeatureOptions& options) {
  desc.add_options()
      ("cmn", EnumOption(&options.cmn), "cepstral mean normalization: batch (= current) or none. live is refused (order-dependent)")
      ("varnorm", YesNoOption(&options.varnorm), "variance normalization with batch CMN: yes|no");
}

}  // namespace pstrain::cli
