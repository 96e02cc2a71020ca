// The parameter value checks (trainer/model/model_checks.h) at the edges of what they accept.
#include "model/model_checks.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "common/error.h"
#include "support/test_helpers.h"

namespace pstrain {
namespace {

// Two senones of three densities of five dimensions, every value 1 but `value` at senone 1,
// density 2, dimension 3.
GaussianParams WithValue(float value) {
  GaussianParams params{2, 1, 3, {5}, std::vector<float>(2 * 3 * 5, 1.0f)};
  params.data[params.Offset(1, 0, 2) + 3] = value;
  return params;
}

TEST(ModelChecksTest, VariancesAcceptZeroAndTheLargestFloatOnly) {
  constexpr float kMax = std::numeric_limits<float>::max();
  for (const float fine : {0.0f, -0.0f, std::numeric_limits<float>::denorm_min(), kMax}) {
    EXPECT_NO_THROW(CheckVariances(WithValue(fine), "variances")) << fine;
  }
  const struct {
    float value;
    const char* shown;
  } bad[] = {{-std::numeric_limits<float>::denorm_min(), "1.40129846e-45"},
             {-1.0f, "-1"},
             {std::numeric_limits<float>::infinity(), "inf"},
             {std::numeric_limits<float>::quiet_NaN(), "NaN"}};
  for (const auto& b : bad) {
    const std::string message = test::InputErrorMessage([&] { CheckVariances(WithValue(b.value), "variances"); });
    EXPECT_NE(message.find("senone 1, density 2, dimension 3 is"), std::string::npos) << message;
    EXPECT_NE(message.find(b.shown), std::string::npos) << message;
  }
}

TEST(ModelChecksTest, MeansAcceptAnyFiniteValue) {
  constexpr float kMax = std::numeric_limits<float>::max();
  for (const float fine : {-kMax, -1.0f, -0.0f, kMax}) EXPECT_NO_THROW(CheckMeans(WithValue(fine), "means")) << fine;
  for (const float bad : {-std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    const std::string message = test::InputErrorMessage([&] { CheckMeans(WithValue(bad), "means"); });
    EXPECT_NE(message.find("senone 1, density 2, dimension 3 is"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace pstrain
