// FeatureFileCheck: checked first, or only when needed (a completed pass standing for it), the
// error at every Require, a missing file failing at once, and a signal: no check after it from
// Failed, an unfinished one from Require. Cases with a signal run in a forked child (EXPECT_EXIT):
// the signal flag stays for the process.
#include "training/feature_file_check.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
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

TEST_F(FeatureFileCheckTest, AnIntactCorpusPassesCheckedFirstOrWhenNeeded) {
  const Manifest manifest = Load();
  for (const FeatureFileCheck::When when : {FeatureFileCheck::When::kFirst, FeatureFileCheck::When::kWhenNeeded}) {
    FeatureFileCheck check(manifest, corpus(), when);
    EXPECT_FALSE(check.Failed());
    EXPECT_NO_THROW(check.Require());
    EXPECT_NO_THROW(check.Require());
  }
}

TEST_F(FeatureFileCheckTest, CheckedFirstAChangedFileThrowsFromTheConstructor) {
  const Manifest manifest = Load();
  WriteText(corpus() / "feat" / "u139.mfc", "edited");
  const std::string message =
      test::InputErrorMessage([&] { FeatureFileCheck check(manifest, corpus(), FeatureFileCheck::When::kFirst); });
  EXPECT_NE(message.find("u139.mfc"), std::string::npos) << message;
  EXPECT_NE(message.find("(1 of 40 utterances"), std::string::npos) << message;
}

// When needed, a changed file is not read up front: the check runs when asked (after a failure, or
// when no pass read the corpus) and counts every bad file, at every call.
TEST_F(FeatureFileCheckTest, WhenNeededAChangedFileFailsTheCheckOnlyWhenItRuns) {
  const Manifest manifest = Load();
  WriteText(corpus() / "feat" / "u107.mfc", "edited");
  WriteText(corpus() / "feat" / "u133.mfc", "edited too");
  FeatureFileCheck check(manifest, corpus(), FeatureFileCheck::When::kWhenNeeded);
  EXPECT_TRUE(check.Failed());
  const std::string first = test::InputErrorMessage([&] { check.Require(); });
  const std::string second = test::InputErrorMessage([&] { check.Require(); });
  EXPECT_NE(first.find("u107.mfc"), std::string::npos) << first;
  EXPECT_NE(first.find("(2 of 40 utterances have missing or changed feature files)"), std::string::npos) << first;
  EXPECT_EQ(first, second);
  EXPECT_TRUE(check.Failed());
}

// A completed pass hashed every file it read: it stands for the check, which then never runs (here
// a changed file shows that it did not: the pass that covered it would have failed on that file).
TEST_F(FeatureFileCheckTest, APassThatCompletedStandsForTheCheck) {
  const Manifest manifest = Load();
  FeatureFileCheck check(manifest, corpus(), FeatureFileCheck::When::kWhenNeeded);
  check.CoveredByPass();
  WriteText(corpus() / "feat" / "u120.mfc", "edited after the pass");
  EXPECT_NO_THROW(check.Require());
  EXPECT_FALSE(check.Failed());
}

// A missing file (or one that is not a regular file) is found by the look up front: the whole check
// runs at once and its error counts every bad file, the changed one included.
TEST_F(FeatureFileCheckTest, WhenNeededAMissingFileFailsTheWholeCheckAtOnce) {
  const Manifest manifest = Load();
  fs::remove(corpus() / "feat" / "u133.mfc");
  WriteText(corpus() / "feat" / "u107.mfc", "edited");
  const std::string message =
      test::InputErrorMessage([&] { FeatureFileCheck check(manifest, corpus(), FeatureFileCheck::When::kWhenNeeded); });
  EXPECT_NE(message.find("u107.mfc"), std::string::npos) << message;
  EXPECT_NE(message.find("(2 of 40 utterances have missing or changed feature files)"), std::string::npos) << message;
}

// The look's answer made earlier (pstrain train makes it while the model loads) stands for the
// look: false runs the whole check at once (here it passes, so a file removed after it is not
// found: the check has run), true looks at nothing (the missing file is found only when the check
// is asked for).
TEST_F(FeatureFileCheckTest, WhenNeededAnEarlierLookStandsForTheLook) {
  const Manifest manifest = Load();
  EXPECT_TRUE(FeatureFilesPresent(manifest, corpus()));
  FeatureFileCheck checked_at_once(manifest, corpus(), FeatureFileCheck::When::kWhenNeeded, false);
  fs::rename(corpus() / "feat" / "u120.mfc", corpus() / "feat" / "u120.moved");
  EXPECT_FALSE(checked_at_once.Failed());
  EXPECT_NO_THROW(checked_at_once.Require());
  fs::rename(corpus() / "feat" / "u120.moved", corpus() / "feat" / "u120.mfc");
  fs::remove(corpus() / "feat" / "u133.mfc");
  EXPECT_FALSE(FeatureFilesPresent(manifest, corpus()));
  const std::string message = test::InputErrorMessage(
      [&] { FeatureFileCheck check(manifest, corpus(), FeatureFileCheck::When::kWhenNeeded, false); });
  EXPECT_NE(message.find("u133.mfc"), std::string::npos) << message;
  EXPECT_NE(message.find("(1 of 40 utterances have missing or changed feature files)"), std::string::npos) << message;

  FeatureFileCheck trusted(manifest, corpus(), FeatureFileCheck::When::kWhenNeeded, true);
  EXPECT_TRUE(trusted.Failed());
  const std::string later = test::InputErrorMessage([&] { trusted.Require(); });
  EXPECT_NE(later.find("u133.mfc"), std::string::npos) << later;
}

// After Ctrl-C, Failed does not start a check (the signal is what stopped the run) and reports no
// failure; Require then runs it, and the signal ends it as a failure (an unfinished check never passes).
TEST_F(FeatureFileCheckTest, AfterASignalFailedRunsNoCheckAndRequireFails) {
  const Manifest manifest = Load();
  WriteText(corpus() / "feat" / "u107.mfc", "edited");
  EXPECT_EXIT(
      {
        InterruptGuard guard;
        FeatureFileCheck check(manifest, corpus(), FeatureFileCheck::When::kWhenNeeded);
        std::raise(SIGINT);
        const bool no_failure = !check.Failed();
        const std::string message = test::ErrorMessage<TrainingError>([&] { check.Require(); });
        const bool interrupted =
            message.find("interrupted by signal " + std::to_string(SIGINT) + " while checking the feature files") != std::string::npos;
        ::_exit(no_failure && interrupted && check.Failed() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace pstrain
