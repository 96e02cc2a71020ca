// Fuzz target: a C++ gate source as audit scope reads it (auditor/scope/scope_extractor.h
// ExtractFileScope: libclang in a child process with bounded memory and time, then the walk of its
// AST). The input is written as a gate source, compiled with the flags the build's compilation
// database gives gates/fixed_count_gate.cpp.
#include "fuzz_target.h"

#include <boost/json.hpp>
#include <fstream>
#include <stdexcept>
#include <string>

#include "common/file_io.h"
#include "scope/scope_extractor.h"

namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

// ScratchDir()/compile_commands.json with one entry, for ScratchDir()/gates/fuzz_gate.cpp.
const fs::path& Database() {
  static const fs::path database = [] {
    const json::value real = json::parse(pstrain::ReadFileText(PSTRAIN_COMPILE_COMMANDS));
    const fs::path source = pstrain::fuzz::ScratchDir() / "gates" / "fuzz_gate.cpp";
    for (const json::value& entry : real.as_array()) {
      const std::string file(entry.at("file").as_string());
      if (!file.ends_with("gates/fixed_count_gate.cpp")) continue;
      std::string command(entry.at("command").as_string());
      const std::size_t at = command.rfind(file);
      if (at == std::string::npos) break;
      command.replace(at, file.size(), source.string());
      json::array out{json::object{{"directory", entry.at("directory")}, {"command", command}, {"file", source.string()}}};
      const fs::path path = pstrain::fuzz::ScratchDir() / "compile_commands.json";
      std::ofstream(path) << json::serialize(out);
      return path;
    }
    throw std::runtime_error(std::string(PSTRAIN_COMPILE_COMMANDS) + " has no entry for gates/fixed_count_gate.cpp");
  }();
  return database;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path& database = Database();
  const fs::path source = pstrain::fuzz::WriteScratch("gates/fuzz_gate.cpp", data, size);
  pstrain::fuzz::ExpectOnlyInputErrors(
      [&] { pstrain::audit::ExtractFileScope(source, database, "gates/fuzz_gate.cpp", source.parent_path()); });
  return 0;
}
