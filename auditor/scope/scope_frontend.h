// The compiler front end of `audit scope`: libclang (LLVM 14's C API) parses a gate source with the
// flags its compile_commands.json entry gives, in a child process with bounded memory and time.
#pragma once

#include <clang-c/Index.h>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace pstrain::audit {

// Limits of one front-end run (one gate source). The child process that parses the source is
// killed beyond them and `audit scope` exits 2 naming the file and the limit.
// Address space the child may add to what it has at the fork (RLIMIT_AS is set to that plus this
// much: under AddressSanitizer the process already holds terabytes of reserved shadow, which an
// absolute limit would leave no room beside).
inline constexpr std::size_t kFrontEndMemoryBytes = std::size_t{2} << 30;
inline constexpr unsigned kFrontEndCpuSeconds = 120;                        // CPU time (RLIMIT_CPU)
inline constexpr std::size_t kMaxAstDepth = 400;  // nesting of the auditor's own walk over the AST
inline constexpr unsigned kClangBracketDepth = 256;  // clang's -fbracket-depth (its default)

// The arguments (without the compiler and the source) of `source`'s entry in the compilation
// database `compile_commands` (a compile_commands.json file). Throws AuditError naming the
// database and how to produce it when it is missing, and naming the source when it has no entry.
std::vector<std::string> CompileArguments(const std::filesystem::path& compile_commands,
                                          const std::filesystem::path& source);

// Writes `directory`/compile_commands.json with one entry: `source` compiled with the flags of the
// entry in `compile_commands` whose file ends with `like` (e.g. "gates/fixed_count_gate.cpp").
// For gate sources written outside the build (unit tests, the fuzz target of the front end).
// Returns the file written. Throws AuditError naming the database when it cannot be read or has
// no such entry (and the trainer's WriteFileAtomic error when the file cannot be written).
std::filesystem::path WriteCompileCommandsLike(const std::filesystem::path& compile_commands, const std::string& like,
                                               const std::filesystem::path& source, const std::filesystem::path& directory);

// How a translation unit is parsed.
struct ParseMode {
  // A precompiled header (scope_pch.h) loaded before the source (-include-pch); its declarations
  // are not visited as the unit's own. Empty: none.
  std::filesystem::path include_pch;
  // Only the source itself, its #include directives not followed (errors are expected and not
  // reported): enough to read the source's own tokens.
  bool single_file = false;
  // `source` is a header to be saved as a precompiled header (TranslationUnit::Save).
  bool for_pch = false;
};

// A parsed translation unit (owns its index).
class TranslationUnit {
 public:
  // Parses `source` with `arguments`. Throws AuditError with the compiler's diagnostics
  // ("FILE:LINE:COL: error: ...") when the source does not compile.
  TranslationUnit(const std::filesystem::path& source, const std::vector<std::string>& arguments, const ParseMode& mode = {});
  ~TranslationUnit();
  TranslationUnit(const TranslationUnit&) = delete;
  TranslationUnit& operator=(const TranslationUnit&) = delete;

  CXTranslationUnit get() const { return unit_; }
  CXCursor cursor() const { return clang_getTranslationUnitCursor(unit_); }
  // Writes the unit (parsed with ParseMode::for_pch) as a precompiled header; throws
  // AuditError when libclang cannot.
  void Save(const std::filesystem::path& file) const;

 private:
  CXIndex index_ = nullptr;
  CXTranslationUnit unit_ = nullptr;
};

// Runs `work` in a forked child process under kFrontEndMemoryBytes and kFrontEndCpuSeconds and
// returns what it returned. An exception in the child is rethrown here as AuditError with
// its message; a child killed by a signal (memory or time limit, a crash of the front end) throws
// AuditError naming `what` and the signal.
std::string RunIsolated(const std::string& what, const std::function<std::string()>& work);

// The same in two steps, so that several sources parse at once: StartIsolated forks the child,
// FinishIsolated collects its result (or throws as above), AbandonIsolated kills it.
struct IsolatedJob {
  std::string what;
  int pid = -1;
  int fd = -1;
};
IsolatedJob StartIsolated(const std::string& what, const std::function<std::string()>& work);
std::string FinishIsolated(const IsolatedJob& job);
void AbandonIsolated(const IsolatedJob& job);

// libclang helpers.
std::string Text(CXString s);  // takes ownership
std::vector<CXCursor> Children(CXCursor c);

}  // namespace pstrain::audit
