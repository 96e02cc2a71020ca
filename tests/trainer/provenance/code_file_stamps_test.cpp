// Code file stamps (provenance/code_file_stamps.h): a digest is taken from a stamp only for the
// very file, unchanged, on a local file system; a file written moments ago gives no stamp; the text
// form round-trips and a malformed one gives nothing; a process identity takes only its binary's
// digest from a stamp and is the one computed from the bytes.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "common/sha256.h"
#include "provenance/code_file_stamps.h"
#include "provenance/provenance.h"
#include "support/fault_fixture_util.h"

namespace pstrain {
namespace {

namespace fs = std::filesystem;
using testing::TestScratchDir;

void WriteText(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// A stamp of `path` with the settling time waived (the file was written just now).
CodeFileStamp StampOf(const fs::path& path) {
  std::optional<CodeFileStamp> stamp;
  FileDigestWithStamp(path.string(), {}, &stamp, /*settle_ns=*/-1'000'000'000'000);
  EXPECT_TRUE(stamp.has_value()) << path;
  return stamp.value_or(CodeFileStamp{});
}

TEST(CodeFileStamps, AMatchingStampGivesItsDigestUnreadAnythingElseIsHashed) {
  const fs::path dir = TestScratchDir("code_file_stamps", "match");
  const fs::path file = dir / "libexample.so";
  WriteText(file, "the library's bytes");
  // Written an hour ago, as far as its stamp says (the rewrite below then surely has another time,
  // whatever the file system's clock resolution).
  fs::last_write_time(file, fs::file_time_type::clock::now() - std::chrono::hours(1));
  const std::string real = Sha256Hex("the library's bytes");
  CodeFileStamp stamp = StampOf(file);
  EXPECT_EQ(stamp.sha256, real);
  EXPECT_EQ(stamp.size, 19u);

  // The same file, unchanged: the stamp's digest is taken as it is (a forged one shows it is used).
  CodeFileStamp forged = stamp;
  forged.sha256 = Sha256Hex("forged");
  EXPECT_EQ(FileDigestWithStamp(file.string(), {forged}, nullptr), forged.sha256);

  // Any field of the stamp that differs, and the file is read and hashed.
  auto differs = [&](auto change) {
    CodeFileStamp other = forged;
    change(other);
    return FileDigestWithStamp(file.string(), {other}, nullptr);
  };
  EXPECT_EQ(differs([](CodeFileStamp& s) { s.path += ".1"; }), real);
  EXPECT_EQ(differs([](CodeFileStamp& s) { ++s.device; }), real);
  EXPECT_EQ(differs([](CodeFileStamp& s) { ++s.inode; }), real);
  EXPECT_EQ(differs([](CodeFileStamp& s) { ++s.size; }), real);
  EXPECT_EQ(differs([](CodeFileStamp& s) { ++s.mtime_ns; }), real);
  EXPECT_EQ(differs([](CodeFileStamp& s) { ++s.ctime_ns; }), real);

  // The file rewritten with other bytes of the same size: its times move on, the stamp no longer
  // matches, and the new bytes are hashed.
  WriteText(file, "THE LIBRARY'S BYTES");
  EXPECT_EQ(FileDigestWithStamp(file.string(), {forged}, nullptr), Sha256Hex("THE LIBRARY'S BYTES"));
}

TEST(CodeFileStamps, AFileWrittenMomentsAgoGetsNoStamp) {
  const fs::path dir = TestScratchDir("code_file_stamps", "recent");
  const fs::path file = dir / "fresh.so";
  WriteText(file, "just written");
  std::optional<CodeFileStamp> stamp;
  EXPECT_EQ(FileDigestWithStamp(file.string(), {}, &stamp), Sha256Hex("just written"));  // the default settling time
  EXPECT_FALSE(stamp.has_value());
  // A missing file: an error, as Sha256OfFile's.
  EXPECT_ANY_THROW(FileDigestWithStamp((dir / "missing.so").string(), {}, &stamp));
}

TEST(CodeFileStamps, TheTextFormRoundTripsAndAnythingMalformedGivesNoStamps) {
  CodeFileStamp a{"/proc/self/exe", 2049, 123456, 4823064, 1764912000123456789, 1764912000987654321, Sha256Hex("binary")};
  CodeFileStamp b{"/lib/x86_64-linux-gnu/lib with space.so.6", 1, 2, 3, -4, 5, Sha256Hex("libc")};
  const std::string text = EncodeCodeFileStamps({a, b});
  EXPECT_EQ(DecodeCodeFileStamps(text), (std::vector<CodeFileStamp>{a, b}));
  EXPECT_TRUE(DecodeCodeFileStamps("").empty());
  // A path with a newline cannot be written; the others still are.
  CodeFileStamp newline = a;
  newline.path = "/tmp/a\nb.so";
  EXPECT_EQ(DecodeCodeFileStamps(EncodeCodeFileStamps({newline, b})), (std::vector<CodeFileStamp>{b}));

  const std::string line_b = EncodeCodeFileStamps({b});
  EXPECT_EQ(DecodeCodeFileStamps(text.substr(0, text.size() - 1)), (std::vector<CodeFileStamp>{a, b}));  // as $(...) gives it
  for (const std::string& bad : {text + "\n",                                        // an empty line
                                 "x" + text,                                         // digest not hex of 64
                                 text + Sha256Hex("c") + " 1 2 3 4\n",               // too few fields
                                 text + Sha256Hex("c") + " 1 2 3 4 5 \n",            // empty path
                                 text + Sha256Hex("c") + " 1 2 three 4 5 /x.so\n",   // not a number
                                 text + Sha256Hex("c") + " 1 2 3 4 5x /x.so\n",      // trailing junk in a number
                                 text + Sha256Hex("c") + " -1 2 3 4 5 /x.so\n"}) {  // negative device
    EXPECT_TRUE(DecodeCodeFileStamps(bad).empty()) << bad;
  }
  EXPECT_EQ(DecodeCodeFileStamps(line_b), (std::vector<CodeFileStamp>{b}));
}

TEST(CodeFileStamps, OnlyTheBinaryIsTakenFromAStampAndTheIdentityIsTheOneComputedFromTheBytes) {
  std::vector<CodeFileStamp> stamps;
  const BuildIdentity hashed = CurrentBuildIdentity({}, &stamps);
  EXPECT_EQ(CodeIdentity(hashed), CodeIdentity(CurrentBuildIdentity()));
  // At most the binary's stamp (none if it was linked in the last two seconds): libraries never.
  ASSERT_LE(stamps.size(), 1u);
  if (!stamps.empty()) {
    EXPECT_EQ(stamps.front().path, "/proc/self/exe");
    EXPECT_EQ(stamps.front().sha256, hashed.binary_sha256);
  }
  // The binary's stamp (settling waived) is what is used: with a forged digest, the identity's
  // binary digest is the forged one and the libraries' are unchanged.
  CodeFileStamp binary = StampOf("/proc/self/exe");
  EXPECT_EQ(binary.sha256, hashed.binary_sha256);
  EXPECT_EQ(CodeIdentity(CurrentBuildIdentity({binary}, nullptr)), CodeIdentity(hashed));
  binary.sha256 = Sha256Hex("another binary");
  const BuildIdentity with_forged = CurrentBuildIdentity({binary}, nullptr);
  EXPECT_EQ(with_forged.binary_sha256, Sha256Hex("another binary"));
  EXPECT_EQ(with_forged.libraries, hashed.libraries);
  // Stamps naming a library with its current stat stamp and a forged digest change nothing.
  ASSERT_FALSE(hashed.libraries.empty());
  std::vector<CodeFileStamp> library_stamps;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    const std::size_t slash = line.find('/');
    if (slash == std::string::npos || line.find(".so", slash) == std::string::npos) continue;
    std::optional<CodeFileStamp> stamp;
    FileDigestWithStamp(line.substr(slash), {}, &stamp, -1'000'000'000'000);
    if (!stamp) continue;
    stamp->sha256 = Sha256Hex("forged library");
    library_stamps.push_back(*stamp);
  }
  ASSERT_FALSE(library_stamps.empty());
  EXPECT_EQ(CurrentBuildIdentity(library_stamps, nullptr).libraries, hashed.libraries);
}

TEST(CodeFileStamps, AFileOnAFileSystemWhoseTimesThisKernelDoesNotKeepIsAlwaysHashed) {
  // /proc is not one of the local file systems stamps are kept for: no stamp is made, and one
  // naming the file with its current stat fields is not used.
  const std::string path = "/proc/version";
  std::optional<CodeFileStamp> stamp;
  const std::string real = FileDigestWithStamp(path, {}, &stamp, -1'000'000'000'000);
  EXPECT_FALSE(stamp.has_value());
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  CodeFileStamp forged{path, static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino), static_cast<std::uint64_t>(st.st_size),
                       std::int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
                       std::int64_t(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec, Sha256Hex("forged")};
  EXPECT_EQ(FileDigestWithStamp(path, {forged}, nullptr), real);
  EXPECT_NE(real, Sha256Hex("forged"));
}

}  // namespace
}  // namespace pstrain
