// The scratch directory of a command that runs things and removes what it made (`audit mutate`,
// `audit characterize`): either one it creates under $TMPDIR and removes afterwards, or the user's
// --work-dir, which is never removed (and, for a command that removes what it makes inside it, must
// be new or empty, so that it can never remove what it did not make).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace pstrain::audit {

class WorkDir {
 public:
  enum class Given { kMayHoldFiles, kMustBeEmpty };
  // `given`: the user's --work-dir (created when missing; with kMustBeEmpty, AuditError when it
  // exists and is not an empty directory). Otherwise a new $TMPDIR/PREFIX-XXXXXX, removed by the
  // destructor unless `keep`.
  WorkDir(const std::optional<std::string>& given, Given rule, const std::string& prefix, bool keep);
  ~WorkDir();  // removes the directory this object created, unless kept
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  bool created() const { return created_; }  // made by this object (not the user's --work-dir)
  bool kept() const { return keep_; }

 private:
  std::filesystem::path path_;
  bool created_ = false;
  bool keep_ = false;
};

}  // namespace pstrain::audit
