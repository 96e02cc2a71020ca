// libclang front end of `audit scope`: compile database lookup, parsing with diagnostics, and the
// isolated child process that bounds a parse's memory and time.
#include "scope/scope_frontend.h"

#include <clang-c/CXCompilationDatabase.h>
#include <boost/json.hpp>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <csignal>
#include <cstring>
#include <string_view>
#include <system_error>

#include "common/file_io.h"
#include "report/audit_error.h"

namespace pstrain::audit {

namespace fs = std::filesystem;

std::string Text(CXString s) {
  const char* c = clang_getCString(s);
  std::string out = c != nullptr ? c : "";
  clang_disposeString(s);
  return out;
}

std::vector<CXCursor> Children(CXCursor c) {
  std::vector<CXCursor> out;
  clang_visitChildren(
      c,
      [](CXCursor child, CXCursor, CXClientData data) {
        static_cast<std::vector<CXCursor>*>(data)->push_back(child);
        return CXChildVisit_Continue;
      },
      &out);
  return out;
}

namespace {

std::string Normal(const fs::path& p) {
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(p, ec);
  return (ec ? fs::absolute(p) : c).lexically_normal().string();
}

}  // namespace

std::vector<std::string> CompileArguments(const fs::path& compile_commands, const fs::path& source) {
  const std::string how =
      "produce it by configuring the build with CMake (CMAKE_EXPORT_COMPILE_COMMANDS is ON in this project: "
      "cmake -S . -B build), then pass --compile-commands build/compile_commands.json";
  std::error_code ec;
  fs::path file = compile_commands;
  if (fs::is_directory(file, ec)) file /= "compile_commands.json";
  if (file.filename() != "compile_commands.json") {
    throw AuditErrorIn(file.string(), "a compilation database must be named compile_commands.json; " + how);
  }
  if (!fs::is_regular_file(file, ec)) throw AuditErrorIn(file.string(), "no compilation database (compile_commands.json) here; " + how);
  CXCompilationDatabase_Error error = CXCompilationDatabase_NoError;
  CXCompilationDatabase db = clang_CompilationDatabase_fromDirectory(file.parent_path().string().c_str(), &error);
  if (error != CXCompilationDatabase_NoError || db == nullptr) {
    throw AuditErrorIn(file.string(), "cannot read the compilation database (not a JSON compilation database?); " + how);
  }
  const std::string wanted = Normal(source);
  CXCompileCommands commands = clang_CompilationDatabase_getCompileCommands(db, wanted.c_str());
  std::vector<std::string> args;
  bool found = false;
  const unsigned n = commands != nullptr ? clang_CompileCommands_getSize(commands) : 0;
  for (unsigned i = 0; i < n && !found; ++i) {
    CXCompileCommand command = clang_CompileCommands_getCommand(commands, i);
    const fs::path directory = Text(clang_CompileCommand_getDirectory(command));
    const fs::path entry_file = Text(clang_CompileCommand_getFilename(command));
    if (Normal(entry_file.is_absolute() ? entry_file : directory / entry_file) != wanted) continue;
    found = true;
    const unsigned argc = clang_CompileCommand_getNumArgs(command);
    for (unsigned a = 1; a < argc; ++a) {  // argument 0 is the compiler
      const std::string arg = Text(clang_CompileCommand_getArg(command, a));
      if (arg == "-o" || arg == "-MF" || arg == "-MT" || arg == "-MQ") {
        ++a;
        continue;
      }
      if (arg == "-c" || arg == "-MD" || arg == "-MMD") continue;
      const fs::path as_path = arg;
      if (!arg.empty() && arg[0] != '-' && Normal(as_path.is_absolute() ? as_path : directory / as_path) == wanted) continue;
      // Relative include directories are relative to the entry's directory.
      if (arg.size() > 2 && arg.compare(0, 2, "-I") == 0 && arg[2] != '/') {
        args.push_back("-I" + (directory / arg.substr(2)).string());
        continue;
      }
      args.push_back(arg);
    }
  }
  if (commands != nullptr) clang_CompileCommands_dispose(commands);
  clang_CompilationDatabase_dispose(db);
  if (!found) {
    throw AuditErrorIn(source.string(), "no entry in " + file.string() +
                                            " (a gate source must be compiled by the build: gates/CMakeLists.txt; "
                                            "reconfigure with CMake after adding it)");
  }
  // Only errors matter here; clang's own limits stay at their defaults, said explicitly.
  args.push_back("-w");
  args.push_back("-ferror-limit=20");
  args.push_back("-fbracket-depth=" + std::to_string(kClangBracketDepth));
  return args;
}

fs::path WriteCompileCommandsLike(const fs::path& compile_commands, const std::string& like, const fs::path& source,
                                  const fs::path& directory) {
  boost::json::value database;
  try {
    database = boost::json::parse(AsAuditError([&] { return ReadFileText(compile_commands); }));
  } catch (const boost::system::system_error& e) {
    throw AuditErrorIn(compile_commands.string(), std::string("not a JSON compilation database: ") + e.what());
  }
  if (const boost::json::array* entries = database.if_array()) {
    for (const boost::json::value& value : *entries) {
      const boost::json::object* entry = value.if_object();
      const boost::json::value* file = entry != nullptr ? entry->if_contains("file") : nullptr;
      if (file == nullptr || !file->is_string() || !std::string_view(file->get_string()).ends_with(like)) continue;
      const std::string original(file->get_string());
      boost::json::object copy = *entry;
      copy["file"] = source.string();
      // The source named in the command (or the arguments), replaced by `source`.
      if (const boost::json::value* command = entry->if_contains("command"); command != nullptr && command->is_string()) {
        std::string text(command->get_string());
        const std::size_t at = text.rfind(original);
        if (at == std::string::npos) continue;
        copy["command"] = text.replace(at, original.size(), source.string());
      } else if (const boost::json::value* arguments = entry->if_contains("arguments"); arguments != nullptr && arguments->is_array()) {
        boost::json::array replaced;
        for (const boost::json::value& a : arguments->get_array()) {
          replaced.push_back(a.is_string() && a.get_string() == original ? boost::json::value(source.string()) : a);
        }
        copy["arguments"] = std::move(replaced);
      } else {
        continue;
      }
      const fs::path out = directory / "compile_commands.json";
      WriteFileAtomic(out, boost::json::serialize(boost::json::array{copy}));
      return out;
    }
  }
  throw AuditErrorIn(compile_commands.string(), "has no entry for a file ending in " + like);
}

TranslationUnit::TranslationUnit(const fs::path& source, const std::vector<std::string>& arguments, const ParseMode& mode) {
  const bool with_pch = !mode.include_pch.empty();
  index_ = clang_createIndex(/*excludeDeclarationsFromPCH=*/with_pch ? 1 : 0, /*displayDiagnostics=*/0);
  std::vector<std::string> extra;
  if (mode.for_pch) extra = {"-x", "c++-header"};
  if (with_pch) extra = {"-include-pch", mode.include_pch.string()};
  std::vector<const char*> argv;
  for (const std::string& a : extra) argv.push_back(a.c_str());
  for (const std::string& a : arguments) argv.push_back(a.c_str());
  unsigned options = CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles;
  if (mode.single_file) options |= CXTranslationUnit_SingleFileParse;
  if (mode.for_pch) options |= CXTranslationUnit_Incomplete | CXTranslationUnit_ForSerialization;
  const std::string path = source.string();
  const CXErrorCode code =
      clang_parseTranslationUnit2(index_, path.c_str(), argv.data(), static_cast<int>(argv.size()), nullptr, 0, options, &unit_);
  if (code != CXError_Success || unit_ == nullptr) {
    clang_disposeIndex(index_);
    throw AuditErrorIn(path, code == CXError_Crashed
                                 ? "the C++ front end (libclang) stopped: it crashed or ran out of its " +
                                       std::to_string(kFrontEndMemoryBytes >> 30) + " GiB memory limit (deep nesting or a macro bomb?)"
                                 : "the C++ front end (libclang) could not parse it (error code " + std::to_string(code) + ")");
  }
  if (mode.single_file) return;
  std::string errors;
  std::size_t count = 0;
  const unsigned n = clang_getNumDiagnostics(unit_);
  for (unsigned i = 0; i < n; ++i) {
    CXDiagnostic d = clang_getDiagnostic(unit_, i);
    if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
      if (++count <= 10) errors += "\n  " + Text(clang_formatDiagnostic(d, clang_defaultDiagnosticDisplayOptions()));
    }
    clang_disposeDiagnostic(d);
  }
  if (count > 0) {
    clang_disposeTranslationUnit(unit_);
    clang_disposeIndex(index_);
    throw AuditErrorIn(path, "does not compile (" + std::to_string(count) + (count == 1 ? " error" : " errors") +
                                 " from the compiler front end):" + errors + (count > 10 ? "\n  ..." : ""));
  }
}

void TranslationUnit::Save(const fs::path& file) const {
  const int code = clang_saveTranslationUnit(unit_, file.string().c_str(), clang_defaultSaveOptions(unit_));
  if (code != CXSaveError_None) throw AuditErrorIn(file.string(), "libclang could not save the precompiled header (error " + std::to_string(code) + ")");
}

TranslationUnit::~TranslationUnit() {
  clang_disposeTranslationUnit(unit_);
  clang_disposeIndex(index_);
}

namespace {

// The process's address space now (the first field of /proc/self/statm, in pages); 0 if unknown.
std::uint64_t CurrentAddressSpaceBytes() {
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buffer[128] = {};
  const ssize_t n = ::read(fd, buffer, sizeof(buffer) - 1);
  ::close(fd);
  if (n <= 0) return 0;
  const unsigned long long pages = std::strtoull(buffer, nullptr, 10);
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

IsolatedJob StartIsolated(const std::string& what, const std::function<std::string()>& work) {
  int fds[2];
  if (::pipe(fds) != 0) throw AuditErrorIn(what, std::string("cannot create a pipe: ") + std::strerror(errno));
  // The auditor's only fork, and deliberately not report/child_process: that runner (Boost.Process)
  // starts another program (fork + exec), while this child runs `work`, a libclang parse, in a copy
  // of this process, so that a crash, a runaway allocation or an endless parse of a hostile source
  // (bounded below by RLIMIT_AS and RLIMIT_CPU, which must not apply to the auditor itself) stops
  // the child alone and reaches the parent as a signal (FinishIsolated) instead of killing `audit`.
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw AuditErrorIn(what, std::string("cannot fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    const rlim_t address_space = static_cast<rlim_t>(CurrentAddressSpaceBytes() + kFrontEndMemoryBytes);
    const rlimit memory{address_space, address_space};
    const rlimit cpu{kFrontEndCpuSeconds, kFrontEndCpuSeconds + 5};
    ::setrlimit(RLIMIT_AS, &memory);
    ::setrlimit(RLIMIT_CPU, &cpu);
    std::string out = "0";
    try {
      out += work();
    } catch (const std::exception& e) {
      out = "1";
      out += e.what();
    } catch (...) {
      out = "1unknown error";
    }
    for (std::size_t done = 0; done < out.size();) {
      const ssize_t w = ::write(fds[1], out.data() + done, out.size() - done);
      if (w <= 0) ::_exit(3);
      done += static_cast<std::size_t>(w);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  return {what, pid, fds[0]};
}

std::string FinishIsolated(const IsolatedJob& job) {
  std::string data;
  char buffer[65536];
  for (;;) {
    const ssize_t r = ::read(job.fd, buffer, sizeof buffer);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    data.append(buffer, static_cast<std::size_t>(r));
  }
  ::close(job.fd);
  int status = 0;
  while (::waitpid(job.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const std::string why = sig == SIGXCPU || sig == SIGKILL
                                ? "it exceeded the " + std::to_string(kFrontEndCpuSeconds) + " s CPU limit"
                                : "it crashed or exhausted its " + std::to_string(kFrontEndMemoryBytes >> 30) + " GiB memory limit";
    throw AuditErrorIn(job.what, "the C++ front end was stopped by signal " + std::to_string(sig) + " (" + strsignal(sig) +
                                     "): " + why + " (deep nesting or a macro bomb?)");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || data.empty()) {
    throw AuditErrorIn(job.what, "the C++ front end process failed (exit status " + std::to_string(WEXITSTATUS(status)) + ")");
  }
  if (data[0] == '1') throw AuditError(data.substr(1));
  return data.substr(1);
}

void AbandonIsolated(const IsolatedJob& job) {
  ::kill(job.pid, SIGKILL);
  ::close(job.fd);
  int status = 0;
  while (::waitpid(job.pid, &status, 0) < 0 && errno == EINTR) {
  }
}

std::string RunIsolated(const std::string& what, const std::function<std::string()>& work) {
  return FinishIsolated(StartIsolated(what, work));
}

}  // namespace pstrain::audit
