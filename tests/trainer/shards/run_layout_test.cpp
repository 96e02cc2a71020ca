// Tests for the run directory's names (trainer/shards/run_layout.h): PassNumberOf is PassName's
// inverse and refuses every other name, so `audit mutate` finds the passes the trainer wrote.
// The one place the tests spell the on-disk names ("passes/012", ".003.staging", "shard-004")
// literally, to pin docs/formats.md; every other test builds them with run_layout.h.
#include "shards/run_layout.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

namespace pstrain {
namespace {

TEST(RunLayout, PassNumberOfInvertsPassName) {
  for (std::uint32_t pass : {1u, 9u, 10u, 999u, 1000u, 4294967295u}) EXPECT_EQ(PassNumberOf(PassName(pass)), pass) << PassName(pass);
  EXPECT_EQ(PassName(7), "007");
}

TEST(RunLayout, PassNumberOfRefusesNamesPassNameNeverGives) {
  for (const char* name : {"", "000", "1", "01", "0001", "0010", ".001.staging", "abc", "00a", "-01", "4294967296", "99999999999"}) {
    EXPECT_EQ(PassNumberOf(name), std::nullopt) << name;
  }
}

TEST(RunLayout, DirectoriesAreUnderRunDirPasses) {
  EXPECT_EQ(PassesDir("/r"), std::filesystem::path("/r/passes"));
  EXPECT_EQ(PassDir("/r", 12), std::filesystem::path("/r/passes/012"));
  EXPECT_EQ(StagingPassDir("/r", 3), std::filesystem::path("/r/passes/.003.staging"));
  EXPECT_EQ(FinalModelStagingDir("/r"), std::filesystem::path("/r/.model.staging"));
  EXPECT_EQ(ShardDirName(4), "shard-004");
}

}  // namespace
}  // namespace pstrain
