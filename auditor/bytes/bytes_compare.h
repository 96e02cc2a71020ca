// `audit bytes`: the byte comparison of two files or directory trees (artifact or model trees).
// Walks both sides recursively in sorted (byte-wise) name order; symlinks are entries of their own
// and are never followed below the two command-line paths.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "report/audit_error.h"

namespace pstrain::audit {

// The project's telemetry rule (docs/contract.md, "telemetry.json" and "worker.stderr" rows and
// the byte-comparison rule): these files are not deterministic and are excluded from every byte
// comparison. `relative_path` uses '/' separators; only the file name matters.
bool IsTelemetryFile(const std::string& relative_path);

enum class EntryKind { kMissing, kFile, kDirectory, kSymlink, kOther };
const char* KindName(EntryKind kind);

// One side of a compared entry.
struct BytesSide {
  EntryKind kind = EntryKind::kMissing;
  std::uint64_t size = 0;     // regular files
  std::string sha256;         // regular files that differ (lower-case hex)
  std::string link_target;    // symlinks
};

enum class EntryStatus { kOnlyInA, kOnlyInB, kDifferent };
const char* StatusName(EntryStatus status);

// A path that is not identical on both sides. `path` is relative to the compared roots ('/'
// separators; "." when the roots themselves are files or of different kinds).
struct BytesEntry {
  std::string path;
  EntryStatus status = EntryStatus::kDifferent;
  BytesSide a, b;
  // Both regular files: the first offset at which they differ (the shorter size when one is a
  // prefix of the other).
  std::optional<std::uint64_t> first_difference;
  std::string reason;  // one line for people: "contents differ", "symlink in A, file in B", ...
};

struct BytesReport {
  std::string a, b;               // the roots as given
  bool ignore_telemetry = false;
  std::vector<BytesEntry> entries;  // not identical, in path order
  std::vector<std::string> identical;  // identical files and symlinks, in path order
  std::vector<std::string> ignored;    // telemetry files skipped (with --ignore-telemetry)

  std::size_t Count(EntryStatus status) const;
  bool Different() const { return !entries.empty(); }
};

// Compares `a` with `b`. The two roots are resolved if they are symlinks; everything below them is
// not. Throws AuditError (exit 2) for a path that is missing or cannot be read, naming the path.
BytesReport CompareBytes(const std::filesystem::path& a, const std::filesystem::path& b, bool ignore_telemetry);

// The first offset at which the two regular files differ, or nullopt when they are identical.
// Throws AuditError naming the file that cannot be read.
std::optional<std::uint64_t> FirstDifference(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace pstrain::audit
