// Code file stamps: what a process that hashed its binary for its build identity
// (provenance/provenance.h) knows of that file: its stat stamp (device, inode, size, modification
// and status-change times) and its SHA-256. A worker process started by the local launcher is
// handed the coordinator's stamp; if its own binary has the identical stamp (the very file the
// coordinator hashed, not modified since: a write changes the status-change time, which no user can
// set, and a running binary cannot be opened for writing at all), it takes the coordinator's digest
// instead of reading and hashing the file again. Anything else (another file, a modified one, a file
// on a file system this kernel does not keep the times of, no stamp) is hashed, as without stamps.
// Never written to a deterministic file: stamps carry inode numbers and times.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pstrain {

struct CodeFileStamp {
  std::string path;  // as the process names it: "/proc/self/exe", or a library's mapped path
  std::uint64_t device = 0, inode = 0, size = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  std::string sha256;
  bool operator==(const CodeFileStamp&) const = default;
};

// The environment variable the local launcher passes its workers' stamps in.
inline constexpr const char* kCodeFileStampsVariable = "PSTRAIN_CODE_FILE_STAMPS";

// The SHA-256 of `path`. A stamp in `known` for the same path with the file's current stat stamp
// gives its digest without reading the file. Otherwise the file is hashed, and when `stamp_out` is
// given and the file's stamp was the same before and after the hashing and its times are at least
// `settle_ns` in the past (a file written that recently could change again within one tick of the
// file system's clock without its stamp changing), *stamp_out is set to its stamp. A file on a file
// system other than ext2/3/4, XFS, Btrfs, tmpfs or overlayfs has no stamp: always hashed, never
// stamped. Throws as Sha256OfFile does.
std::string FileDigestWithStamp(const std::string& path, const std::vector<CodeFileStamp>& known,
                                std::optional<CodeFileStamp>* stamp_out, std::int64_t settle_ns = 2'000'000'000);

// One line per stamp: "SHA256 DEVICE INODE SIZE MTIME_NS CTIME_NS PATH\n" (paths with a newline are
// left out). Decode accepts exactly that (the last newline may be missing); anything malformed
// gives no stamps at all.
std::string EncodeCodeFileStamps(const std::vector<CodeFileStamp>& stamps);
std::vector<CodeFileStamp> DecodeCodeFileStamps(std::string_view text);

}  // namespace pstrain
