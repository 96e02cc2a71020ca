// WriteFileAtomicStreamed: pieces land in order, also across the MiB steps at which write-back is
// started; a producer that throws leaves the old file and no temporary behind. WriteFileAtomicPiped:
// the same bytes, written on another thread, and either side's error. ReadFileText: every
// byte of any size, of a FIFO too; a directory or a missing file is an InputError naming it.
// ReadRegularFileBytes and ReadRegularFileText: regular files only, never blocking on a FIFO.
#include "common/file_io.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "common/sha256.h"

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

TEST_F(FileIoTest, ReadFileTextReturnsEveryByteOfAnySize) {
  // Sizes around the 64 KiB growth step and the one spare byte after the stat size.
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{65535}, std::size_t{65536},
                                 std::size_t{65537}, std::size_t{700001}}) {
    SCOPED_TRACE("size " + std::to_string(size));
    std::string bytes(size, '\0');
    for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 131 + 7) % 256);  // NULs included
    const fs::path path = dir_ / ("bytes" + std::to_string(size));
    std::ofstream(path, std::ios::binary) << bytes;
    EXPECT_EQ(ReadFileText(path), bytes);
  }
}

TEST_F(FileIoTest, ReadFileTextReadsAFifoToItsEnd) {
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string sent(200000, 'f');  // more than a pipe holds: read while it is written
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << sent; });
  const std::string received = ReadFileText(fifo);
  writer.join();
  EXPECT_EQ(received, sent);
}

TEST_F(FileIoTest, ReadFileTextNamesAMissingFileOrADirectory) {
  try {
    ReadFileText(dir_ / "missing");
    ADD_FAILURE() << "no error for a missing file";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find((dir_ / "missing").string() + ": cannot open for reading"), std::string::npos) << error.what();
  }
  try {
    ReadFileText(dir_);
    ADD_FAILURE() << "no error for a directory";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find(dir_.string() + ": read error"), std::string::npos) << error.what();
  }
}

// The corpus pass's read of a feature file: a regular file (through a symbolic link too) is read
// whole; a FIFO is refused without waiting for a writer, as are a directory and a missing file.
TEST_F(FileIoTest, ReadRegularFileBytesReadsRegularFilesAndRefusesTheRestWithoutBlocking) {
  const std::string bytes = std::string("\x00\x01", 2) + "features" + "\xff";  // a NUL and a high byte too
  const fs::path file = dir_ / "utt.mfc";
  std::ofstream(file, std::ios::binary) << bytes;
  EXPECT_EQ(ReadRegularFileBytes(file), std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
  fs::create_symlink(file, dir_ / "link.mfc");
  EXPECT_EQ(ReadRegularFileBytes(dir_ / "link.mfc").size(), bytes.size());
  ASSERT_EQ(::mkfifo((dir_ / "fifo.mfc").c_str(), 0600), 0);
  const auto message = [](const fs::path& path) {
    try {
      ReadRegularFileBytes(path);
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(dir_ / "fifo.mfc"), (dir_ / "fifo.mfc").string() + ": is not a regular file");
  EXPECT_EQ(message(dir_), dir_.string() + ": is not a regular file");
  EXPECT_NE(message(dir_ / "missing").find(": cannot open for reading"), std::string::npos);
}

// ReadRegularFileText (pass.json, provenance.json): a regular file of at most max_bytes, read
// whole; a symbolic link, a FIFO (without waiting for a writer), a directory and a larger file are
// refused, each naming the file.
TEST_F(FileIoTest, ReadRegularFileTextReadsUpToItsBoundAndRefusesTheRest) {
  const fs::path file = dir_ / "pass.json";
  const std::string text(70000, 'j');  // more than one 64 KiB read
  std::ofstream(file, std::ios::binary) << text;
  EXPECT_EQ(ReadRegularFileText(file, text.size()), text);
  const auto message = [](const fs::path& path, std::size_t max_bytes) {
    try {
      ReadRegularFileText(path, max_bytes);
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(file, text.size() - 1), file.string() + ": exceeds " + std::to_string(text.size() - 1) + " bytes");
  fs::create_symlink(file, dir_ / "link.json");
  EXPECT_EQ(message(dir_ / "link.json", 1 << 20), (dir_ / "link.json").string() + ": is a symbolic link");
  ASSERT_EQ(::mkfifo((dir_ / "fifo.json").c_str(), 0600), 0);
  EXPECT_EQ(message(dir_ / "fifo.json", 1 << 20), (dir_ / "fifo.json").string() + ": is not a regular file");
  EXPECT_EQ(message(dir_, 1 << 20), dir_.string() + ": is not a regular file");
  EXPECT_NE(message(dir_ / "missing", 1 << 20).find(": cannot open for reading"), std::string::npos);
}

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

// One piece far larger than a single write(2) call takes (5 MiB and 7 bytes, a model's means file
// in one buffer), between small ones: every byte lands once, in order. The bytes (the top byte of
// a 64-bit product) do not repeat with any period below the file's size, so a call that wrote the
// same part twice would be seen.
TEST_F(FileIoTest, APieceLargerThanOneWriteCallIsWrittenWhole) {
  const fs::path path = dir_ / "means";
  std::string big((std::size_t(5) << 20) + 7, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((std::uint64_t{i} * 0x9E3779B97F4A7C15ull) >> 56);
  WriteFileAtomicStreamed(path, [&](const ByteSink& sink) {
    sink("head", 4);
    sink(big.data(), big.size());
    sink("tail", 4);
  });
  const std::string written = ReadFileText(path);
  EXPECT_EQ(written.size(), big.size() + 8);
  EXPECT_TRUE(written == "head" + big + "tail");
  const fs::path whole = dir_ / "variances";
  WriteFileAtomic(whole, big.data(), big.size());
  EXPECT_TRUE(ReadFileText(whole) == big);
  EXPECT_EQ(EntriesInDir(), 2u);
}

// WriteFileCopiesHashed: every copy holds the bytes and the digest is theirs, hashed beside the
// writes or after them; a copy that cannot be written is an error naming it (the copies before it
// written), also while the hash runs beside.
TEST_F(FileIoTest, WriteFileCopiesHashedWritesEveryCopyAndReturnsTheirDigest) {
  std::string big((std::size_t(3) << 20) + 5, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((std::uint64_t{i} * 0x9E3779B97F4A7C15ull) >> 56);
  const std::string expected = Sha256Hex(big.data(), big.size());
  for (bool beside : {false, true}) {
    SCOPED_TRACE(beside ? "hashed beside" : "hashed after");
    const fs::path sub = dir_ / (beside ? "beside" : "after");
    fs::create_directories(sub / "staging");
    const std::vector<fs::path> copies{sub / "means", sub / "staging" / "means"};
    EXPECT_EQ(WriteFileCopiesHashed(copies, big.data(), big.size(), beside), expected);
    for (const fs::path& copy : copies) EXPECT_TRUE(ReadFileText(copy) == big) << copy;
    const std::vector<fs::path> one{sub / "tiny"};
    EXPECT_EQ(WriteFileCopiesHashed(one, "abc", 3, beside), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const std::vector<fs::path> refused{sub / "first", sub / "missing" / "second"};
    try {
      WriteFileCopiesHashed(refused, big.data(), big.size(), beside);
      ADD_FAILURE() << "no error for a copy in a missing directory";
    } catch (const TrainingError& e) {
      EXPECT_NE(std::string(e.what()).find((sub / "missing" / "second").string()), std::string::npos) << e.what();
    }
    EXPECT_TRUE(ReadFileText(sub / "first") == big);
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(sub)) {
      EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << "left behind: " << entry.path();
    }
  }
}

// LinkFileAtomic: a second name of the same file (the same inode, no copy), replacing a file of
// that name in one step, and no hidden name left; a file that does not exist is an error naming
// the new name, and nothing is created.
TEST_F(FileIoTest, LinkFileAtomicGivesTheFileASecondNameReplacingAnyThere) {
  const fs::path original = dir_ / "shard-exact-counts", linked = dir_ / "sums-exact-counts";
  WriteFileAtomic(original, std::string("the shard's bytes"));
  WriteFileAtomic(linked, std::string("an older file of that name"));
  ASSERT_TRUE(LinkFileAtomic(original, linked));
  struct stat a {}, b {};
  ASSERT_EQ(::stat(original.c_str(), &a), 0);
  ASSERT_EQ(::stat(linked.c_str(), &b), 0);
  EXPECT_EQ(a.st_ino, b.st_ino) << "copied, not linked";
  EXPECT_EQ(a.st_nlink, 2u);
  EXPECT_EQ(ReadFileText(linked), "the shard's bytes");
  EXPECT_EQ(EntriesInDir(), 2u) << "a hidden name was left in " << dir_;
  try {
    LinkFileAtomic(dir_ / "missing", dir_ / "elsewhere");
    ADD_FAILURE() << "a missing file was linked";
  } catch (const TrainingError& error) {
    EXPECT_NE(std::string(error.what()).find((dir_ / "elsewhere").string()), std::string::npos) << error.what();
  }
  EXPECT_EQ(EntriesInDir(), 2u);
  // Linked again onto the name it already has: nothing changes, no hidden name is left.
  ASSERT_TRUE(LinkFileAtomic(original, linked));
  EXPECT_EQ(EntriesInDir(), 2u) << "a hidden name was left in " << dir_;
  ASSERT_EQ(::stat(linked.c_str(), &b), 0);
  EXPECT_EQ(a.st_ino, b.st_ino);
}

// A link the file system refuses (another file system: EXDEV) returns false and creates nothing;
// inside a DirectorySyncScope the new entry's directory is the scope's to fsync (its Sync() fails
// once that directory is gone).
TEST_F(FileIoTest, LinkFileAtomicAcrossFileSystemsIsRefusedAndItsDirectoryIsSynced) {
  const fs::path shm = fs::path("/dev/shm") / ("pstrain-file-io-test-" + std::to_string(::getpid()));
  struct stat here {}, there {};
  ASSERT_EQ(::stat(dir_.c_str(), &here), 0);
  ASSERT_TRUE(fs::is_directory("/dev/shm") && ::stat("/dev/shm", &there) == 0 && here.st_dev != there.st_dev)
      << "no /dev/shm on another file system than " << dir_ << ": the refused link cannot be tested";
  WriteFileAtomic(shm, std::string("elsewhere"));
  EXPECT_FALSE(LinkFileAtomic(shm, dir_ / "linked"));
  fs::remove(shm);
  EXPECT_EQ(EntriesInDir(), 0u) << "something was created in " << dir_;

  const fs::path root = dir_ / "scope";
  fs::create_directories(root / "sub");
  WriteFileAtomic(dir_ / "original", std::string("bytes"));
  DirectorySyncScope scope(root);
  ASSERT_TRUE(LinkFileAtomic(dir_ / "original", root / "sub" / "linked"));
  fs::remove_all(root / "sub");
  EXPECT_ANY_THROW(scope.Sync()) << "the link's directory was not left to the scope";
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

// WriteFileAtomicPiped: the same bytes as WriteFileAtomicStreamed from pieces of every size (1 byte
// to 5 MiB, across its 128 KiB buffers, more than it has), no temporary left; a producer that
// throws part-way leaves the old file and no temporary; a writer that cannot make its file stops the
// producer with its own error instead of leaving it waiting for a buffer.
TEST_F(FileIoTest, PipedPiecesAreWrittenExactlyAndEitherSidesErrorIsReported) {
  const fs::path path = dir_ / "exact_counts";
  std::string big((std::size_t(5) << 20) + 7, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((std::uint64_t{i} * 0x9E3779B97F4A7C15ull) >> 56);
  std::string expected;
  WriteFileAtomicPiped(path, [&](const ByteSink& sink) {
    std::string piece;
    for (std::size_t i = 0; expected.size() < (std::size_t(3) << 20); ++i) {
      piece.assign(1 + (i * 7919) % 200000, static_cast<char>('a' + i % 26));
      sink(piece.data(), piece.size());
      expected += piece;
    }
    sink(big.data(), big.size());
    expected += big;
    sink("x", 1);
    expected += "x";
  });
  const std::string written = ReadFileText(path);
  EXPECT_EQ(written.size(), expected.size());
  EXPECT_TRUE(written == expected);
  EXPECT_EQ(EntriesInDir(), 1u);

  EXPECT_THROW(WriteFileAtomicPiped(path,
                                    [&](const ByteSink& sink) {
                                      sink(big.data(), big.size());
                                      throw TrainingError("overflowing sum");
                                    }),
               TrainingError);
  EXPECT_TRUE(ReadFileText(path) == expected);
  EXPECT_EQ(EntriesInDir(), 1u) << "a temporary was left in " << dir_;

  try {
    WriteFileAtomicPiped("/proc/exact_counts", [&](const ByteSink& sink) {
      for (int i = 0; i < 40; ++i) sink(big.data(), std::size_t(1) << 20);  // more than its buffers hold
    });
    ADD_FAILURE() << "a file was made in /proc";
  } catch (const TrainingError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cannot create temporary file"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace pstrain
