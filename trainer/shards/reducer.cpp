#include "shards/reducer.h"

#include "common/error.h"

namespace pstrain {

ReducedPass ReducePass(const std::filesystem::path& pass_dir, const std::vector<ShardArtifact>& artifacts, ReductionMode mode) {
  if (artifacts.empty()) throw TrainingError(pass_dir.string() + ": no shard artifacts to reduce");
  ReducedPass reduced;
  for (std::size_t shard = 0; shard < artifacts.size(); ++shard) {
    const ShardArtifact& artifact = artifacts[shard];
    const std::string dir = (pass_dir / ShardDirName(static_cast<std::uint32_t>(shard))).string();
    FixedPoint log_likelihood = 0;
    FixedFromHex(artifact.log_likelihood_exact, log_likelihood);  // validated before
    reduced.log_likelihood.Add(ExactSum::FromFixedValue(log_likelihood), "log-likelihood total");
    reduced.total_frames += artifact.total_frames;
    if (mode == ReductionMode::kExact) {
      ExactAccumulators shard_stats = ExactAccumulators::Read(dir);
      if (!reduced.exact) reduced.exact = std::move(shard_stats);
      else reduced.exact->Add(shard_stats, dir);
    } else {
      const Accumulators shard_stats = Accumulators::ReadBwFormat(dir);
      if (shard == 0) reduced.accumulators = shard_stats;
      else reduced.accumulators.AddInFloat32(shard_stats, dir);
    }
  }
  if (reduced.exact) reduced.accumulators = reduced.exact->ToAccumulators();
  return reduced;
}

}  // namespace pstrain
