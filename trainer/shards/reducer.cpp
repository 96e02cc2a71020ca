// Reducing a validated pass: the shards' statistics summed in ascending shard id.
#include "shards/reducer.h"

#include "common/error.h"
#include "common/file_io.h"
#include "shards/fallback_sidecar.h"

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
    const bool has_sidecar = !artifact.payload.empty() && artifact.payload.back().name == kFallbackSidecarFile;
    if (has_sidecar) {
      const std::filesystem::path path = std::filesystem::path(dir) / kFallbackSidecarFile;
      const std::string bytes = ReadFileText(path);
      // Validated against the model before; re-decoded here (the count is what follows the header)
      // and required to agree across shards.
      std::vector<std::uint8_t> flags;
      const std::size_t header_end = bytes.find('\n', bytes.find('\n') + 1);
      const std::uint32_t count = header_end == std::string::npos ? 0 : static_cast<std::uint32_t>(bytes.size() - header_end - 1);
      if (auto problem = DecodeFallbackSidecar(bytes, count, flags)) {
        throw TrainingError(path.string() + ": " + problem->detail + " (" + problem->check + ")");
      }
      if (shard == 0) reduced.fallback_senones = flags;
      if (flags.size() != reduced.fallback_senones.size()) {
        throw TrainingError(path.string() + ": " + std::to_string(flags.size()) + " tied states, shard 0 has " +
                            std::to_string(reduced.fallback_senones.size()));
      }
      for (std::size_t i = 0; i < flags.size(); ++i) reduced.fallback_senones[i] |= flags[i];
    }
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
  return reduced;
}

void WriteReducedStatistics(const ReducedPass& reduced, const std::filesystem::path& dir) {
  if (reduced.exact) reduced.exact->Write(dir.string());
  else reduced.accumulators.Write(dir.string());
  if (!reduced.fallback_senones.empty()) WriteFileAtomic(dir / kFallbackSidecarFile, EncodeFallbackSidecar(reduced.fallback_senones));
}

Accumulators DoubleView(const ReducedPass& reduced) {
  return reduced.exact ? reduced.exact->ToAccumulators() : reduced.accumulators;
}

Accumulators ReleaseForReestimation(ReducedPass& reduced) {
  if (!reduced.exact) return std::move(reduced.accumulators);
  Accumulators view = reduced.exact->ToAccumulators();
  reduced.exact.reset();
  return view;
}

}  // namespace pstrain
