// Whole-file reading and crash-safe writing (temporary file, fsync, rename).
#include "common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>  // renameat2, RENAME_EXCHANGE (glibc >= 2.28, _GNU_SOURCE)
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

std::string ReadRegularFileText(const fs::path& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: a symlink is refused.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP) throw InputError(path.string() + ": is a symbolic link");
    throw InputError(path.string() + ": cannot open for reading: " + ErrnoText());
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError(path.string() + ": is not a regular file");
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    throw InputError(path.string() + ": exceeds " + std::to_string(max_bytes) + " bytes");
  }
  std::string text;
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string detail = ErrnoText();
      ::close(fd);
      throw InputError(path.string() + ": read error: " + detail);
    }
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes) {  // grew while being read
      ::close(fd);
      throw InputError(path.string() + ": exceeds " + std::to_string(max_bytes) + " bytes");
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
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

void RecoverDirectory(const fs::path& dest) {
  const fs::path aside = HiddenSibling(dest, ".old");
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(aside, ec))) return;
  const fs::path parent = dest.has_parent_path() ? dest.parent_path() : fs::path(".");
  if (!fs::exists(fs::symlink_status(dest, ec))) {
    // Left between the two renames of the earlier two-step swap: the set-aside copy is the only
    // complete one. Put it back, never delete it.
    if (::rename(aside.c_str(), dest.c_str()) != 0) {
      throw TrainingError(dest.string() + ": cannot restore the previous directory from " + aside.string() + ": " + ErrnoText());
    }
    SyncDirectory(parent);
    return;
  }
  fs::remove_all(aside, ec);  // dest is complete: the set-aside copy is the superseded one
}

void ReplaceDirectory(const fs::path& staged, const fs::path& dest) {
  const fs::path parent = dest.has_parent_path() ? dest.parent_path() : fs::path(".");
  RecoverDirectory(dest);
  // One atomic step: dest and staged trade places, so at every instant dest names a complete
  // directory (the previous one until the exchange, the new one after it).
  if (::renameat2(AT_FDCWD, staged.c_str(), AT_FDCWD, dest.c_str(), RENAME_EXCHANGE) == 0) {
    SyncDirectory(parent);
    std::error_code ec;
    fs::remove_all(staged, ec);  // now the previous directory
    return;
  }
  if (errno != ENOENT) {
    throw TrainingError(dest.string() + ": cannot exchange with the staged " + staged.string() + ": " + ErrnoText());
  }
  // No previous directory: a plain rename, refusing to replace one that appeared meanwhile.
  if (::renameat2(AT_FDCWD, staged.c_str(), AT_FDCWD, dest.c_str(), RENAME_NOREPLACE) != 0) {
    throw TrainingError(dest.string() + ": cannot move the staged " + staged.string() + " into place: " + ErrnoText());
  }
  SyncDirectory(parent);
}

}  // namespace pstrain
