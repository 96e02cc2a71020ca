// `pstrain validate RUNDIR/passes/NNN`: re-runs the artifact validation of a finished pass, and
// checks that the pass's reduced statistics are the reduction of its shards and that pass.json
// agrees with the artifacts (coordinator/finished_pass.h, shared with `audit mutate`).
// Exit 0 valid, 1 rejected (reason printed), 2 unreadable.
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "common/error.h"
#include "coordinator/finished_pass.h"

namespace pstrain::cli {

namespace fs = std::filesystem;

int RunValidate(int argc, char** argv) {
  if (argc != 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << "usage: pstrain validate RUNDIR/passes/NNN\n"
                 "Re-runs the validation of every shard artifact of a finished pass (coverage, outcomes, frames,\n"
                 "fingerprints, code identity, payload sizes, headers and SHA-256) against its pass.json and checks\n"
                 "that accum/ is their reduction.\n"
                 "Exit status: 0 valid, 1 rejected (the reason is printed), 2 unreadable.\n";
    return argc == 2 ? 0 : 2;
  }
  const fs::path pass_dir(argv[1]);
  FinishedPass pass;
  try {
    pass = ReadFinishedPass(pass_dir);
  } catch (const InputError& error) {
    std::cerr << "pstrain validate: " << error.what() << "\n";
    return 2;
  }
  try {
    const std::vector<ShardArtifact> artifacts = ValidateFinishedPass(pass_dir, pass);
    std::cout << "VALID " << pass_dir.string() << ": " << artifacts.size() << " shards, pass " << pass.expected.pass << ", "
              << pass.expected.manifest_ids.size() << " utterances\n";
    return 0;
  } catch (const ArtifactRejected& rejected) {
    std::cout << "REJECTED " << pass_dir.string() << ": " << rejected.what() << "\n";
    return 1;
  } catch (const PassRejected& rejected) {
    std::cout << "REJECTED " << pass_dir.string() << ": " << rejected.what() << "\n";
    return 1;
  } catch (const std::exception& error) {
    // ValidatePass's other errors (a shard count of 0, a file system error): rejected, as before.
    std::cout << "REJECTED " << pass_dir.string() << ": " << error.what() << "\n";
    return 1;
  }
}

}  // namespace pstrain::cli
