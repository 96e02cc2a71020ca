#include "common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "common/error.h"

namespace pstrain {
namespace fs = std::filesystem;

namespace {

std::string ErrnoText() { return std::strerror(errno); }

}  // namespace

std::vector<std::uint8_t> ReadFileBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw FileError(path.string(), "cannot open for reading: " + ErrnoText());
  const std::streamoff size = in.tellg();
  if (size < 0) throw FileError(path.string(), "cannot determine the file size");
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  in.seekg(0);
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size)) throw FileError(path.string(), "read error (file shrank?)");
  return bytes;
}

std::string ReadFileText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path.string(), "cannot open for reading: " + ErrnoText());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw FileError(path.string(), "read error");
  return text;
}

void SyncDirectory(const fs::path& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) throw TrainingError(dir.string() + ": cannot open directory to fsync: " + ErrnoText());
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) throw TrainingError(dir.string() + ": fsync of directory failed: " + ErrnoText());
}

fs::path HiddenSibling(const fs::path& path, const std::string& suffix) {
  // Built by appending: GCC 12 warns (-Wrestrict, a known false positive) on "." + string&&.
  std::string name = ".";
  name += path.filename().string();
  name += suffix;
  return (path.has_parent_path() ? path.parent_path() : fs::path(".")) / name;
}

void WriteFileAtomic(const fs::path& path, const void* data, std::size_t size) {
  std::string tmpl = HiddenSibling(path, ".tmp.XXXXXX").string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw TrainingError(path.string() + ": cannot create temporary file: " + ErrnoText());
  auto fail = [&](const std::string& what) {
    const std::string detail = ErrnoText();
    ::close(fd);
    ::unlink(tmpl.c_str());
    return TrainingError(path.string() + ": " + what + ": " + detail);
  };
  const auto* bytes = static_cast<const char*>(data);
  std::size_t written = 0;
  while (written < size) {
    ssize_t n = ::write(fd, bytes + written, size - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw fail("write failed");
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0) throw fail("chmod failed");
  if (::fsync(fd) != 0) throw fail("fsync failed");
  if (::close(fd) != 0) {
    const std::string detail = ErrnoText();
    ::unlink(tmpl.c_str());
    throw TrainingError(path.string() + ": close failed: " + detail);
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    const std::string detail = ErrnoText();
    ::unlink(tmpl.c_str());
    throw TrainingError(path.string() + ": rename into place failed: " + detail);
  }
  SyncDirectory(path.has_parent_path() ? path.parent_path() : fs::path("."));
}

void ReplaceDirectory(const fs::path& staged, const fs::path& dest) {
  const fs::path aside = HiddenSibling(dest, ".old");
  std::error_code ec;
  fs::remove_all(aside, ec);
  if (fs::exists(dest)) {
    fs::rename(dest, aside, ec);
    if (ec) throw TrainingError(dest.string() + ": cannot move previous directory aside: " + ec.message());
  }
  fs::rename(staged, dest, ec);
  if (ec) {
    std::error_code restore_ec;
    if (fs::exists(aside)) fs::rename(aside, dest, restore_ec);
    throw TrainingError(dest.string() + ": cannot move new directory into place: " + ec.message());
  }
  SyncDirectory(dest.has_parent_path() ? dest.parent_path() : fs::path("."));
  fs::remove_all(aside, ec);
}

}  // namespace pstrain
