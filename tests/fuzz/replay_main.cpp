// The replay driver of the default build: runs every file of the given corpus and crash
// directories through the target's LLVMFuzzerTestOneInput, as libFuzzer would run one input, so
// that the checked-in seeds and every crash input ever found stay regression tests (docs/fuzzing.md).
//
//   <name>_replay DIR...   every regular file under each DIR (recursively, sorted; names starting
//                          with '.' skipped). Exit 0 when all ran; 1 when a directory is missing or
//                          no input was found. A crashing input aborts with its path on stderr.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

std::string current_input;

[[noreturn]] void OnTerminate() {
  std::fprintf(stderr, "replay: input %s ended in an uncaught exception", current_input.c_str());
  if (const std::exception_ptr error = std::current_exception()) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      std::fprintf(stderr, ": %s", e.what());
    } catch (...) {
    }
  }
  std::fprintf(stderr, "\n");
  std::abort();
}

}  // namespace

int main(int argc, char** argv) {
  std::set_terminate(OnTerminate);
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path dir = argv[i];
    if (!fs::is_directory(dir)) {
      std::fprintf(stderr, "replay: %s is not a directory\n", argv[i]);
      return 1;
    }
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(dir)) {
      if (entry.is_regular_file() && entry.path().filename().string().front() != '.') inputs.push_back(entry.path());
    }
  }
  std::sort(inputs.begin(), inputs.end());
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no input found (a target's seed corpus must not be empty)\n");
    return 1;
  }
  for (const fs::path& path : inputs) {
    current_input = path.string();
    std::ifstream in(path, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.eof() && in.fail()) {
      std::fprintf(stderr, "replay: cannot read %s\n", current_input.c_str());
      return 1;
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("replay: %zu inputs ran without a crash\n", inputs.size());
  return 0;
}
