// StopRequest: nothing until a signal, then the signal, which stays. Each case runs in a forked
// child (EXPECT_EXIT): a signal, once received, stays for the process.
#include "common/interrupt.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <optional>
#include <string>

namespace pstrain {
namespace {

// Exit status 0 when the child's StopRequest() is `expected`, 1 otherwise.
void ExitWithWhether(const std::optional<std::string>& expected) {
  const std::optional<std::string> got = StopRequest();
  ::_exit(got == expected ? 0 : 1);
}

TEST(InterruptTest, NothingIsRequestedWithoutASignal) {
  EXPECT_EXIT(ExitWithWhether(std::nullopt), ::testing::ExitedWithCode(0), "");
}

TEST(InterruptTest, ASignalUnderAGuardIsAStopRequestThatStays) {
  EXPECT_EXIT(
      {
        {
          InterruptGuard guard;
          std::raise(SIGTERM);
        }
        ExitWithWhether("interrupted by signal " + std::to_string(SIGTERM));
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace pstrain
