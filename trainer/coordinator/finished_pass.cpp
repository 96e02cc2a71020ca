// Reading and validating a finished pass directory (coordinator/finished_pass.h).
#include "coordinator/finished_pass.h"

#include <boost/json.hpp>
#include <limits>

#include "accumulators/exact_accumulators.h"
#include "common/file_io.h"
#include "formats/mdef.h"
#include "shards/fallback_sidecar.h"
#include "shards/artifact.h"
#include "shards/reducer.h"
#include "coordinator/pass_runner.h"
#include "coordinator/pass_summary.h"

namespace pstrain {

namespace fs = std::filesystem;
namespace json = boost::json;

PassRejected::PassRejected(std::string check, std::string file, const std::string& detail)
    : TrainingError("check \"" + check + "\" (" + file + "): " + detail), check_(std::move(check)), file_(std::move(file)) {}

FinishedPass ReadFinishedPass(const fs::path& pass_dir) {
  const fs::path path = pass_dir / kPassFileName;
  FinishedPass pass;
  pass.file = ReadPassFile(path);  // bounded, strict, integers range-checked; names the field
  const PassFile& file = pass.file;
  try {
    PassExpectation& expected = pass.expected;
    expected.pass = file.pass;
    const std::uint64_t shard_count = file.shard_count;
    if (shard_count == 0) throw std::runtime_error("shard_count is 0");
    const std::size_t utterances = file.outcomes.utterance_ids.size();
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
    expected.shard_count = file.shard_count;
    expected.fingerprints = file.fingerprints;
    // The build that ran the pass, which every shard must match (not the validating binary's: a
    // finished pass stays valid when pstrain is rebuilt).
    expected.code_identity = file.code_identity;
    expected.manifest_ids = file.outcomes.utterance_ids;
    pass.reduction = ParseReductionMode(file.reduction);
    // A multipron pass (its pass.json has the "multipron" object) has the activation sidecar in
    // every shard, sized for the tied states of the pass's model (the mdef never changes).
    if (file.multipron) {
      expected.multipron = true;
      expected.n_tied_states = Mdef::Load((pass_dir / "model" / "mdef").string()).n_tied_state();
    }
    // The pass's statistics have its model's shape (re-estimation keeps every dimension).
    expected.statistics_shape = StatisticsShapeOf(pass_dir / "model");
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
    const Accumulators reduced_view = DoubleView(reduced);
    const GaudenCounts a = stored.ToGaudenCounts(), b = reduced_view.ToGaudenCounts();
    bool same = a.pass2var == b.pass2var && a.mean == b.mean && a.var == b.var && a.dnom == b.dnom &&
                stored.ToMixwCounts().data == reduced_view.ToMixwCounts().data &&
                stored.ToTmatCounts().data == reduced_view.ToTmatCounts().data;
    if (same && pass.reduction == ReductionMode::kExact) same = ExactAccumulators::Read(accum.string()) == *reduced.exact;
    if (same && pass.expected.multipron) {
      same = ReadFileText(accum / kFallbackSidecarFile) == EncodeFallbackSidecar(reduced.fallback_senones);
    }
    if (!same) throw PassRejected("reduction", accum.string(), "the stored reduced statistics are not the reduction of the shard artifacts");
    // pass.json's outcomes and totals must be what the artifacts say (exact fields only: JSON
    // doubles are for people).
    const fs::path summary_path = pass_dir / kPassFileName;
    const PassOutcomes recomputed = OutcomesFrom(artifacts, reduced);
    const PassOutcomes& stored_outcomes = pass.file.outcomes;
    auto mismatch = [&](const std::string& field) {
      throw PassRejected("pass-summary", summary_path.string(), "\"" + field + "\" does not match the shard artifacts");
    };
    if (stored_outcomes.utterance_ids != recomputed.utterance_ids) mismatch("utterance_ids");
    if (stored_outcomes.processed_ids != recomputed.processed_ids) mismatch("processed_ids");
    if (stored_outcomes.retried_ids != recomputed.retried_ids) mismatch("retried_ids");
    if (stored_outcomes.skipped != recomputed.skipped) mismatch("skipped");
    const PassTotals &stored_totals = stored_outcomes.totals, &totals = recomputed.totals;
    auto total_mismatch = [&](const char* key) {
      throw PassRejected("pass-summary", summary_path.string(), "totals." + std::string(key) + " does not match the shard artifacts");
    };
    if (stored_totals.utterances != totals.utterances) total_mismatch("utterances");
    if (stored_totals.processed != totals.processed) total_mismatch("processed");
    if (stored_totals.retried != totals.retried) total_mismatch("retried");
    if (stored_totals.skipped != totals.skipped) total_mismatch("skipped");
    if (stored_totals.total_frames != totals.total_frames) total_mismatch("total_frames");
    if (stored_totals.total_log_likelihood_exact != totals.total_log_likelihood_exact) total_mismatch("total_log_likelihood_exact");
  } catch (const PassRejected&) {
    throw;
  } catch (const std::exception& error) {
    throw PassRejected("reduction", accum.string(), error.what());
  }
  return artifacts;
}

}  // namespace pstrain
