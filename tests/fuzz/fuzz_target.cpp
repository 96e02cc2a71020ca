// The shared helpers of the fuzz targets (fuzz_target.h): scratch files and property checks.
#include "fuzz_target.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace pstrain::fuzz {

namespace fs = std::filesystem;

namespace {

fs::path MakeScratchDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/pstrain-fuzz-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("fuzz: cannot create a scratch directory " + pattern);
  return pattern;
}

struct Scratch {
  fs::path dir = MakeScratchDir();
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

}  // namespace

const fs::path& ScratchDir() {
  static const Scratch scratch;
  return scratch.dir;
}

fs::path WriteScratch(const fs::path& relative, const std::uint8_t* data, std::size_t size) {
  const fs::path path = ScratchDir() / relative;
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) throw std::runtime_error("fuzz: cannot write " + path.string());
  return path;
}

void Require(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "fuzz: property violated: %s\n", what);
  std::abort();
}

}  // namespace pstrain::fuzz
