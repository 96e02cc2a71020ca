// How a manifest of U utterances is cut into shards.
//
// Shard i of N gets the contiguous range [floor(i*U/N), floor((i+1)*U/N)): sizes differ by at most
// one and the longer shards are spread out. (Debian bw's -part/-npart rule, which the `bw`
// front end follows, is in shards/bw_partition.h.) The effective shard count is the requested
// job count capped at U, so that no shard is empty.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pstrain {

struct ShardRange {
  std::size_t begin = 0;
  std::size_t end = 0;  // exclusive
};

// min(requested, n_utterances), at least 1.
std::uint32_t EffectiveShardCount(std::uint32_t requested, std::size_t n_utterances);
ShardRange ShardOf(std::uint32_t shard, std::uint32_t shard_count, std::size_t n_utterances);

}  // namespace pstrain
