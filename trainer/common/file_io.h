// Whole-file reading and crash-safe writing.
//
// Every file pstrain produces goes through WriteFileAtomic (or, a second name of a file so written,
// LinkFileAtomic): the bytes are written to a temporary sibling, fsync'ed, renamed over the
// destination and the directory is fsync'ed, so a reader sees either the old file or the complete
// new one, never a half-written one. Inside a staging
// directory that is itself renamed into place, a DirectorySyncScope lets the files' and the
// directories' fsyncs wait until just before that rename, all together.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "common/piece_handoff.h"

struct stat;

namespace pstrain {

// Reads a whole file. Throws InputError naming the file when it cannot be opened or read.
std::vector<std::uint8_t> ReadFileBytes(const std::filesystem::path& path);
std::string ReadFileText(const std::filesystem::path& path);
// Reads a file that must be a regular file (symbolic links followed; a FIFO, device or directory is
// refused, opened without blocking), the size fstat gives. Throws InputError naming the file.
std::vector<std::uint8_t> ReadRegularFileBytes(const std::filesystem::path& path);
// Reads from `fd` into `out` until `n` bytes are read or the file ends (interrupted reads retried);
// returns how many were read, fewer than `n` only at the end. Throws InputError naming `path` on a
// read error.
std::size_t ReadUpTo(int fd, void* out, std::size_t n, const std::filesystem::path& path);
// A file that must be a regular file (opened as ReadRegularFileBytes opens it) read forward in
// pieces: its size is fstat's at open, and the reads give exactly that many bytes.
class RegularFileReader {
 public:
  explicit RegularFileReader(const std::filesystem::path& path);
  ~RegularFileReader();
  RegularFileReader(const RegularFileReader&) = delete;
  RegularFileReader& operator=(const RegularFileReader&) = delete;
  std::uint64_t size() const { return size_; }
  std::uint64_t left() const { return left_; }
  // Reads the next min(n, left()) bytes into `out` and returns their number. Throws InputError
  // naming the file on a read error or when the file ends early (it shrank).
  std::size_t Read(void* out, std::size_t n);

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::uint64_t left_ = 0;
};
// Reads a file that must be a regular file (not a symlink, FIFO, device or directory; opened without
// blocking) of at most `max_bytes`. Throws InputError naming the file and the reason otherwise.
std::string ReadRegularFileText(const std::filesystem::path& path, std::size_t max_bytes);
// Opens `path` read-only (close-on-exec) without blocking, and requires a regular file (fstat's
// status into `status`); with `no_follow`, a symbolic link is refused too. Throws InputError naming
// the file. The caller closes the descriptor.
int OpenRegularFile(const std::filesystem::path& path, bool no_follow, struct stat& status);

// PARENT/.NAME+suffix for PATH = PARENT/NAME: where a file or directory is staged before it is
// renamed into place (".tmp.XXXXXX", ".staging") or set aside (".old").
std::filesystem::path HiddenSibling(const std::filesystem::path& path, const std::string& suffix);

// Writes `size` bytes at `data` (or `bytes`, or `text`) to `path` atomically (temp file in the same
// directory, fsync, rename, fsync dir; inside a DirectorySyncScope the two fsyncs are the scope's).
// Throws TrainingError naming the file when any step fails; the temporary is removed on failure.
void WriteFileAtomic(const std::filesystem::path& path, const void* data, std::size_t size);
inline void WriteFileAtomic(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes) {
  WriteFileAtomic(path, bytes.data(), bytes.size());
}
inline void WriteFileAtomic(const std::filesystem::path& path, const std::string& text) {
  WriteFileAtomic(path, text.data(), text.size());
}

// Writes `size` bytes at `data` to each of `paths` in order (WriteFileAtomic) and returns their
// SHA-256 (hex). With `hash_beside` the digest is taken on a thread of its own while this one writes
// (here, after the writes, if no thread can be started): a large file written twice (a pass's model/
// and the final model's staging copy) is then done in about the time of its writes instead of its
// writes and its hash. A write's error propagates once the hash has ended.
std::string WriteFileCopiesHashed(std::span<const std::filesystem::path> paths, const void* data, std::size_t size, bool hash_beside);

// The same for a file written piece by piece, so that a large one need not be held in memory:
// `produce` calls its argument with each piece in order. An exception from `produce` removes the
// temporary and propagates; `path` is then untouched.
using ByteSink = std::function<void(const void* data, std::size_t size)>;
void WriteFileAtomicStreamed(const std::filesystem::path& path, const std::function<void(const ByteSink&)>& produce);
// The same with the writes on a thread of their own: `produce` runs on this thread, its bytes
// copied into 8 buffers of 128 KiB that the other thread writes (PieceHandoff), so that a
// producer's own work (encoding, hashing) and the writes overlap. The writer's error (its file not
// made, a failed write or rename) is what this throws, also when it stops `produce` part-way; an
// exception from `produce` removes the temporary as above. Without a thread, WriteFileAtomicStreamed.
void WriteFileAtomicPiped(const std::filesystem::path& path, const std::function<void(const ByteSink&)>& produce);
// The writing thread of both: `path` written (WriteFileAtomicStreamed) from every piece that user
// `user` takes from `handoff`, each piece's bytes from `offset` on. Any error of it, its file not
// even made included, stops the handoff, so that the maker never waits for a thread that has ended.
// Throws std::system_error when no thread can be started.
std::future<void> StartPieceWriter(const std::filesystem::path& path, PieceHandoff& handoff, std::size_t user, std::size_t offset = 0);

// `path` made a second name of the file `existing` (a hard link: the same bytes, not a copy; of a
// symbolic link, the link itself), replacing a file there in one step (linked under a hidden name
// beside it, then renamed; no hidden name is left, also when `path` already was such a name).
// The new directory entry is made durable as WriteFileAtomic's (by the DirectorySyncScope that
// contains its directory, or at once); the bytes are durable when whoever wrote them made them so.
// Returns false, with nothing created, when the file system refuses the link (EPERM, EXDEV, EMLINK,
// ENOTSUP); throws TrainingError naming `path` on any other failure.
bool LinkFileAtomic(const std::filesystem::path& existing, const std::filesystem::path& path);

// fsyncs a directory so that renames inside it are durable.
void SyncDirectory(const std::filesystem::path& dir);

// While a scope lives, WriteFileAtomic of a file in `root` or below it still writes and renames
// the file, but hands the scope the open file to fsync and records its directory instead of
// fsyncing either; Sync() then starts write-back of every recorded file, fsyncs them (on up to four
// threads: fsyncs waiting at the same time share the device's flushes), then every recorded
// directory and each of its parents up to `root` (deepest first), once each. Use it for a staging
// directory that becomes visible only by a rename: ReplaceDirectory(root, ...) calls Sync() before
// its rename, so when the rename is durable every file under root is too, as with an fsync per file
// and per directory. A scope that ends without Sync() (an exception) fsyncs nothing (it closes the
// files it holds): its staging directory is never renamed into place. The innermost scope
// containing a file's directory (the one with the longest root) takes it. Scopes are per process
// (the registry is guarded by a mutex); files may be written into one scope from several threads,
// but Sync() (and ReplaceDirectory of its root) must not run while any of them still writes.
// Sync() may run more than once: each takes the files and directories handed over since the last
// (a file handed over after the last Sync() would only be closed, unsynced, when the scope ends).
class DirectorySyncScope;
// When SyncExistingFiles (below) makes files durable.
enum class ExistingFilesSync { kNow, kWithScope };
// Records `dir` with the innermost DirectorySyncScope containing it and returns true, or returns
// false when none does (WriteFileAtomic then fsyncs `dir` itself).
bool DeferDirectorySync(const std::filesystem::path& dir);

class DirectorySyncScope {
 public:
  explicit DirectorySyncScope(const std::filesystem::path& root);
  ~DirectorySyncScope();
  DirectorySyncScope(const DirectorySyncScope&) = delete;
  DirectorySyncScope& operator=(const DirectorySyncScope&) = delete;

  const std::filesystem::path& root() const { return root_; }
  // fsyncs the recorded files, then the recorded directories, their parents up to root, and root
  // itself. Throws TrainingError naming the file or directory whose fsync failed.
  void Sync();

 private:
  friend bool DeferDirectorySync(const std::filesystem::path& dir);
  friend bool DeferFileSync(const std::filesystem::path& dir, int fd, const std::filesystem::path& path);
  friend void SyncExistingFiles(const std::filesystem::path& dir, ExistingFilesSync when);
  struct PendingFile {
    int fd;
    std::filesystem::path path;
  };
  std::filesystem::path root_;         // absolute, lexically normal
  std::set<std::filesystem::path> pending_;
  std::vector<PendingFile> files_;     // open, written and renamed, not yet fsynced
  // Files others wrote (SyncExistingFiles), opened again only for their fsync in Sync(): a
  // pass of many shards holds no descriptor for them meanwhile.
  std::vector<std::filesystem::path> existing_;
};

// Hands `fd` (open on the file `path`, written and renamed into `dir`) to the innermost scope
// containing `dir`, which fsyncs and closes it in Sync() (or only closes it if it ends without),
// and records `dir` as DeferDirectorySync does; returns false, `fd` untouched, when none does.
bool DeferFileSync(const std::filesystem::path& dir, int fd, const std::filesystem::path& path);

// Makes every regular file directly in `dir` (symbolic links and subdirectories left alone) and
// `dir` itself durable: for files another process wrote into `dir` and left unsynced (a local
// shard worker's, which shares this machine's page cache). kNow fsyncs them and `dir` at once.
// kWithScope starts each file's write-back now and hands them and `dir` to the innermost
// DirectorySyncScope containing `dir`, whose Sync() opens each again to fsync it with its own files
// (without such a scope: as kNow). Throws TrainingError naming the file or directory that cannot be
// opened or fsynced.
void SyncExistingFiles(const std::filesystem::path& dir, ExistingFilesSync when);

// Replaces directory `dest` by directory `staged` (both in the same parent) in one atomic step:
// renameat2(RENAME_EXCHANGE) when `dest` exists (then the previous directory, now under the staged
// name, is removed), a non-replacing rename when it does not. A crash at any point leaves `dest`
// complete: the previous directory or the new one, never neither. Calls RecoverDirectory first.
void ReplaceDirectory(const std::filesystem::path& staged, const std::filesystem::path& dest);

// Repairs what the earlier two-step swap (dest -> .NAME.old, staged -> dest) may have left: when
// `dest` is missing and .NAME.old exists, .NAME.old is renamed back to `dest` (the only complete
// copy is never deleted); when both exist, .NAME.old is removed.
void RecoverDirectory(const std::filesystem::path& dest);

}  // namespace pstrain
