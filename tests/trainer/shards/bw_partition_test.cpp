// SphinxTrain bw's -part/-npart and -nskip/-runlen rule (shards/bw_partition.h).
#include "shards/bw_partition.h"

#include <gtest/gtest.h>

namespace pstrain {
namespace {

TEST(BwPartition, FloorOfCountedLinesPerPartRestToTheLast) {
  // 5 lines in 2 parts: 2 + 3, as the Debian bw does.
  EXPECT_EQ(BwPartLines(5, 1, 2).begin, 0u);
  EXPECT_EQ(BwPartLines(5, 1, 2).end, 2u);
  EXPECT_EQ(BwPartLines(5, 2, 2).begin, 2u);
  EXPECT_EQ(BwPartLines(5, 2, 2).end, 5u);
  // 93 lines in 3 parts: 30, 30, 33 (Debian's bw counts 92); in 4 parts: 23, 23, 23, 24.
  EXPECT_EQ(BwPartLines(93, 2, 3).begin, 30u);
  EXPECT_EQ(BwPartLines(93, 2, 3).end, 60u);
  EXPECT_EQ(BwPartLines(93, 3, 3).begin, 60u);
  EXPECT_EQ(BwPartLines(93, 3, 3).end, 93u);
  // 6 lines: 2 + 4 in 2 parts, 1 + 1 + 4 in 3 (measured with the Debian bw).
  EXPECT_EQ(BwPartLines(6, 1, 2).end, 2u);
  EXPECT_EQ(BwPartLines(6, 1, 3).end, 1u);
  EXPECT_EQ(BwPartLines(9, 1, 2).end, 4u);
  EXPECT_EQ(BwPartLines(93, 3, 4).end - BwPartLines(93, 3, 4).begin, 23u);
  EXPECT_EQ(BwPartLines(93, 4, 4).end - BwPartLines(93, 4, 4).begin, 24u);
  // More parts than lines: the first parts are empty, the last takes everything.
  EXPECT_EQ(BwPartLines(2, 1, 3).end - BwPartLines(2, 1, 3).begin, 0u);
  EXPECT_EQ(BwPartLines(2, 3, 3).begin, 0u);
  EXPECT_EQ(BwPartLines(2, 3, 3).end, 2u);
  EXPECT_EQ(BwPartLines(7, 1, 1).end, 7u);
}

TEST(BwPartition, SkipAndRunLength) {
  EXPECT_EQ(BwSkipRunLines(10, 3, 4).begin, 3u);
  EXPECT_EQ(BwSkipRunLines(10, 3, 4).end, 7u);
  EXPECT_EQ(BwSkipRunLines(10, 8, 4).end, 10u);
  EXPECT_EQ(BwSkipRunLines(10, 12, 4).begin, 10u);
  EXPECT_EQ(BwSkipRunLines(10, 2, std::nullopt).end, 10u);
}

}  // namespace
}  // namespace pstrain
