// Whole-file reading, crash-safe writing, directory fsyncs (deferred in a DirectorySyncScope) and
// atomic directory replacement.
#include "common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>  // renameat2, RENAME_EXCHANGE (glibc >= 2.28, _GNU_SOURCE)
#include <cstring>
#include <fstream>
#include <future>
#include <mutex>
#include <span>
#include <system_error>

#include "common/error.h"
#include "common/parallel_for.h"
#include "common/piece_handoff.h"
#include "common/sha256.h"

namespace pstrain {
namespace fs = std::filesystem;

namespace {

std::string ErrnoText() { return std::strerror(errno); }

// Opens `path` (a regular file, not followed if a symbolic link) read-only and fsyncs it.
void FsyncPath(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw TrainingError(path.string() + ": cannot open to fsync: " + ErrnoText());
  if (::fsync(fd) != 0) {
    const std::string detail = ErrnoText();
    ::close(fd);
    throw TrainingError(path.string() + ": fsync failed: " + detail);
  }
  if (::close(fd) != 0) throw TrainingError(path.string() + ": close failed: " + ErrnoText());
}

std::mutex& ScopeMutex() {
  static std::mutex mutex;
  return mutex;
}

std::vector<DirectorySyncScope*>& ActiveScopes() {
  static std::vector<DirectorySyncScope*> scopes;
  return scopes;
}

// Absolute, lexically normal, without a trailing separator: the key of a directory in a scope.
fs::path Normal(const fs::path& dir) {
  fs::path normal = fs::absolute(dir.empty() ? fs::path(".") : dir).lexically_normal();
  if (!normal.has_filename() && normal.has_relative_path()) normal = normal.parent_path();
  return normal;
}

// Whether `dir` is `root` or below it (both absolute and lexically normal).
bool IsWithin(const fs::path& dir, const fs::path& root) {
  auto d = dir.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++d) {
    if (r->empty()) continue;  // a trailing separator
    if (d == dir.end() || *d != *r) return false;
  }
  return true;
}

// The innermost scope containing the directory `normal` (absolute, lexically normal), or null: of
// those containing it, the one with the longest root (not the one registered last: another thread
// may have opened an outer scope since). The caller holds ScopeMutex().
DirectorySyncScope* InnermostScope(const fs::path& normal) {
  DirectorySyncScope* innermost = nullptr;
  for (DirectorySyncScope* scope : ActiveScopes()) {
    if (IsWithin(normal, scope->root()) &&
        (innermost == nullptr || scope->root().native().size() > innermost->root().native().size())) {
      innermost = scope;
    }
  }
  return innermost;
}

// Whether a DirectorySyncScope contains `dir`.
bool InSyncScope(const fs::path& dir) {
  std::lock_guard<std::mutex> lock(ScopeMutex());
  return !ActiveScopes().empty() && InnermostScope(Normal(dir)) != nullptr;
}

}  // namespace

bool DeferDirectorySync(const fs::path& dir) { return DeferFileSync(dir, -1, {}); }

bool DeferFileSync(const fs::path& dir, int fd, const fs::path& path) {
  std::lock_guard<std::mutex> lock(ScopeMutex());
  if (ActiveScopes().empty()) return false;
  const fs::path normal = Normal(dir);
  DirectorySyncScope* innermost = InnermostScope(normal);
  if (innermost == nullptr) return false;
  if (fd >= 0) innermost->files_.reserve(innermost->files_.size() + 1);  // may throw: before anything changes
  innermost->pending_.insert(normal);
  if (fd >= 0) innermost->files_.push_back({fd, path});
  return true;
}

void SyncExistingFiles(const fs::path& dir, ExistingFilesSync when) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  std::vector<fs::path> files;
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code status_ec;
    if (fs::is_regular_file(it->symlink_status(status_ec)) && !status_ec) files.push_back(it->path());
  }
  if (ec) throw TrainingError(dir.string() + ": cannot list the directory to fsync its files: " + ec.message());
  std::sort(files.begin(), files.end());  // a fixed order
  // Write-back of each starts now (a hint, its errors surface in the fsync): with kNow all of them
  // before the first fsync, whose journal commit then usually carries the others.
  for (const fs::path& path : files) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw TrainingError(path.string() + ": cannot open to fsync: " + ErrnoText());
    (void)::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    ::close(fd);
  }
  if (when == ExistingFilesSync::kWithScope) {
    std::lock_guard<std::mutex> lock(ScopeMutex());
    const fs::path normal = Normal(dir);
    if (DirectorySyncScope* innermost = ActiveScopes().empty() ? nullptr : InnermostScope(normal)) {
      innermost->existing_.insert(innermost->existing_.end(), files.begin(), files.end());
      innermost->pending_.insert(normal);
      return;
    }
  }
  for (const fs::path& path : files) FsyncPath(path);
  SyncDirectory(dir);
}

DirectorySyncScope::DirectorySyncScope(const fs::path& root) : root_(Normal(root)) {
  std::lock_guard<std::mutex> lock(ScopeMutex());
  ActiveScopes().push_back(this);
}

DirectorySyncScope::~DirectorySyncScope() {
  std::lock_guard<std::mutex> lock(ScopeMutex());
  for (const PendingFile& file : files_) ::close(file.fd);  // never synced: its directory is never published
  std::vector<DirectorySyncScope*>& scopes = ActiveScopes();
  for (auto it = scopes.begin(); it != scopes.end(); ++it) {
    if (*it == this) {
      scopes.erase(it);
      break;
    }
  }
}

void DirectorySyncScope::Sync() {
  std::set<fs::path> dirs;
  std::vector<PendingFile> files;
  std::vector<fs::path> existing;
  {
    std::lock_guard<std::mutex> lock(ScopeMutex());
    dirs.swap(pending_);
    files.swap(files_);
    existing.swap(existing_);
  }
  // Write-back of every file is started first (a hint; errors surface in the fsync), so that the
  // journal commit of the first fsync usually carries the others and they return at once.
  for (const PendingFile& file : files) (void)::sync_file_range(file.fd, 0, 0, SYNC_FILE_RANGE_WRITE);
  // The fsyncs side by side, on up to kSyncThreads threads: fsyncs that wait at the same time share
  // the file system's journal commits and device flushes (28 small files on ext4: 1.5 ms one after
  // another, 0.9 ms on 4 threads; docs/performance.md). Every descriptor is closed; the error
  // reported is that of the first failing file in the order above (ParallelFor's lowest index).
  constexpr unsigned kSyncThreads = 4;
  ParallelFor(files.size() + existing.size(), kSyncThreads, [&](std::size_t i) {
    if (i >= files.size()) return FsyncPath(existing[i - files.size()]);
    const PendingFile& file = files[i];
    std::string failure;
    if (::fsync(file.fd) != 0) failure = file.path.string() + ": fsync failed: " + ErrnoText();
    if (::close(file.fd) != 0 && failure.empty()) failure = file.path.string() + ": close failed: " + ErrnoText();
    if (!failure.empty()) throw TrainingError(failure);
  });
  // Each directory and its parents up to root: a file's entry is durable once its directory is
  // fsynced, and that directory's own entry once its parent is.
  std::set<fs::path> all{root_};
  for (const fs::path& dir : dirs) {
    for (fs::path d = dir; IsWithin(d, root_) && all.insert(d).second && d != root_; d = d.parent_path()) {
    }
  }
  // Deepest first (a parent after its children), a fixed order.
  std::vector<fs::path> order(all.begin(), all.end());
  for (auto it = order.rbegin(); it != order.rend(); ++it) SyncDirectory(*it);
}

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

namespace {

// Closes a descriptor when it goes out of scope (also when an allocation throws).
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() { ::close(fd_); }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;

 private:
  int fd_;
};

}  // namespace

// Without blocking: a FIFO must not wait for a writer.
int OpenRegularFile(const fs::path& path, bool no_follow, struct stat& st) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | (no_follow ? O_NOFOLLOW : 0));
  if (fd < 0) {
    if (no_follow && errno == ELOOP) throw FileError(path.string(), "is a symbolic link");
    throw FileError(path.string(), "cannot open for reading: " + ErrnoText());
  }
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw FileError(path.string(), "is not a regular file");
  }
  return fd;
}

namespace {

// Reads `fd` to its end into `text`, sized first for `expected` bytes and one more (so that the read
// that sees the end needs no growth when the file kept its size); more than `max_bytes` is an
// error (the buffer never grows past one byte more than that).
void ReadToEnd(int fd, const fs::path& path, std::size_t expected, std::size_t max_bytes, std::string& text) {
  const std::size_t cap = max_bytes < SIZE_MAX ? max_bytes + 1 : SIZE_MAX;
  text.resize(std::min(expected + 1, cap));
  std::size_t used = 0;
  for (;;) {
    if (used == text.size()) text.resize(std::min(std::max<std::size_t>(65536, 2 * text.size()), cap));
    const std::size_t want = text.size() - used;
    const std::size_t got = ReadUpTo(fd, text.data() + used, want, path);
    used += got;
    if (used > max_bytes) throw FileError(path.string(), "exceeds " + std::to_string(max_bytes) + " bytes");  // grew while being read
    if (got < want) break;  // the end
  }
  text.resize(used);
}

}  // namespace

std::size_t ReadUpTo(int fd, void* out, std::size_t n, const fs::path& path) {
  std::size_t used = 0;
  while (used < n) {
    const ssize_t got = ::read(fd, static_cast<std::uint8_t*>(out) + used, n - used);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw FileError(path.string(), "read error: " + ErrnoText());
    }
    if (got == 0) break;
    used += static_cast<std::size_t>(got);
  }
  return used;
}

std::string ReadFileText(const fs::path& path) {
  // read(2), not an istreambuf_iterator, which took about 16 instructions a byte (a CD mdef is
  // 0.7 MB, and every process reads it). Any file type is read to its end.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw FileError(path.string(), "cannot open for reading: " + ErrnoText());
  const FdCloser closer(fd);
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  std::string text;
  ReadToEnd(fd, path, regular ? static_cast<std::size_t>(st.st_size) : 0, SIZE_MAX, text);
  return text;
}

RegularFileReader::RegularFileReader(const fs::path& path) : path_(path) {
  struct stat st {};
  fd_ = OpenRegularFile(path, /*no_follow=*/false, st);
  size_ = left_ = static_cast<std::uint64_t>(st.st_size);
}

RegularFileReader::~RegularFileReader() { ::close(fd_); }

std::size_t RegularFileReader::Read(void* out, std::size_t n) {
  const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(n, left_));
  if (ReadUpTo(fd_, out, want, path_) != want) throw FileError(path_.string(), "read error (file shrank?)");
  left_ -= want;
  return want;
}

std::vector<std::uint8_t> ReadRegularFileBytes(const fs::path& path) {
  RegularFileReader file(path);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(file.size()));
  file.Read(bytes.data(), bytes.size());
  return bytes;
}

std::string ReadRegularFileText(const fs::path& path, std::size_t max_bytes) {
  struct stat st {};
  const int fd = OpenRegularFile(path, /*no_follow=*/true, st);
  const FdCloser closer(fd);
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    throw FileError(path.string(), "exceeds " + std::to_string(max_bytes) + " bytes");
  }
  std::string text;
  ReadToEnd(fd, path, static_cast<std::size_t>(st.st_size), max_bytes, text);
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

bool LinkFileAtomic(const fs::path& existing, const fs::path& path) {
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const fs::path hidden = HiddenSibling(path, ".link");
  if (::unlink(hidden.c_str()) != 0 && errno != ENOENT) throw TrainingError(hidden.string() + ": cannot remove: " + ErrnoText());
  if (::link(existing.c_str(), hidden.c_str()) != 0) {
    if (errno == EPERM || errno == EXDEV || errno == EMLINK || errno == ENOTSUP || errno == EOPNOTSUPP) return false;
    throw TrainingError(path.string() + ": cannot link to " + existing.string() + ": " + ErrnoText());
  }
  if (::rename(hidden.c_str(), path.c_str()) != 0) {
    const std::string detail = ErrnoText();
    ::unlink(hidden.c_str());
    throw TrainingError(path.string() + ": rename into place failed: " + detail);
  }
  // (A rename onto another name of the same file does nothing: the hidden name would stay.)
  ::unlink(hidden.c_str());
  if (!DeferDirectorySync(dir)) SyncDirectory(dir);
  return true;
}

void WriteFileAtomic(const fs::path& path, const void* data, std::size_t size) {
  WriteFileAtomicStreamed(path, [&](const ByteSink& sink) { sink(data, size); });
}

std::string WriteFileCopiesHashed(std::span<const fs::path> paths, const void* data, std::size_t size, bool hash_beside) {
  std::future<std::string> digest;  // (a std::async future: should a write throw, its destructor waits for the hash)
  if (hash_beside) {
    try {
      digest = std::async(std::launch::async, [data, size] { return Sha256Hex(data, size); });
    } catch (const std::system_error&) {
      // (no thread: hashed below)
    }
  }
  for (const fs::path& path : paths) WriteFileAtomic(path, data, size);
  return digest.valid() ? digest.get() : Sha256Hex(data, size);
}

void WriteFileAtomicStreamed(const fs::path& path, const std::function<void(const ByteSink&)>& produce) {
  std::string tmpl = HiddenSibling(path, ".tmp.XXXXXX").string();
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  // Inside a DirectorySyncScope (a staging directory published later by one rename) the file is
  // renamed as soon as it is written and fsynced by the scope's Sync(), before that rename.
  const bool deferred = InSyncScope(dir);
  int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);  // a held file is not inherited by sbatch & co
  if (fd < 0) throw TrainingError(path.string() + ": cannot create temporary file: " + ErrnoText());
  bool discarded = false;
  auto discard = [&] {
    if (discarded) return;
    discarded = true;
    ::close(fd);
    ::unlink(tmpl.c_str());
  };
  auto fail = [&](const std::string& what) {
    const std::string detail = ErrnoText();
    discard();
    return TrainingError(path.string() + ": " + what + ": " + detail);
  };
  // Write-back of each full MiB is started as the file grows (sync_file_range: a hint, its errors
  // are ignored), so that the fsync below waits for the last piece, not for the whole file.
  constexpr off_t kWritebackStep = off_t(1) << 20;
  off_t file_size = 0, started = 0;
  // At most 256 KiB a write(2): a larger one may make the kernel put the bytes in a page-cache folio
  // of 2 MiB, and on a Linux 6.18 VM with ext4 (which has large folios since 6.16) a 5.2 MB model
  // file took 10.8-11.4 ms written in one call and 1.2-1.3 ms in pieces of 256 KiB
  // (docs/performance.md, thirty-seventh round). Kernels without them lose nothing.
  constexpr std::size_t kMaxWrite = std::size_t(1) << 18;
  const ByteSink sink = [&](const void* data, std::size_t size) {
    const auto* bytes = static_cast<const char*>(data);
    std::size_t written = 0;
    while (written < size) {
      ssize_t n = ::write(fd, bytes + written, std::min(size - written, kMaxWrite));
      if (n < 0) {
        if (errno == EINTR) continue;
        throw fail("write failed");
      }
      written += static_cast<std::size_t>(n);
    }
    file_size += static_cast<off_t>(size);
    if (file_size - started >= kWritebackStep) {
      const off_t end = file_size - file_size % kWritebackStep;
      (void)::sync_file_range(fd, started, end - started, SYNC_FILE_RANGE_WRITE);
      started = end;
    }
  };
  try {
    produce(sink);
  } catch (...) {
    discard();
    throw;
  }
  if (::fchmod(fd, 0644) != 0) throw fail("chmod failed");
  if (deferred) {
    // The rest of the write-back starts now too: the scope's Sync() usually comes after other work
    // (hashing, re-estimation), which the disk then overlaps.
    if (file_size > started) (void)::sync_file_range(fd, started, 0, SYNC_FILE_RANGE_WRITE);
    if (::rename(tmpl.c_str(), path.c_str()) != 0) throw fail("rename into place failed");
    discarded = true;  // renamed: no temporary to remove any more
    bool taken = false;
    try {
      taken = DeferFileSync(dir, fd, path);
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (taken) return;
    // The scope ended meanwhile (another thread's): synced here after all.
    if (::fsync(fd) != 0) {
      const std::string detail = ErrnoText();
      ::close(fd);
      throw TrainingError(path.string() + ": fsync failed: " + detail);
    }
    if (::close(fd) != 0) throw TrainingError(path.string() + ": close failed: " + ErrnoText());
    SyncDirectory(dir);
    return;
  }
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
  SyncDirectory(dir);
}

void WriteFileAtomicPiped(const fs::path& path, const std::function<void(const ByteSink&)>& produce) {
  // 1 MiB in flight at most: at a large worker's end it adds to the peak memory (bw's 2x is the
  // bound), and 8 pieces of 128 KiB wrote as fast as 8 of 256 KiB (BM_ExactCountsWrite).
  constexpr std::size_t kPiece = std::size_t(1) << 17;
  PieceHandoff handoff(8, kPiece);
  const std::string what = path.string();
  std::future<void> written;
  try {
    written = StartPieceWriter(path, handoff, 0);
  } catch (const std::system_error&) {
    WriteFileAtomicStreamed(path, produce);
    return;
  }
  // The writer ends before this returns or throws.
  struct Finish {
    PieceHandoff& handoff;
    std::future<void>& written;
    ~Finish() {
      handoff.Finish(false);  // (no effect once finished complete)
      if (written.valid()) written.wait();
    }
  } finish{handoff, written};
  struct WriterStopped {};
  std::uint8_t* buffer = nullptr;
  std::size_t filled = 0;
  const ByteSink sink = [&](const void* data, std::size_t size) {
    const auto* bytes = static_cast<const std::uint8_t*>(data);
    while (size > 0) {
      if (buffer == nullptr) {
        buffer = handoff.NextBuffer();
        if (buffer == nullptr) throw WriterStopped{};
        filled = 0;
      }
      const std::size_t n = std::min(size, kPiece - filled);
      std::memcpy(buffer + filled, bytes, n);
      filled += n;
      bytes += n;
      size -= n;
      if (filled == kPiece) {
        handoff.Hand(filled);
        buffer = nullptr;
      }
    }
  };
  try {
    produce(sink);
    if (buffer != nullptr) handoff.Hand(filled);
  } catch (const WriterStopped&) {
    handoff.Finish(false);
    written.get();  // its error
    throw TrainingError(what + ": its writer stopped without an error");
  }
  handoff.Finish(true);
  written.get();
}

std::future<void> StartPieceWriter(const fs::path& path, PieceHandoff& handoff, std::size_t user, std::size_t offset) {
  return std::async(std::launch::async, [path, &handoff, user, offset] {
    const std::string what = path.string();
    try {
      WriteFileAtomicStreamed(path, [&](const ByteSink& sink) {
        handoff.UseEvery(user, what.c_str(), [&](std::span<const std::uint8_t> piece) { sink(piece.data() + offset, piece.size()); });
      });
    } catch (...) {
      handoff.Stop();  // (also when the file could not even be made: no piece was taken)
      throw;
    }
  });
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
  // Whatever was written under `staged` with its directory fsync deferred is made durable before
  // the rename that makes it visible.
  std::vector<DirectorySyncScope*> to_sync;
  {
    const fs::path normal = Normal(staged);
    std::lock_guard<std::mutex> lock(ScopeMutex());
    for (DirectorySyncScope* scope : ActiveScopes()) {
      if (IsWithin(scope->root(), normal)) to_sync.push_back(scope);
    }
  }
  for (DirectorySyncScope* scope : to_sync) scope->Sync();
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
