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
#include "formats/mdef.h"
#include "shards/fallback_sidecar.h"
#include "shards/artifact_validator.h"
#include "shards/reducer.h"
#include "training/pass_summary.h"

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
  json::object summary;
  try {
    summary = json::parse(ReadFileText(pass_dir / "pass.json")).as_object();
    expected.pass = static_cast<std::uint32_t>(summary.at("pass").to_number<std::uint64_t>());
    expected.shard_count = static_cast<std::uint32_t>(summary.at("shard_count").to_number<std::uint64_t>());
    const json::object& fp = summary.at("fingerprints").as_object();
    expected.fingerprints = {std::string(fp.at("pass").as_string()), std::string(fp.at("model").as_string()),
                             std::string(fp.at("config").as_string()), std::string(fp.at("manifest").as_string())};
    for (const json::value& id : summary.at("utterance_ids").as_array()) expected.manifest_ids.emplace_back(id.as_string());
    mode = ParseReductionMode(std::string(summary.at("reduction").as_string()));
    if (summary.contains("multipron")) {
      expected.multipron = true;
      expected.n_tied_states = Mdef::Load((pass_dir / "model" / "mdef").string()).n_tied_state();
    }
    if (expected.shard_count == 0) throw std::runtime_error("shard_count is 0");
    summary.at("totals").at("total_log_likelihood_exact").as_string();
  } catch (const std::exception& error) {
    std::cerr << "pstrain validate: " << (pass_dir / "pass.json").string() << ": unreadable: " << error.what() << "\n";
    return 2;
  }
  try {
    const std::vector<ShardArtifact> artifacts = ValidatePass(pass_dir, expected);
    const ReducedPass reduced = ReducePass(pass_dir, artifacts, mode);
    const fs::path accum = pass_dir / "accum";
    // accum/ must be the reduction of the shards: the bw-format files (what norm reads) in both
    // modes, and the exact statistics in exact mode.
    const Accumulators stored = Accumulators::ReadBwFormat(accum.string());
    const GaudenCounts a = stored.ToGaudenCounts(), b = reduced.accumulators.ToGaudenCounts();
    bool same = a.pass2var == b.pass2var && a.mean == b.mean && a.var == b.var && a.dnom == b.dnom &&
                stored.ToMixwCounts().data == reduced.accumulators.ToMixwCounts().data &&
                stored.ToTmatCounts().data == reduced.accumulators.ToTmatCounts().data;
    if (same && mode == ReductionMode::kExact) same = ExactAccumulators::Read(accum.string()) == *reduced.exact;
    if (same && expected.multipron) same = ReadFileText(accum / kFallbackSidecarFile) == EncodeFallbackSidecar(reduced.fallback_senones);
    if (!same) {
      std::cout << "REJECTED " << pass_dir.string() << ": check \"reduction\" (" << accum.string()
                << "): the stored reduced statistics are not the reduction of the shard artifacts\n";
      return 1;
    }
    // pass.json's outcomes and totals must be what the artifacts say (exact fields only: JSON
    // doubles are for people).
    const json::object recomputed = OutcomeFields(artifacts, reduced);
    for (const char* key : {"utterance_ids", "processed_ids", "retried_ids", "skipped"}) {
      if (json::serialize(summary.at(key)) != json::serialize(recomputed.at(key))) {
        std::cout << "REJECTED " << pass_dir.string() << ": check \"pass-summary\" (" << (pass_dir / "pass.json").string()
                  << "): \"" << key << "\" does not match the shard artifacts\n";
        return 1;
      }
    }
    for (const char* key : {"utterances", "processed", "retried", "skipped", "total_frames", "total_log_likelihood_exact"}) {
      if (json::serialize(summary.at("totals").at(key)) != json::serialize(recomputed.at("totals").at(key))) {
        std::cout << "REJECTED " << pass_dir.string() << ": check \"pass-summary\" (" << (pass_dir / "pass.json").string()
                  << "): totals." << key << " does not match the shard artifacts\n";
        return 1;
      }
    }
    std::cout << "VALID " << pass_dir.string() << ": " << artifacts.size() << " shards, pass " << expected.pass << ", "
              << expected.manifest_ids.size() << " utterances\n";
    return 0;
  } catch (const ArtifactRejected& rejected) {
    std::cout << "REJECTED " << pass_dir.string() << ": " << rejected.what() << "\n";
    return 1;
  } catch (const std::exception& error) {
    std::cout << "REJECTED " << pass_dir.string() << ": check \"reduction\" (" << (pass_dir / "accum").string() << "): " << error.what() << "\n";
    return 1;
  }
}

}  // namespace pstrain::cli
