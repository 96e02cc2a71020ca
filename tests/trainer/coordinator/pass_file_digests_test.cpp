// PassFileDigests: model/ in the model files' order, then accum/ by name, each the SHA-256 of the
// file; a digest handed in for a file is taken as it is (the file is not read again), and the
// listing is the same whoever hashed which file.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/sha256.h"
#include "coordinator/pass_summary.h"

namespace pstrain {
namespace {

namespace fs = std::filesystem;

void WriteText(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

class PassFileDigestsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("pstrain_pass_file_digests_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    WriteText(dir_ / "model" / "variances", "variances");
    WriteText(dir_ / "model" / "mdef", "mdef");
    WriteText(dir_ / "accum" / "tmat_counts", "tmat");
    WriteText(dir_ / "accum" / "exact_counts", "exact");
    WriteText(dir_ / "accum" / "gauden_counts", "gauden");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

std::vector<std::string> Names(const std::vector<PassFileDigest>& files) {
  std::vector<std::string> names;
  for (const PassFileDigest& file : files) names.push_back(file.file);
  return names;
}

TEST_F(PassFileDigestsTest, ModelFilesInTheirOrderThenAccumByNameEachItsSha256) {
  const std::vector<PassFileDigest> files = PassFileDigests(dir_, PassFiles::kAll, 2);
  EXPECT_EQ(Names(files), (std::vector<std::string>{"model/mdef", "model/variances", "accum/exact_counts", "accum/gauden_counts",
                                                   "accum/tmat_counts"}));
  for (const PassFileDigest& file : files) EXPECT_EQ(file.sha256, Sha256OfFile(dir_ / file.file)) << file.file;
  EXPECT_EQ(Names(PassFileDigests(dir_, PassFiles::kModel, 1)), (std::vector<std::string>{"model/mdef", "model/variances"}));
  EXPECT_EQ(Names(PassFileDigests(dir_, PassFiles::kAccum, 1)),
            (std::vector<std::string>{"accum/exact_counts", "accum/gauden_counts", "accum/tmat_counts"}));
}

TEST_F(PassFileDigestsTest, AHandedInDigestIsTakenAndOnlyForItsFile) {
  // A digest no file has: seen in the result only if the file was not read again.
  const std::string handed(64, 'a');
  const std::vector<PassFileDigest> files =
      PassFileDigests(dir_, PassFiles::kAll, 2, {{"accum/exact_counts", handed}, {"accum/not_there", handed}});
  ASSERT_EQ(files.size(), 5u);
  for (const PassFileDigest& file : files) {
    EXPECT_EQ(file.sha256, file.file == "accum/exact_counts" ? handed : Sha256OfFile(dir_ / file.file)) << file.file;
  }
}

}  // namespace
}  // namespace pstrain
