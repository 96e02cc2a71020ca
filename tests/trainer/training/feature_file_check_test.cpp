// FeatureFileCheck: CheckManifest's verdict now or from a background thread, the stop a failed
// background check requests, its error at every Wait, and a signal ending a background check. Failing cases run in a forked child
// (EXPECT_EXIT): the stop request they make stays for the process.
#include "training/feature_file_check.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "common/error.h"
#include "common/interrupt.h"
#include "common/sha256.h"
#include "support/test_helpers.h"

namespace pstrain {
namespace {

namespace fs = std::filesystem;

void WriteText(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// A corpus of `n` fake feature files under DIR/corpus and its manifest DIR/train.manifest
// (CheckManifest hashes the files, it does not parse them).
class FeatureFileCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pstrain-feature-check-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    std::string text = "pstrain-manifest 1 utterances=" + std::to_string(kUtterances) + "\n";
    for (int u = 0; u < kUtterances; ++u) {
      std::string id = "u";  // (not "u" + ...: GCC 12's -Wrestrict false positive)
      id += std::to_string(100 + u);
      const std::string contents = "features of " + id;
      WriteText(corpus() / "feat" / (id + ".mfc"), contents);
      text += id + "\tfeat/" + id + ".mfc\t" + Sha256Hex(contents) + "\t<s> TEN </s>\n";
    }
    WriteText(dir_ / "train.manifest", text);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path corpus() const { return dir_ / "corpus"; }
  Manifest Load() const { return Manifest::Load(dir_ / "train.manifest"); }

  static constexpr int kUtterances = 40;
  fs::path dir_;
};

TEST_F(FeatureFileCheckTest, APassingCheckWaitsQuietlyAndRequestsNoStop) {
  const Manifest manifest = Load();
  for (const bool background : {false, true}) {
    FeatureFileCheck check(manifest, corpus(), background);
    EXPECT_NO_THROW(check.Wait());
    EXPECT_FALSE(check.Failed());
    EXPECT_NO_THROW(check.Wait());
  }
  EXPECT_EQ(StopRequest(), std::nullopt);
}

TEST_F(FeatureFileCheckTest, AFailedBackgroundCheckRequestsAStopAndThrowsItsErrorAtEveryWait) {
  const Manifest manifest = Load();
  WriteText(corpus() / "feat" / "u107.mfc", "edited");
  fs::remove(corpus() / "feat" / "u133.mfc");
  EXPECT_EXIT(
      {
        FeatureFileCheck check(manifest, corpus(), true);
        const std::string first = test::InputErrorMessage([&] { check.Wait(); });
        const std::string second = test::InputErrorMessage([&] { check.Wait(); });
        const bool counted = first.find("(2 of 40 utterances have missing or changed feature files)") != std::string::npos;
        const bool names_first = first.find("u107.mfc") != std::string::npos;
        const bool stopped = StopRequest() == std::optional<std::string>("stopped: the feature-file check failed");
        ::_exit(counted && names_first && first == second && check.Failed() && stopped ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(FeatureFileCheckTest, AFailedCheckRunNowThrowsFromTheConstructorAndRequestsNoStop) {
  const Manifest manifest = Load();
  WriteText(corpus() / "feat" / "u139.mfc", "edited");
  EXPECT_EXIT(
      {
        const std::string message = test::InputErrorMessage([&] { FeatureFileCheck check(manifest, corpus(), false); });
        const bool counted = message.find("(1 of 40 utterances") != std::string::npos;
        ::_exit(counted && !StopRequest() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// Ctrl-C during a background check: it gives up at once and fails (an unfinished check never passes).
TEST_F(FeatureFileCheckTest, ASignalEndsABackgroundCheckAsAFailure) {
  const Manifest manifest = Load();
  EXPECT_EXIT(
      {
        InterruptGuard guard;
        std::raise(SIGINT);
        FeatureFileCheck check(manifest, corpus(), true);
        const std::string message = test::ErrorMessage<TrainingError>([&] { check.Wait(); });
        ::_exit(message.find("interrupted by signal " + std::to_string(SIGINT) + " while checking the feature files") !=
                        std::string::npos
                    ? 0
                    : 1);
      },
      ::testing::ExitedWithCode(0), "");
  // Checked now (not in the background), the same corpus passes whatever the signal flag says.
  EXPECT_EXIT(
      {
        InterruptGuard guard;
        std::raise(SIGINT);
        FeatureFileCheck check(manifest, corpus(), false);
        check.Wait();
        ::_exit(check.Failed() ? 1 : 0);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace pstrain
