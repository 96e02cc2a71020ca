// StopRequest: nothing requested, a RequestStop's first reason, a signal before any reason. Each
// case runs in a forked child (EXPECT_EXIT): a stop, once requested, stays for the process.
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

TEST(InterruptTest, NothingIsRequestedUntilAStopIs) {
  EXPECT_EXIT(ExitWithWhether(std::nullopt), ::testing::ExitedWithCode(0), "");
}

TEST(InterruptTest, RequestStopKeepsItsFirstReason) {
  EXPECT_EXIT(
      {
        RequestStop("stopped: the first reason");
        RequestStop("stopped: a second reason");
        ExitWithWhether("stopped: the first reason");
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(InterruptTest, ASignalIsReportedBeforeARequest) {
  EXPECT_EXIT(
      {
        InterruptGuard guard;
        RequestStop("stopped: a reason");
        std::raise(SIGTERM);
        ExitWithWhether("interrupted by signal " + std::to_string(SIGTERM));
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace pstrain
