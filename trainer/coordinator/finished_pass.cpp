// Reading and re-validating a finished pass (`pstrain validate`, `audit mutate`).
#include "coordinator/finished_pass.h"

#include <boost/json.hpp>
#include <limits>

#include "accumulators/exact_accumulators.h"
#include "common/file_io.h"
#include "formats/mdef.h"
#include "shards/fallback_sidecar.h"
#include "shards/artifact.h"
#include "shards/reducer.h"
#include "coordinator/pass_summary.h"

namespace pstrain {

namespace fs = std::filesystem;
namespace json = boost::json;

PassRejected::PassRejected(std::string check, std::string file, const std::string& detail)
    : TrainingError("check \"" + check + "\" (" + file + "): " + detail), check_(std::move(check)), file_(std::move(file)) {}

FinishedPass ReadFinishedPass(const fs::path& pass_dir) {
  const fs::path path = pass_dir / "pass.json";
  FinishedPass pass;
  try {
    // The checks artifact.json has: a regular file (a FIFO neither blocks nor /dev/zero reads
    // without bound) of at most kMaxArtifactJsonBytes.
    pass.summary = json::parse(ReadRegularFileText(path, kMaxArtifactJsonBytes)).as_object();
    const json::object& summary = pass.summary;
    PassExpectation& expected = pass.expected;
    // Integers are range-checked before use, never truncated.
    const std::uint64_t pass_number = summary.at("pass").to_number<std::uint64_t>();
    if (pass_number == 0 || pass_number > std::numeric_limits<std::uint32_t>::max()) {
      throw std::runtime_error("pass " + std::to_string(pass_number) + " is out of range (1.." +
                               std::to_string(std::numeric_limits<std::uint32_t>::max()) + ")");
    }
    expected.pass = static_cast<std::uint32_t>(pass_number);
    const std::uint64_t shard_count = summary.at("shard_count").to_number<std::uint64_t>();
    if (shard_count == 0) throw std::runtime_error("shard_count is 0");
    const std::size_t utterances = summary.at("utterance_ids").as_array().size();
    if (shard_count > utterances) {
      throw std::runtime_error("shard_count " + std::to_string(shard_count) + " is more than the " + std::to_string(utterances) +
                               " utterances (every shard has at least one)");
    }
    // Bounded by what the pass directory holds too: one entry per shard at least (counted up to
    // shard_count, so a huge directory is not listed in full).
    std::uint64_t entries = 0;
    for (auto it = fs::directory_iterator(pass_dir); it != fs::directory_iterator() && entries < shard_count; ++it) ++entries;
    if (shard_count > entries) {
      throw std::runtime_error("shard_count " + std::to_string(shard_count) + " is more than the " + std::to_string(entries) +
                               " entries of the pass directory");
    }
    expected.shard_count = static_cast<std::uint32_t>(shard_count);
    const json::object& fp = summary.at("fingerprints").as_object();
    expected.fingerprints = {std::string(fp.at("pass").as_string()), std::string(fp.at("model").as_string()),
                             std::string(fp.at("config").as_string()), std::string(fp.at("manifest").as_string())};
    // The build that ran the pass, which every shard must match (not the validating binary's: a
    // finished pass stays valid when pstrain is rebuilt).
    expected.code_identity = std::string(summary.at("code_identity").as_string());
    for (const json::value& id : summary.at("utterance_ids").as_array()) expected.manifest_ids.emplace_back(id.as_string());
    pass.reduction = ParseReductionMode(std::string(summary.at("reduction").as_string()));
    // A multipron pass (its pass.json has the "multipron" object) has the activation sidecar in
    // every shard, sized for the tied states of the pass's model (the mdef never changes).
    if (summary.contains("multipron")) {
      expected.multipron = true;
      expected.n_tied_states = Mdef::Load((pass_dir / "model" / "mdef").string()).n_tied_state();
    }
    summary.at("totals").at("total_log_likelihood_exact").as_string();
  } catch (const std::exception& error) {
    throw InputError(path.string() + ": unreadable: " + error.what());
  }
  return pass;
}

std::vector<ShardArtifact> ValidateFinishedPass(const fs::path& pass_dir, const FinishedPass& pass) {
  const std::vector<ShardArtifact> artifacts = ValidatePass(pass_dir, pass.expected);
  const fs::path accum = pass_dir / "accum";
  try {
    const ReducedPass reduced = ReducePass(pass_dir, artifacts, pass.reduction);
    // accum/ must be the reduction of the shards: the bw-format files (what norm reads) in both
    // modes, and the exact statistics in exact mode.
    const Accumulators stored = Accumulators::ReadBwFormat(accum.string());
    const GaudenCounts a = stored.ToGaudenCounts(), b = reduced.accumulators.ToGaudenCounts();
    bool same = a.pass2var == b.pass2var && a.mean == b.mean && a.var == b.var && a.dnom == b.dnom &&
                stored.ToMixwCounts().data == reduced.accumulators.ToMixwCounts().data &&
                stored.ToTmatCounts().data == reduced.accumulators.ToTmatCounts().data;
    if (same && pass.reduction == ReductionMode::kExact) same = ExactAccumulators::Read(accum.string()) == *reduced.exact;
    if (same && pass.expected.multipron) {
      same = ReadFileText(accum / kFallbackSidecarFile) == EncodeFallbackSidecar(reduced.fallback_senones);
    }
    if (!same) throw PassRejected("reduction", accum.string(), "the stored reduced statistics are not the reduction of the shard artifacts");
    // pass.json's outcomes and totals must be what the artifacts say (exact fields only: JSON
    // doubles are for people).
    const fs::path summary_path = pass_dir / "pass.json";
    const json::object recomputed = OutcomeFields(artifacts, reduced);
    for (const char* key : {"utterance_ids", "processed_ids", "retried_ids", "skipped"}) {
      if (json::serialize(pass.summary.at(key)) != json::serialize(recomputed.at(key))) {
        throw PassRejected("pass-summary", summary_path.string(), "\"" + std::string(key) + "\" does not match the shard artifacts");
      }
    }
    for (const char* key : {"utterances", "processed", "retried", "skipped", "total_frames", "total_log_likelihood_exact"}) {
      if (json::serialize(pass.summary.at("totals").at(key)) != json::serialize(recomputed.at("totals").at(key))) {
        throw PassRejected("pass-summary", summary_path.string(), "totals." + std::string(key) + " does not match the shard artifacts");
      }
    }
  } catch (const PassRejected&) {
    throw;
  } catch (const std::exception& error) {
    throw PassRejected("reduction", accum.string(), error.what());
  }
  return artifacts;
}

}  // namespace pstrain
