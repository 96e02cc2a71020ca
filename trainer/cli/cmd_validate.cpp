// `pstrain validate RUNDIR/passes/NNN`: re-runs the artifact validation of a finished pass, and
// checks that the pass's reduced statistics are the reduction of its shards.
// Exit 0 valid, 1 rejected (reason printed), 2 unreadable.
#include <boost/json.hpp>
#include <filesystem>
#include <iostream>

#include "accumulators/exact_accumulators.h"
#include "cli/commands.h"
#include "common/error.h"
#include "common/file_io.h"
#include "shards/artifact_validator.h"
#include "shards/reducer.h"

namespace pstrain::cli {

namespace fs = std::filesystem;
namespace json = boost::json;

int RunValidate(int argc, char** argv) {
  if (argc != 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << "usage: pstrain validate RUNDIR/passes/NNN\n"
                 "Re-runs the validation of every shard artifact of a finished pass (coverage, outcomes, frames,\n"
                 "fingerprints, payload sizes, headers and SHA-256) and checks that accum/ is their reduction.\n"
                 "Exit status: 0 valid, 1 rejected (the reason is printed), 2 unreadable.\n";
    return argc == 2 ? 0 : 2;
  }
  const fs::path pass_dir(argv[1]);
  PassExpectation expected;
  ReductionMode mode;
  try {
    const json::value summary = json::parse(ReadFileText(pass_dir / "pass.json"));
    expected.pass = static_cast<std::uint32_t>(summary.at("pass").to_number<std::uint64_t>());
    expected.shard_count = static_cast<std::uint32_t>(summary.at("shard_count").to_number<std::uint64_t>());
    const json::object& fp = summary.at("fingerprints").as_object();
    expected.fingerprints = {std::string(fp.at("pass").as_string()), std::string(fp.at("model").as_string()),
                             std::string(fp.at("config").as_string()), std::string(fp.at("manifest").as_string())};
    for (const json::value& id : summary.at("utterance_ids").as_array()) expected.manifest_ids.emplace_back(id.as_string());
    mode = ParseReductionMode(std::string(summary.at("reduction").as_string()));
  } catch (const std::exception& error) {
    std::cerr << "pstrain validate: " << (pass_dir / "pass.json").string() << ": unreadable: " << error.what() << "\n";
    return 2;
  }
  try {
    const std::vector<ShardArtifact> artifacts = ValidatePass(pass_dir, expected);
    const ReducedPass reduced = ReducePass(pass_dir, artifacts, mode);
    const fs::path accum = pass_dir / "accum";
    bool same;
    if (mode == ReductionMode::kExact) {
      same = ExactAccumulators::Read(accum.string()) == *reduced.exact;
    } else {
      // float32 mode keeps no exact file: compare the float32 values as written.
      const Accumulators stored = Accumulators::ReadBwFormat(accum.string());
      const GaudenCounts a = stored.ToGaudenCounts(), b = reduced.accumulators.ToGaudenCounts();
      same = a.mean == b.mean && a.var == b.var && a.dnom == b.dnom &&
             stored.ToMixwCounts().data == reduced.accumulators.ToMixwCounts().data &&
             stored.ToTmatCounts().data == reduced.accumulators.ToTmatCounts().data;
    }
    if (!same) {
      std::cout << "REJECTED " << pass_dir.string() << ": check \"reduction\" (" << accum.string()
                << "): the stored reduced statistics are not the reduction of the shard artifacts\n";
      return 1;
    }
    std::cout << "VALID " << pass_dir.string() << ": " << artifacts.size() << " shards, pass " << expected.pass << ", "
              << expected.manifest_ids.size() << " utterances\n";
    return 0;
  } catch (const ArtifactRejected& rejected) {
    std::cout << "REJECTED " << pass_dir.string() << ": " << rejected.what() << "\n";
    return 1;
  } catch (const InputError& error) {
    std::cout << "REJECTED " << pass_dir.string() << ": " << error.what() << "\n";
    return 1;
  }
}

}  // namespace pstrain::cli
