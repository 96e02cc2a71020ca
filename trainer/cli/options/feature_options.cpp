// The command-line options of FeatureOptions: --cmn and --varnorm.
#include "cli/options/feature_options.h"

#include "cli/options/option_values.h"
#include "coordinator/worker_flags.h"

namespace pstrain::cli {

void AddOptions(po::options_description& desc, FeatureOptions& options) {
  desc.add_options()
      (worker_flag::kCmn, EnumOption(&options.cmn), "cepstral mean normalization: batch (= current) or none. live is refused (order-dependent)")
      (worker_flag::kVarnorm, YesNoOption(&options.varnorm), "variance normalization with batch CMN: yes|no");
}

}  // namespace pstrain::cli
