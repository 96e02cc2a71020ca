// Code file stamps: a file's digest taken from a matching stamp, and the stamps' text form.
#include "provenance/code_file_stamps.h"

#include <sys/stat.h>
#include <sys/vfs.h>

#include <algorithm>
#include <charconv>
#include <ctime>

#include "common/sha256.h"

namespace pstrain {

namespace {

// File systems whose times this host's kernel sets itself, from its own clock, on every change of a
// file's contents: ext2/3/4, XFS, Btrfs, tmpfs, overlayfs. Elsewhere (NFS, CIFS, FUSE, ...) another
// host or a user-space server sets them, and a file is always hashed.
bool OnLocalFileSystem(const std::string& path) {
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) != 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case 0xEF53UL:      // ext2, ext3, ext4
    case 0x58465342UL:  // XFS
    case 0x9123683EUL:  // Btrfs
    case 0x01021994UL:  // tmpfs
    case 0x794C7630UL:  // overlayfs
      return true;
    default:
      return false;
  }
}

std::optional<CodeFileStamp> StatStamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || !OnLocalFileSystem(path)) return std::nullopt;
  CodeFileStamp stamp;
  stamp.path = path;
  stamp.device = static_cast<std::uint64_t>(st.st_dev);
  stamp.inode = static_cast<std::uint64_t>(st.st_ino);
  stamp.size = static_cast<std::uint64_t>(st.st_size);
  stamp.mtime_ns = std::int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  stamp.ctime_ns = std::int64_t(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
  return stamp;
}

std::int64_t NowNs() {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  return std::int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

bool SameFileState(const CodeFileStamp& a, const CodeFileStamp& b) {
  return a.path == b.path && a.device == b.device && a.inode == b.inode && a.size == b.size && a.mtime_ns == b.mtime_ns &&
         a.ctime_ns == b.ctime_ns;
}

template <typename T>
bool ParseNumber(std::string_view text, T& value) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

bool IsLowerHexDigest(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

std::string FileDigestWithStamp(const std::string& path, const std::vector<CodeFileStamp>& known,
                                std::optional<CodeFileStamp>* stamp_out, std::int64_t settle_ns) {
  const std::optional<CodeFileStamp> before = StatStamp(path);
  if (before) {
    for (const CodeFileStamp& stamp : known) {
      if (SameFileState(stamp, *before)) return stamp.sha256;
    }
  }
  std::string digest = Sha256OfFile(path);
  if (stamp_out && before) {
    const std::optional<CodeFileStamp> after = StatStamp(path);
    const std::int64_t settled = NowNs() - settle_ns;
    if (after && SameFileState(*before, *after) && before->mtime_ns < settled && before->ctime_ns < settled) {
      *stamp_out = *before;
      (*stamp_out)->sha256 = digest;
    }
  }
  return digest;
}

std::string EncodeCodeFileStamps(const std::vector<CodeFileStamp>& stamps) {
  std::string text;
  for (const CodeFileStamp& s : stamps) {
    if (s.path.empty() || s.path.find('\n') != std::string::npos || !IsLowerHexDigest(s.sha256)) continue;
    text += s.sha256 + " " + std::to_string(s.device) + " " + std::to_string(s.inode) + " " + std::to_string(s.size) + " " +
            std::to_string(s.mtime_ns) + " " + std::to_string(s.ctime_ns) + " " + s.path + "\n";
  }
  return text;
}

std::vector<CodeFileStamp> DecodeCodeFileStamps(std::string_view text) {
  std::vector<CodeFileStamp> stamps;
  while (!text.empty()) {
    // Lines end with a newline; the last one may have lost its own (a shell's $(...) drops it).
    const std::size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    std::string_view fields[6];
    for (std::string_view& field : fields) {
      const std::size_t space = line.find(' ');
      if (space == std::string_view::npos) return {};
      field = line.substr(0, space);
      line.remove_prefix(space + 1);
    }
    CodeFileStamp s;
    s.path = std::string(line);
    s.sha256 = std::string(fields[0]);
    if (s.path.empty() || !IsLowerHexDigest(s.sha256) || !ParseNumber(fields[1], s.device) || !ParseNumber(fields[2], s.inode) ||
        !ParseNumber(fields[3], s.size) || !ParseNumber(fields[4], s.mtime_ns) || !ParseNumber(fields[5], s.ctime_ns)) {
      return {};
    }
    stamps.push_back(std::move(s));
  }
  return stamps;
}

}  // namespace pstrain
