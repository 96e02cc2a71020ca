// DirectorySyncScope (common/file_io.h): inside a scope, WriteFileAtomic renames the file into place
// and leaves its fsync and its directory's to the scope, which holds the file open until Sync() (or
// its end) closes it (DeferDirectorySync says which scope takes a directory); outside any scope, or
// after the scope ends, it does not; ReplaceDirectory of a scope's root still moves complete files
// into place; SyncExistingFiles names another process's files for the scope's Sync. (Whether an fsync reached the disk is not observable here; the count per pass is
// measured with strace, docs/performance.md.)
#include <gtest/gtest.h>

#include <stdlib.h>
#include <sys/stat.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "common/file_io.h"
#include "shards/run_layout.h"

namespace pstrain {
namespace {

namespace fs = std::filesystem;

class DirectorySyncScopeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "pstrain_dirsync_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  fs::path dir_;
};

TEST_F(DirectorySyncScopeTest, DefersOnlyInsideItsRoot) {
  const fs::path staging = dir_ / ".out.staging";
  fs::create_directories(staging / "sub");
  EXPECT_FALSE(DeferDirectorySync(staging));  // no scope yet
  {
    DirectorySyncScope scope(staging);
    EXPECT_TRUE(DeferDirectorySync(staging));
    EXPECT_TRUE(DeferDirectorySync(staging / "sub"));
    EXPECT_TRUE(DeferDirectorySync(staging / "sub" / ".." / "sub" / ""));
    EXPECT_FALSE(DeferDirectorySync(dir_));                 // the parent is outside
    EXPECT_FALSE(DeferDirectorySync(dir_ / ".out.stagingX"));  // a name that only starts alike
    WriteFileAtomic(staging / "sub" / "a", std::string("alpha"));
    WriteFileAtomic(staging / "b", std::string("beta"));
    scope.Sync();
  }
  EXPECT_FALSE(DeferDirectorySync(staging));  // the scope has ended
}

std::size_t OpenDescriptors() {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator("/proc/self/fd"), fs::directory_iterator()));
}

TEST_F(DirectorySyncScopeTest, HoldsEachFileOpenUntilSyncOrItsEnd) {
  const fs::path staging = dir_ / ".out.staging";
  fs::create_directories(staging);
  const std::size_t base = OpenDescriptors();
  WriteFileAtomic(dir_ / "outside", std::string("o"));
  EXPECT_EQ(OpenDescriptors(), base) << "a file outside any scope is synced and closed at once";
  {
    DirectorySyncScope scope(staging);
    WriteFileAtomic(staging / "a", std::string("alpha"));
    WriteFileAtomic(staging / "b", std::string("beta"));
    EXPECT_EQ(OpenDescriptors(), base + 2) << "the scope holds both files for its Sync";
    EXPECT_EQ(ReadFileText(staging / "a"), "alpha");  // in place already, no temporary beside it
    EXPECT_EQ(std::distance(fs::directory_iterator(staging), fs::directory_iterator()), 2);
    scope.Sync();
    EXPECT_EQ(OpenDescriptors(), base);
    WriteFileAtomic(staging / "c", std::string("gamma"));
    EXPECT_EQ(OpenDescriptors(), base + 1);
  }  // ends without a second Sync (as on an exception): the file is closed, not leaked
  EXPECT_EQ(OpenDescriptors(), base);
  EXPECT_EQ(ReadFileText(staging / "c"), "gamma");
}

// The descriptor the scope holds for `path`, or -1.
int HeldDescriptor(const fs::path& path) {
  for (const auto& entry : fs::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    if (fs::read_symlink(entry.path(), ec) == fs::absolute(path)) return std::stoi(entry.path().filename().string());
  }
  return -1;
}

TEST_F(DirectorySyncScopeTest, AHeldFileIsClosedOnExec) {
  const fs::path staging = dir_ / ".out.staging";
  fs::create_directories(staging);
  DirectorySyncScope scope(staging);
  WriteFileAtomic(staging / "job.json", std::string("{}"));
  const int fd = HeldDescriptor(staging / "job.json");
  ASSERT_GE(fd, 0);
  std::string flags_line;
  std::ifstream info("/proc/self/fdinfo/" + std::to_string(fd));
  for (std::string line; std::getline(info, line);) {
    if (line.rfind("flags:", 0) == 0) flags_line = line;
  }
  ASSERT_FALSE(flags_line.empty());
  const unsigned long flags = std::stoul(flags_line.substr(flags_line.find_first_not_of(" \t", 6)), nullptr, 8);
  EXPECT_NE(flags & 02000000UL, 0UL) << flags_line << ": O_CLOEXEC missing (a spawned sbatch would inherit it)";
  scope.Sync();
}

// The innermost scope is the one with the longest root, even when an outer one was opened after
// it (as another thread may): the inner scope's Sync() syncs and closes the file.
TEST_F(DirectorySyncScopeTest, TheDeepestScopeTakesAFileWhateverTheOrderOfOpening) {
  const fs::path outer_root = dir_ / "pass";
  const fs::path inner_root = outer_root / ShardDirName(0);
  fs::create_directories(inner_root);
  const std::size_t base = OpenDescriptors();
  DirectorySyncScope inner(inner_root);
  DirectorySyncScope outer(outer_root);
  WriteFileAtomic(inner_root / "exact_counts", std::string("x"));
  inner.Sync();
  EXPECT_EQ(OpenDescriptors(), base) << "the file went to the outer scope";
  outer.Sync();
}

TEST_F(DirectorySyncScopeTest, ReplaceDirectoryMovesTheScopesFilesIntoPlace) {
  const fs::path dest = dir_ / "out";
  const fs::path staging = HiddenSibling(dest, ".staging");
  for (int round = 0; round < 2; ++round) {  // the second round replaces an existing directory
    fs::create_directories(staging / "model");
    DirectorySyncScope scope(staging);
    WriteFileAtomic(staging / "model" / "means", std::string("round ") + std::to_string(round));
    WriteFileAtomic(staging / "pass.json", std::string("{}"));
    ReplaceDirectory(staging, dest);
    EXPECT_EQ(ReadFileText(dest / "model" / "means"), "round " + std::to_string(round));
    EXPECT_EQ(ReadFileText(dest / "pass.json"), "{}");
    EXPECT_FALSE(fs::exists(staging));
  }
}

TEST_F(DirectorySyncScopeTest, TheInnermostScopeTakesADirectory) {
  const fs::path outer_root = dir_ / "pass";
  const fs::path inner_root = outer_root / ShardDirName(0);
  fs::create_directories(inner_root);
  DirectorySyncScope outer(outer_root);
  {
    DirectorySyncScope inner(inner_root);
    WriteFileAtomic(inner_root / "exact_counts", std::string("x"));
    inner.Sync();
  }
  // After the inner scope ends, its directory belongs to the outer one again.
  EXPECT_TRUE(DeferDirectorySync(inner_root));
  WriteFileAtomic(inner_root / "artifact.json", std::string("{}"));
  outer.Sync();
  EXPECT_EQ(ReadFileText(inner_root / "exact_counts"), "x");
  EXPECT_EQ(ReadFileText(inner_root / "artifact.json"), "{}");
}

// Files in several directories: after Sync every file is in place and closed, and a file written
// after Sync is held again (for a second Sync: the final model's provenance.json is written after
// the files a pass staged with it were synced).
TEST_F(DirectorySyncScopeTest, SyncClosesEveryFileOfManyInSeveralDirectories) {
  const fs::path root = dir_ / ".many.staging";
  const auto file = [&root](int d, int f) {
    std::string dir = "d";  // appended: GCC 12 warns falsely (-Wrestrict) on "d" + std::to_string(d)
    dir += std::to_string(d);
    return root / dir / "sub" / std::to_string(f);
  };
  const std::size_t base = OpenDescriptors();
  DirectorySyncScope scope(root);
  for (int d = 0; d < 3; ++d) {
    fs::create_directories(file(d, 0).parent_path());
    for (int f = 0; f < 5; ++f) WriteFileAtomic(file(d, f), std::to_string(10 * d + f));
  }
  EXPECT_EQ(OpenDescriptors(), base + 15);
  scope.Sync();
  EXPECT_EQ(OpenDescriptors(), base);
  for (int d = 0; d < 3; ++d) {
    for (int f = 0; f < 5; ++f) EXPECT_EQ(ReadFileText(file(d, f)), std::to_string(10 * d + f));
  }
  WriteFileAtomic(root / "late", std::string("l"));
  EXPECT_EQ(OpenDescriptors(), base + 1);
}

// A directory that disappeared before Sync is an error naming it, not silently skipped.
TEST_F(DirectorySyncScopeTest, SyncOfAVanishedDirectoryThrows) {
  const fs::path root = dir_ / "gone";
  fs::create_directories(root / "sub");
  DirectorySyncScope scope(root);
  WriteFileAtomic(root / "sub" / "f", std::string("f"));
  fs::remove_all(root);
  EXPECT_ANY_THROW(scope.Sync());
}

// SyncExistingFiles (files another process left unsynced): regular files only, each reopened by
// name, so a scope holds no descriptor for them; a FIFO, a symbolic link and a subdirectory are left
// alone (nothing blocks); a file that vanished before the scope's Sync, or a directory that cannot
// be listed, is an error naming it.
TEST_F(DirectorySyncScopeTest, ExistingFilesAreSyncedByNameNowOrWithTheScope) {
  const fs::path root = dir_ / ".pass.staging";
  const fs::path shard = root / "shard-000";
  fs::create_directories(shard / "sub");
  std::ofstream(shard / "a") << "alpha";
  std::ofstream(shard / "b") << "beta";
  ASSERT_EQ(::mkfifo((shard / "fifo").c_str(), 0600), 0);
  fs::create_symlink("a", shard / "link");
  const std::size_t base = OpenDescriptors();
  EXPECT_NO_THROW(SyncExistingFiles(shard, ExistingFilesSync::kNow));  // no scope needed
  {
    DirectorySyncScope scope(root);
    SyncExistingFiles(shard, ExistingFilesSync::kWithScope);
    EXPECT_EQ(OpenDescriptors(), base) << "the scope holds no descriptor for files it only names";
    EXPECT_NO_THROW(scope.Sync());
    SyncExistingFiles(shard, ExistingFilesSync::kWithScope);
    fs::remove(shard / "b");
    try {
      scope.Sync();
      ADD_FAILURE() << "a file that vanished before Sync was not reported";
    } catch (const std::exception& error) {
      EXPECT_NE(std::string(error.what()).find((shard / "b").string()), std::string::npos) << error.what();
    }
  }
  EXPECT_NO_THROW(SyncExistingFiles(shard, ExistingFilesSync::kWithScope));  // no scope: at once
  try {
    SyncExistingFiles(dir_ / "missing", ExistingFilesSync::kNow);
    ADD_FAILURE() << "a missing directory was not reported";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find((dir_ / "missing").string()), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace pstrain
