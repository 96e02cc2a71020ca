// Fuzz target: a finished pass's pass.json (coordinator/finished_pass.h ReadFinishedPass, which
// reads PASS_DIR/pass.json: written to a scratch pass directory).
#include "fuzz_target.h"
#include "coordinator/finished_pass.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path path = pstrain::fuzz::WriteScratch("passes/001/pass.json", data, size);
  pstrain::fuzz::ExpectOnlyInputErrors([&] { pstrain::ReadFinishedPass(path.parent_path()); });
  return 0;
}
