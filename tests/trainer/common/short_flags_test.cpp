// Tests for ShortFlags (trainer/common/short_flags.h): a registered short form is its long option
// with no value, any other token is left to Boost. That `--out -h` stays a value is Boost's part,
// tested where the two command lines use it (cli_options_test.cpp, audit_command_options_test.cpp).
#include "common/short_flags.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace pstrain {
namespace {

using Parsed = std::pair<std::string, std::string>;

TEST(ShortFlags, ARegisteredShortFormIsItsLongOptionWithoutAValue) {
  const ShortFlags flags{{"-h", "help"}};
  EXPECT_EQ(flags("-h"), Parsed("help", ""));
}

TEST(ShortFlags, AnyOtherTokenIsLeftToBoost) {
  ShortFlags flags{{"-h", "help"}};
  flags.Add("-q", "quiet");
  EXPECT_EQ(flags("-q"), Parsed("quiet", ""));
  for (const char* token : {"-H", "--h", "-h=x", "-hh", "h", "", "--help", "-x"}) EXPECT_EQ(flags(token), Parsed()) << token;
  EXPECT_EQ(ShortFlags()("-h"), Parsed());
}

}  // namespace
}  // namespace pstrain
