// The model fingerprint (provenance/fingerprints.h ModelFingerprint) of a directory as it is, and
// of the bytes a load read (ModelFiles::Load with digests): the same for an unchanged directory,
// and the loaded model's own once the directory changes after the load.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/file_io.h"
#include "common/sha256.h"
#include "model/model_checks.h"
#include "provenance/fingerprints.h"
#include "support/test_util.h"

namespace pstrain {
namespace {

namespace fs = std::filesystem;

class ModelFingerprintTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pstrain-model-fingerprint-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::copy(testing::An4Model(), dir_, fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
};

TEST_F(ModelFingerprintTest, TheLoadedFilesDigestsGiveTheDirectorysFingerprint) {
  ModelFileDigests digests;
  LoadCheckedModel(dir_.string(), digests);
  ASSERT_FALSE(digests.empty());
  // Every digest is the SHA-256 of the file it names, in kModelFiles order, regular files only.
  std::size_t next = 0;
  for (const char* name : kModelFiles) {
    if (!fs::is_regular_file(dir_ / name)) continue;
    ASSERT_LT(next, digests.size()) << name;
    EXPECT_EQ(digests[next].first, name);
    EXPECT_EQ(digests[next].second, Sha256OfFile(dir_ / name)) << name;
    ++next;
  }
  EXPECT_EQ(next, digests.size());
  EXPECT_EQ(ModelFingerprint(digests), ModelFingerprint(dir_.string()));
}

TEST_F(ModelFingerprintTest, AModelChangedAfterTheLoadKeepsTheFingerprintOfWhatWasLoaded) {
  const std::string before = ModelFingerprint(dir_.string());
  ModelFileDigests digests;
  LoadCheckedModel(dir_.string(), digests);
  // The means replaced after the load (by another valid file: the variances have the same shape).
  fs::copy_file(dir_ / "variances", dir_ / "means", fs::copy_options::overwrite_existing);
  const std::string after = ModelFingerprint(dir_.string());
  EXPECT_NE(after, before);
  EXPECT_EQ(ModelFingerprint(digests), before);
}

TEST_F(ModelFingerprintTest, ANonRegularOptionalFileIsNeitherLoadedNorFingerprinted) {
  fs::remove(dir_ / "noisedict");
  fs::create_directory(dir_ / "noisedict");
  ModelFileDigests digests;
  const ModelFiles files = LoadCheckedModel(dir_.string(), digests);
  EXPECT_FALSE(files.has_noisedict);
  for (const auto& [name, sha256] : digests) EXPECT_NE(name, "noisedict");
  EXPECT_EQ(ModelFingerprint(digests), ModelFingerprint(dir_.string()));
}

}  // namespace
}  // namespace pstrain
