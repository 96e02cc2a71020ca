// Cutting a manifest into contiguous shards.
#include "shards/partition.h"

#include <algorithm>

namespace pstrain {

std::uint32_t EffectiveShardCount(std::uint32_t requested, std::size_t n_utterances) {
  const std::size_t capped = std::min<std::size_t>(requested, n_utterances);
  return static_cast<std::uint32_t>(std::max<std::size_t>(capped, 1));
}

ShardRange ShardOf(std::uint32_t shard, std::uint32_t shard_count, std::size_t n_utterances) {
  const std::uint64_t u = n_utterances;  // u * (shard + 1) <= u * u: no overflow below 2^32 utterances
  return ShardRange{static_cast<std::size_t>(u * shard / shard_count), static_cast<std::size_t>(u * (shard + 1) / shard_count)};
}

}  // namespace pstrain
