// `audit bytes`: walking two files or trees and comparing them byte by byte (telemetry apart).
#include "bytes/bytes_compare.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <system_error>
#include <vector>

#include "common/sha256.h"

namespace pstrain::audit {

namespace fs = std::filesystem;

bool IsTelemetryFile(const std::string& relative_path) {
  // docs/contract.md: `telemetry.json` (PIDs, times, CPU), `worker.stderr` (worker output) and,
  // with the Slurm launcher, everything in a pass's `slurm/` directory (job ids, node names, task
  // output) are not deterministic and are excluded from every byte comparison. Keep this rule in
  // step with it.
  const std::size_t slash = relative_path.rfind('/');
  const std::string name = slash == std::string::npos ? relative_path : relative_path.substr(slash + 1);
  if (name == "telemetry.json" || name == "worker.stderr") return true;
  if (slash == std::string::npos) return false;
  // A directory component named "slurm" (the last component is the file itself).
  for (std::size_t begin = 0; begin < slash;) {
    std::size_t end = relative_path.find('/', begin);
    if (relative_path.compare(begin, end - begin, "slurm") == 0) return true;
    begin = end + 1;
  }
  return false;
}

const char* KindName(EntryKind kind) {
  switch (kind) {
    case EntryKind::kMissing: return "missing";
    case EntryKind::kFile: return "file";
    case EntryKind::kDirectory: return "directory";
    case EntryKind::kSymlink: return "symlink";
    case EntryKind::kOther: return "other";
  }
  return "other";
}

const char* StatusName(EntryStatus status) {
  switch (status) {
    case EntryStatus::kOnlyInA: return "only in A";
    case EntryStatus::kOnlyInB: return "only in B";
    case EntryStatus::kDifferent: return "different";
  }
  return "different";
}

std::size_t BytesReport::Count(EntryStatus status) const {
  return static_cast<std::size_t>(
      std::count_if(entries.begin(), entries.end(), [status](const BytesEntry& e) { return e.status == status; }));
}

namespace {

EntryKind KindOf(const fs::file_status& status) {
  switch (status.type()) {
    case fs::file_type::not_found: return EntryKind::kMissing;
    case fs::file_type::regular: return EntryKind::kFile;
    case fs::file_type::directory: return EntryKind::kDirectory;
    case fs::file_type::symlink: return EntryKind::kSymlink;
    default: return EntryKind::kOther;
  }
}

// The kind of `path` without following a final symlink (`follow` for the two roots).
EntryKind KindAt(const fs::path& path, bool follow) {
  std::error_code ec;
  const fs::file_status status = follow ? fs::status(path, ec) : fs::symlink_status(path, ec);
  if (ec && status.type() != fs::file_type::not_found) {
    throw AuditError(path.string() + ": cannot examine (" + ec.message() + ")");
  }
  return KindOf(status);
}

std::vector<std::string> SortedChildren(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) throw AuditError(dir.string() + ": cannot read directory (" + ec.message() + ")");
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    names.push_back(it->path().filename().string());
  }
  if (ec) throw AuditError(dir.string() + ": cannot read directory (" + ec.message() + ")");
  std::sort(names.begin(), names.end());  // byte order: no dependence on the directory's order
  return names;
}

std::uint64_t SizeOf(const fs::path& path) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw AuditError(path.string() + ": cannot read size (" + ec.message() + ")");
  return size;
}

std::string Sha(const fs::path& path) {
  try {
    return Sha256OfFile(path);
  } catch (const std::exception& e) {
    throw AuditError(e.what());
  }
}

std::string LinkTarget(const fs::path& path) {
  std::error_code ec;
  const fs::path target = fs::read_symlink(path, ec);
  if (ec) throw AuditError(path.string() + ": cannot read symlink (" + ec.message() + ")");
  return target.string();
}

std::string Join(const std::string& rel, const std::string& name) { return rel.empty() ? name : rel + "/" + name; }
std::string Shown(const std::string& rel) { return rel.empty() ? "." : rel; }

class Walker {
 public:
  Walker(fs::path a, fs::path b, BytesReport& report) : a_(std::move(a)), b_(std::move(b)), report_(report) {}

  // Compares `rel` (relative path, "" for the roots) on both sides, given its kinds.
  void Compare(const std::string& rel, EntryKind ka, EntryKind kb) {
    const fs::path pa = rel.empty() ? a_ : a_ / rel, pb = rel.empty() ? b_ : b_ / rel;
    // A FIFO, socket or device has no content to compare (reading a FIFO could block forever):
    // trouble (exit 2) naming the path, on either side and also when the other side lacks it.
    if (ka == EntryKind::kOther) RefuseOther(pa, rel.empty());
    if (kb == EntryKind::kOther) RefuseOther(pb, rel.empty());
    if (ka == EntryKind::kMissing || kb == EntryKind::kMissing) {
      OnlyOnOneSide(rel, ka == EntryKind::kMissing ? pb : pa, ka == EntryKind::kMissing ? kb : ka,
                    ka == EntryKind::kMissing ? EntryStatus::kOnlyInB : EntryStatus::kOnlyInA);
      return;
    }
    if (ka == EntryKind::kDirectory && kb == EntryKind::kDirectory) {
      const std::vector<std::string> na = SortedChildren(pa), nb = SortedChildren(pb);
      std::set<std::string> names(na.begin(), na.end());
      names.insert(nb.begin(), nb.end());
      for (const std::string& name : names) {
        const bool in_a = std::binary_search(na.begin(), na.end(), name);
        const bool in_b = std::binary_search(nb.begin(), nb.end(), name);
        Compare(Join(rel, name), in_a ? KindAt(pa / name, false) : EntryKind::kMissing,
                in_b ? KindAt(pb / name, false) : EntryKind::kMissing);
      }
      return;
    }
    if (Ignored(rel, ka, kb)) return;
    BytesEntry entry;
    entry.path = Shown(rel);
    entry.status = EntryStatus::kDifferent;
    entry.a = Describe(pa, ka);
    entry.b = Describe(pb, kb);
    if (ka != kb) {
      entry.reason = std::string(KindName(ka)) + " in A, " + KindName(kb) + " in B";
      if (ka == EntryKind::kFile) entry.a.sha256 = Sha(pa);
      if (kb == EntryKind::kFile) entry.b.sha256 = Sha(pb);
      report_.entries.push_back(std::move(entry));
      return;
    }
    if (ka == EntryKind::kSymlink) {
      if (entry.a.link_target == entry.b.link_target) {
        report_.identical.push_back(Shown(rel));
        return;
      }
      entry.reason = "symlink targets differ";
      report_.entries.push_back(std::move(entry));
      return;
    }
    const std::optional<std::uint64_t> offset = FirstDifference(pa, pb);
    if (!offset) {
      report_.identical.push_back(Shown(rel));
      return;
    }
    entry.first_difference = offset;
    entry.a.sha256 = Sha(pa);
    entry.b.sha256 = Sha(pb);
    entry.reason = entry.a.size == entry.b.size ? "contents differ"
                   : *offset == std::min(entry.a.size, entry.b.size)
                       ? (entry.a.size < entry.b.size ? "A is a prefix of B" : "B is a prefix of A")
                       : "contents and sizes differ";
    report_.entries.push_back(std::move(entry));
  }

 private:
  [[noreturn]] static void RefuseOther(const fs::path& path, bool root) {
    std::error_code ec;
    const fs::file_type type = (root ? fs::status(path, ec) : fs::symlink_status(path, ec)).type();
    const char* what = type == fs::file_type::fifo        ? "a FIFO"
                       : type == fs::file_type::socket    ? "a socket"
                       : type == fs::file_type::block     ? "a block device"
                       : type == fs::file_type::character ? "a character device"
                                                          : "of an unknown file type";
    throw AuditError(path.string() + ": " + what + ", not a regular file, directory or symlink; cannot compare");
  }

  BytesSide Describe(const fs::path& path, EntryKind kind) {
    BytesSide side;
    side.kind = kind;
    if (kind == EntryKind::kFile) side.size = SizeOf(path);
    if (kind == EntryKind::kSymlink) side.link_target = LinkTarget(path);
    return side;
  }

  // Telemetry files (either side not a directory) are skipped with --ignore-telemetry.
  bool Ignored(const std::string& rel, EntryKind ka, EntryKind kb) {
    if (!report_.ignore_telemetry || ka == EntryKind::kDirectory || kb == EntryKind::kDirectory) return false;
    if (!IsTelemetryFile(rel)) return false;
    report_.ignored.push_back(Shown(rel));
    return true;
  }

  // Lists everything below an entry present on one side only: every non-directory entry, and
  // empty directories as themselves.
  void OnlyOnOneSide(const std::string& rel, const fs::path& path, EntryKind kind, EntryStatus status) {
    if (kind == EntryKind::kOther) RefuseOther(path, rel.empty());
    if (kind == EntryKind::kDirectory) {
      const std::vector<std::string> names = SortedChildren(path);
      if (!names.empty()) {
        for (const std::string& name : names) {
          OnlyOnOneSide(Join(rel, name), path / name, KindAt(path / name, false), status);
        }
        return;
      }
    }
    const bool side_a = status == EntryStatus::kOnlyInA;
    if (Ignored(rel, side_a ? kind : EntryKind::kMissing, side_a ? EntryKind::kMissing : kind)) return;
    BytesEntry entry;
    entry.path = Shown(rel);
    entry.status = status;
    BytesSide side = Describe(path, kind);
    if (kind == EntryKind::kFile) side.sha256 = Sha(path);
    (side_a ? entry.a : entry.b) = std::move(side);
    entry.reason = std::string(KindName(kind)) + (side_a ? " only in A" : " only in B");
    report_.entries.push_back(std::move(entry));
  }

  fs::path a_, b_;
  BytesReport& report_;
};

}  // namespace

std::optional<std::uint64_t> FirstDifference(const fs::path& a, const fs::path& b) {
  std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
  if (!fa) throw AuditError(a.string() + ": cannot open for reading");
  if (!fb) throw AuditError(b.string() + ": cannot open for reading");
  constexpr std::size_t kChunk = 1 << 16;
  std::vector<char> ba(kChunk), bb(kChunk);
  std::uint64_t offset = 0;
  for (;;) {
    fa.read(ba.data(), kChunk);
    fb.read(bb.data(), kChunk);
    if (fa.bad()) throw AuditError(a.string() + ": read error");
    if (fb.bad()) throw AuditError(b.string() + ": read error");
    const std::size_t ga = static_cast<std::size_t>(fa.gcount()), gb = static_cast<std::size_t>(fb.gcount());
    const std::size_t common = std::min(ga, gb);
    const auto mismatch = std::mismatch(ba.begin(), ba.begin() + static_cast<std::ptrdiff_t>(common), bb.begin());
    if (mismatch.first != ba.begin() + static_cast<std::ptrdiff_t>(common)) {
      return offset + static_cast<std::uint64_t>(mismatch.first - ba.begin());
    }
    if (ga != gb) return offset + common;  // one file ended: the shorter size
    if (ga == 0) return std::nullopt;
    offset += ga;
  }
}

BytesReport CompareBytes(const fs::path& a, const fs::path& b, bool ignore_telemetry) {
  BytesReport report;
  report.a = a.string();
  report.b = b.string();
  report.ignore_telemetry = ignore_telemetry;
  const EntryKind ka = KindAt(a, true), kb = KindAt(b, true);
  if (ka == EntryKind::kMissing) throw AuditError(a.string() + ": no such file or directory");
  if (kb == EntryKind::kMissing) throw AuditError(b.string() + ": no such file or directory");
  Walker(a, b, report).Compare("", ka, kb);
  return report;
}

}  // namespace pstrain::audit
