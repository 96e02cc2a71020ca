// Fuzz target: a C++ gate source as audit scope reads it (auditor/scope/scope_extractor.h
// ExtractFileScope: libclang in a child process with bounded memory and time, then the walk of its
// AST). The input is written as a gate source, compiled with the flags the build's compilation
// database gives gates/fixed_count_gate.cpp.
#include "audit_fuzz_target.h"

#include <string>

#include "scope/scope_extractor.h"
#include "scope/scope_frontend.h"

namespace {

namespace fs = std::filesystem;

// ScratchDir()/compile_commands.json with one entry, for ScratchDir()/gates/fuzz_gate.cpp.
const fs::path& Database() {
  static const fs::path database = pstrain::audit::WriteCompileCommandsLike(
      PSTRAIN_COMPILE_COMMANDS, "gates/fixed_count_gate.cpp", pstrain::fuzz::ScratchDir() / "gates" / "fuzz_gate.cpp",
      pstrain::fuzz::ScratchDir());
  return database;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path& database = Database();
  const fs::path source = pstrain::fuzz::WriteScratch("gates/fuzz_gate.cpp", data, size);
  pstrain::fuzz::ExpectOnlyAuditErrors(
      [&] { pstrain::audit::ExtractFileScope(source, database, "gates/fuzz_gate.cpp", source.parent_path()); });
  return 0;
}
