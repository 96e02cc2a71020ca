// WorkDir: a command's scratch directory, made or checked and removed (report/work_dir.h).
#include "report/work_dir.h"

#include <stdlib.h>

#include <system_error>

#include "report/audit_error.h"

namespace pstrain::audit {

namespace fs = std::filesystem;

WorkDir::WorkDir(const std::optional<std::string>& given, Given rule, const std::string& prefix, bool keep) : keep_(keep) {
  if (given) {
    path_ = *given;
    std::error_code ec;
    if (rule == Given::kMustBeEmpty && fs::exists(fs::symlink_status(path_, ec)) && (!fs::is_directory(path_, ec) || !fs::is_empty(path_, ec))) {
      throw AuditError(path_.string() + ": --work-dir is not empty (the command works only in an empty or new directory, since it "
                       "removes what it creates there)");
    }
    fs::create_directories(path_, ec);
    if (ec) throw AuditError(path_.string() + ": cannot create the work directory: " + ec.message());
    return;
  }
  std::string pattern = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) throw AuditError(pattern + ": cannot create a work directory");
  path_ = pattern;
  created_ = true;
}

WorkDir::~WorkDir() {
  if (created_ && !keep_) {
    std::error_code ec;
    fs::remove_all(path_, ec);  // best effort: a destructor does not throw
  }
}

}  // namespace pstrain::audit
