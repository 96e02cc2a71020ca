// AcousticModel's log normalizers (trainer/model/acoustic_model.h) against one density at a time.
#include "model/acoustic_model.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "model/model_checks.h"
#include "numerics/elementary.h"
#include "support/model_fixture_util.h"
#include "support/test_util.h"

namespace pstrain {
namespace {

// SphinxTrain's normalizer of one density: the logarithms of its floored variances
// (numerics::Log, the scalar reference every kernel level matches) summed in float32 in dimension
// order, then -0.5 (log det + veclen log 2 pi).
float ReferenceLogNorm(const ModelFiles& files, std::size_t density, float varfloor) {
  const std::uint32_t veclen = files.means.veclen[0];
  const float log_two_pi_term = static_cast<float>(veclen * numerics::Log(2.0 * M_PI));
  float log_det = 0.0f;
  for (std::uint32_t dim = 0; dim < veclen; ++dim) {
    float var = files.variances.data[density * veclen + dim];
    if (!(var >= varfloor)) var = varfloor;
    log_det = static_cast<float>(log_det + numerics::Log(static_cast<double>(var)));
  }
  return static_cast<float>(-0.5 * (static_cast<double>(log_det) + static_cast<double>(log_two_pi_term)));
}

// The constructor works through blocks of 64 densities with eight sums side by side: 102 densities
// (one Gaussian a senone) leave a short block and a short group of sums, 102 x 5 = 510 as well;
// some variances are below the floor.
TEST(AcousticModelTest, LogNormalizersMatchOneDensityAtATime) {
  const ModelFiles one = LoadCheckedModel(testing::An4Model().string());
  std::mt19937 rng(26);
  for (const std::uint32_t n_density : {1u, 5u}) {
    ModelFiles files = n_density == 1 ? one : testing::WidenedModel(one, n_density, rng);
    for (std::size_t i = 0; i < files.variances.data.size(); i += 97) files.variances.data[i] = 1e-6f;
    ModelOptions options;
    options.varfloor = 1e-4f;
    const AcousticModel model(files, options);
    const std::size_t n_densities = std::size_t(files.means.n_mgau) * n_density;
    ASSERT_EQ(n_densities % 8 == 0 || n_densities % 64 == 0, false);
    for (std::uint32_t senone = 0; senone < files.means.n_mgau; ++senone) {
      for (std::uint32_t k = 0; k < n_density; ++k) {
        const float expected = ReferenceLogNorm(files, std::size_t(senone) * n_density + k, options.varfloor);
        ASSERT_EQ(std::bit_cast<std::uint32_t>(model.LogNorm(senone, k)), std::bit_cast<std::uint32_t>(expected))
            << "senone " << senone << ", density " << k << " of " << n_density;
      }
    }
  }
}

}  // namespace
}  // namespace pstrain
