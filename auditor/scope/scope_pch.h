// The shared precompiled header of `audit scope`: the system headers that the gate sources compiled
// with the same flags all open with (GoogleTest, the standard library), parsed once per run instead
// of once per source. It only stands in for headers a source includes itself, first.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "scope/scope_frontend.h"

namespace pstrain::audit {

// The angled #include directives that open `file` of `unit` before any other token (comments do
// not count), as written: {"gtest/gtest.h", "string"}. Stops at the first other token (a quoted
// include, another directive, code).
std::vector<std::string> LeadingAngledIncludes(const TranslationUnit& unit, const std::string& file);

// Whether `headers` (a shared precompiled header's) are all among the leading angled includes of
// `file` in `unit`: then loading them first changes nothing but the order of system headers that
// the file includes before anything else.
bool LeadingIncludesCover(const TranslationUnit& unit, const std::string& file, const std::vector<std::string>& headers);

struct SharedPch {
  std::filesystem::path file;        // the precompiled header
  std::vector<std::string> headers;  // the system headers it holds, in order
  std::vector<bool> applies;         // per source of the group: it opens with all of `headers`
};

// The shared precompiled header of `sources`, which all compile with `arguments`: the headers
// that every source opening with angled includes opens with, kept when each is a system header
// (found on a system include path). Written into `dir`. nullopt when fewer than two sources
// would use it or it would be empty. Reads the sources' first lines only (a single-file parse);
// runs in the calling process (run it isolated). Throws AuditError when libclang cannot
// build or save it.
std::optional<SharedPch> BuildSharedPch(const std::vector<std::filesystem::path>& sources,
                                        const std::vector<std::string>& arguments, const std::filesystem::path& dir);

// Through the child process's pipe.
std::string SharedPchToJson(const std::optional<SharedPch>& pch);
std::optional<SharedPch> SharedPchFromJson(const std::string& text);

// A directory under the system's temporary directory, removed with everything in it when the
// object goes.
class TemporaryDirectory {
 public:
  explicit TemporaryDirectory(const std::string& prefix);
  ~TemporaryDirectory();
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace pstrain::audit
