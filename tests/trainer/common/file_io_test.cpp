// WriteFileAtomicStreamed: pieces land in order, also across the MiB steps at which write-back is
// started; a producer that throws leaves the old file and no temporary behind.
#include "common/file_io.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "common/error.h"

namespace pstrain {
namespace {

namespace fs = std::filesystem;

class FileIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("pstrain_file_io_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::size_t EntriesInDir() const {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++n;
    return n;
  }
  fs::path dir_;
};

TEST_F(FileIoTest, StreamedPiecesAreWrittenInOrder) {
  const fs::path path = dir_ / "counts";
  WriteFileAtomicStreamed(path, [](const ByteSink& sink) {
    sink("abc", 3);
    sink("", 0);
    for (int i = 0; i < 1000; ++i) sink("0123456789", 10);
    sink("xyz", 3);
  });
  std::string expected = "abc";
  for (int i = 0; i < 1000; ++i) expected += "0123456789";
  expected += "xyz";
  EXPECT_EQ(ReadFileText(path), expected);
  EXPECT_EQ(EntriesInDir(), 1u);
}

TEST_F(FileIoTest, AFileOfSeveralMebibytesInUnevenPiecesIsWrittenExactly) {
  const fs::path path = dir_ / "exact_counts";
  std::string expected;
  WriteFileAtomicStreamed(path, [&](const ByteSink& sink) {
    std::string piece;
    for (std::size_t i = 0; expected.size() < (std::size_t(5) << 20) + 12345; ++i) {
      piece.assign(1 + (i * 7919) % 200000, static_cast<char>('a' + i % 26));  // 1 B to ~195 KiB
      sink(piece.data(), piece.size());
      expected += piece;
    }
  });
  const std::string written = ReadFileText(path);
  EXPECT_EQ(written.size(), expected.size());
  EXPECT_TRUE(written == expected);
  EXPECT_EQ(EntriesInDir(), 1u);
}

TEST_F(FileIoTest, AProducerThatThrowsLeavesTheOldFileAndNoTemporary) {
  const fs::path path = dir_ / "counts";
  WriteFileAtomic(path, std::string("the previous file"));
  EXPECT_THROW(WriteFileAtomicStreamed(path,
                                       [](const ByteSink& sink) {
                                         sink("half of a new file", 18);
                                         throw TrainingError("overflowing sum");
                                       }),
               TrainingError);
  EXPECT_THROW(WriteFileAtomicStreamed(path,
                                       [](const ByteSink& sink) {
                                         sink("half", 4);
                                         throw std::runtime_error("anything else");
                                       }),
               std::runtime_error);
  EXPECT_EQ(ReadFileText(path), "the previous file");
  EXPECT_EQ(EntriesInDir(), 1u) << "a temporary was left in " << dir_;
}

}  // namespace
}  // namespace pstrain
