// The double view of a reduced pass (shards/reducer.h): DoubleView and ReleaseForReestimation give
// re-estimation the same statistics, and in exact mode ReleaseForReestimation frees the exact sums.
#include <gtest/gtest.h>

#include "accumulators/exact_accumulators.h"
#include "shards/reducer.h"

namespace pstrain {
namespace {

TEST(ReducedPassView, ExactModeViewIsTheExactSumsAndReleaseFreesThem) {
  using Block = ExactAccumulators::Block;
  const AccumulatorShape shape{3, 2, 4, 1, 3};
  ReducedPass reduced;
  reduced.exact.emplace(shape, false);
  for (std::size_t i = 0; i < 3 * 2 * 4; ++i) reduced.exact->AddValue(Block::kMean, i, 0.1 * double(i) + 1e-17);
  reduced.exact->AddValue(Block::kDnom, 5, 7.25);
  reduced.exact->AddValue(Block::kTmat, 2, 0.5);
  const Accumulators expected = reduced.exact->ToAccumulators();

  const Accumulators view = DoubleView(reduced);
  EXPECT_EQ(view.mean_data(), expected.mean_data());
  ASSERT_TRUE(reduced.exact.has_value()) << "DoubleView must leave the exact sums";

  const Accumulators released = ReleaseForReestimation(reduced);
  EXPECT_FALSE(reduced.exact.has_value()) << "the exact sums must be freed";
  EXPECT_EQ(released.mean_data(), expected.mean_data());
  EXPECT_EQ(released.dnom_data(), expected.dnom_data());
  EXPECT_EQ(released.dnom_data()[5], 7.25);
  EXPECT_EQ(released.tmat_data(), expected.tmat_data());
}

TEST(ReducedPassView, Float32ModeViewIsTheAccumulators) {
  const AccumulatorShape shape{2, 1, 3, 1, 3};
  ReducedPass reduced;
  reduced.accumulators = Accumulators(shape, false);
  reduced.accumulators.dnom(1, 0) = 3.5;
  EXPECT_EQ(DoubleView(reduced).dnom_data(), reduced.accumulators.dnom_data());
  const Accumulators released = ReleaseForReestimation(reduced);
  EXPECT_EQ(released.dnom_data()[1], 3.5);
}

}  // namespace
}  // namespace pstrain
