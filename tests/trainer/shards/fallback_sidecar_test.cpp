// Tests for the multipron activation sidecar codec (trainer/shards/fallback_sidecar.h): the exact
// bytes, and each malformation named by its check.
#include "shards/fallback_sidecar.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pstrain {
namespace {

TEST(FallbackSidecarTest, BytesAreTheHeaderTheCountAndOneFlagPerState) {
  const std::vector<std::uint8_t> flags = {0, 1, 0, 0, 1};
  const std::string bytes = EncodeFallbackSidecar(flags);
  EXPECT_EQ(bytes, std::string("PSTRAIN_FALLBACK_SENONES_V1\n5\n\0\1\0\0\1", 35));
  std::vector<std::uint8_t> decoded;
  EXPECT_FALSE(DecodeFallbackSidecar(bytes, 5, decoded).has_value());
  EXPECT_EQ(decoded, flags);
  // All zero and empty models are still written in full.
  EXPECT_EQ(EncodeFallbackSidecar({0, 0}), std::string("PSTRAIN_FALLBACK_SENONES_V1\n2\n\0\0", 32));
  EXPECT_FALSE(DecodeFallbackSidecar(EncodeFallbackSidecar({}), 0, decoded).has_value());
}

TEST(FallbackSidecarTest, EachMalformationIsRejectedWithItsCheck) {
  const std::string good = EncodeFallbackSidecar({0, 1, 0});
  struct Case {
    const char* what;
    std::string bytes;
    const char* check;
  };
  std::string byte_two = good;
  byte_two.back() = '\2';
  const Case cases[] = {
      {"wrong magic", "PSTRAIN_FALLBACK_SENONES_V2\n3\n" + std::string(3, '\0'), "sidecar-header"},
      {"empty file", "", "sidecar-header"},
      {"no count line", "PSTRAIN_FALLBACK_SENONES_V1\n", "sidecar-header"},
      {"count not decimal", "PSTRAIN_FALLBACK_SENONES_V1\n3x\n" + std::string(3, '\0'), "sidecar-header"},
      {"count with a leading zero", "PSTRAIN_FALLBACK_SENONES_V1\n03\n" + std::string(3, '\0'), "sidecar-header"},
      {"count for another model", EncodeFallbackSidecar({0, 1}), "sidecar-count"},
      {"a byte 2", byte_two, "sidecar-byte"},
      {"truncated", good.substr(0, good.size() - 1), "sidecar-size"},
      {"a byte too many", good + std::string(1, '\0'), "sidecar-size"},
  };
  for (const Case& c : cases) {
    std::vector<std::uint8_t> flags;
    const auto problem = DecodeFallbackSidecar(c.bytes, 3, flags);
    ASSERT_TRUE(problem.has_value()) << c.what;
    EXPECT_EQ(problem->check, c.check) << c.what << ": " << problem->detail;
    EXPECT_FALSE(problem->detail.empty()) << c.what;
  }
}

}  // namespace
}  // namespace pstrain
