// SequentialFileReader (common/file_reader.h): every byte of a file in order, however the reads cut
// it and across its 256 KiB blocks and its ring of 4; with hashing, the SHA-256 of exactly the bytes
// read, given only at the end; a reader left in the middle of a file ends without waiting; a file
// that grows while read is read to its new end (AtEnd then says so); a FIFO is refused without
// blocking.
#include "common/file_reader.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "common/error.h"
#include "common/sha256.h"

namespace pstrain {
namespace {

namespace fs = std::filesystem;

class SequentialFileReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("pstrain_file_reader_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path Write(const std::string& name, const std::string& bytes) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  static std::string RandomBytes(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::string bytes(n, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    return bytes;
  }
  fs::path dir_;
};

TEST_F(SequentialFileReaderTest, EveryByteInOrderAndTheDigestOfThemWhateverTheReads) {
  // Sizes around a 256 KiB block and around the ring of 4 (1 MiB), one that goes round it nearly
  // three times, and an empty file.
  for (std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{1} << 18, (std::size_t{1} << 18) + 1, std::size_t{1} << 20,
                           (std::size_t{1} << 20) + 1, std::size_t{3'000'017}}) {
    const std::string bytes = RandomBytes(size, static_cast<unsigned>(size));
    const std::string name = std::string("f").append(std::to_string(size));
    const fs::path path = Write(name, bytes);
    for (std::size_t cut : {std::size_t{16}, std::size_t{65536}, std::size_t{1'000'003}, std::size_t{4} << 20}) {
      SCOPED_TRACE("size " + std::to_string(size) + ", reads of " + std::to_string(cut));
      SequentialFileReader reader(path, SequentialFileReader::Hashing::kSha256);
      EXPECT_EQ(reader.size_at_open(), size);
      std::string read;
      std::string piece(cut, '\0');
      for (;;) {
        const std::size_t got = reader.Read(piece.data(), cut);
        read.append(piece, 0, got);
        if (got < cut) break;
      }
      EXPECT_TRUE(read == bytes);
      EXPECT_TRUE(reader.AtEnd());
      EXPECT_EQ(reader.Sha256(), Sha256Hex(bytes));
    }
  }
}

TEST_F(SequentialFileReaderTest, TheDigestIsOnlyGivenAtTheEndAndOnlyWhenHashing) {
  const fs::path path = Write("f", RandomBytes(100, 1));
  SequentialFileReader reader(path, SequentialFileReader::Hashing::kSha256);
  char head[40];
  ASSERT_EQ(reader.Read(head, sizeof head), sizeof head);
  EXPECT_FALSE(reader.AtEnd());
  EXPECT_THROW(reader.Sha256(), TrainingError);
  SequentialFileReader plain(path, SequentialFileReader::Hashing::kNone);
  char all[100];
  ASSERT_EQ(plain.Read(all, sizeof all), sizeof all);
  EXPECT_TRUE(plain.AtEnd());
  EXPECT_THROW(plain.Sha256(), TrainingError);
}

// A reader destroyed before the end (its hashing thread may still have blocks to hash, or be
// waiting for one) ends, and another reader of the same file still gets every byte and the digest.
TEST_F(SequentialFileReaderTest, AReaderLeftInTheMiddleOfAFileEnds) {
  const std::string bytes = RandomBytes(3'000'017, 4);
  const fs::path path = Write("f", bytes);
  for (std::size_t stop : {std::size_t{1}, std::size_t{1} << 18, std::size_t{5} << 18, std::size_t{2'999'999}}) {
    SequentialFileReader reader(path, SequentialFileReader::Hashing::kSha256);
    std::string read(stop, '\0');
    ASSERT_EQ(reader.Read(read.data(), stop), stop);
    EXPECT_TRUE(read == bytes.substr(0, stop));
    EXPECT_FALSE(reader.AtEnd());
  }
  SequentialFileReader reader(path, SequentialFileReader::Hashing::kSha256);
  std::string read(bytes.size(), '\0');
  ASSERT_EQ(reader.Read(read.data(), read.size()), read.size());
  EXPECT_TRUE(reader.AtEnd());
  EXPECT_EQ(reader.Sha256(), Sha256Hex(bytes));
}

// Bytes appended after the file was opened are read and hashed as well: a caller that stops at the
// size it expected sees AtEnd() false.
TEST_F(SequentialFileReaderTest, AFileThatGrowsWhileReadIsReadToItsNewEnd) {
  const std::string first = RandomBytes(5000, 2), more = RandomBytes(3000, 3);
  const fs::path path = Write("f", first);
  SequentialFileReader reader(path, SequentialFileReader::Hashing::kSha256);
  std::ofstream(path, std::ios::binary | std::ios::app) << more;
  EXPECT_EQ(reader.size_at_open(), first.size());
  std::string read(first.size(), '\0');
  ASSERT_EQ(reader.Read(read.data(), read.size()), read.size());
  EXPECT_FALSE(reader.AtEnd());
  std::string rest(10000, '\0');
  rest.resize(reader.Read(rest.data(), rest.size()));
  EXPECT_TRUE(rest == more);
  EXPECT_EQ(reader.Sha256(), Sha256Hex(first + more));
}

TEST_F(SequentialFileReaderTest, OnlyRegularFilesAreOpenedAndAFifoDoesNotBlock) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  const auto message = [](const fs::path& path) {
    try {
      SequentialFileReader reader(path, SequentialFileReader::Hashing::kSha256);
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(dir_ / "fifo"), (dir_ / "fifo").string() + ": is not a regular file");
  EXPECT_EQ(message(dir_), dir_.string() + ": is not a regular file");
  EXPECT_NE(message(dir_ / "missing").find(": cannot open for reading"), std::string::npos);
  const fs::path file = Write("f", "abc");
  fs::create_symlink(file, dir_ / "link");
  SequentialFileReader reader(dir_ / "link", SequentialFileReader::Hashing::kSha256);
  char bytes[3];
  EXPECT_EQ(reader.Read(bytes, 3), 3u);
  EXPECT_EQ(reader.Sha256(), Sha256Hex(std::string_view("abc")));
}

}  // namespace
}  // namespace pstrain
