// SphinxTrain bw's control-file partition rule (see bw_partition.h).
#include "shards/bw_partition.h"

#include <algorithm>

namespace pstrain {

ShardRange BwPartLines(std::size_t n_lines, std::uint32_t part, std::uint32_t npart) {
  const std::size_t counted = n_lines == 0 ? 0 : n_lines - 1;  // what Debian's bw counts (see the header)
  const std::size_t run_len = counted / npart;
  const std::size_t begin = std::min(n_lines, std::size_t(part - 1) * run_len);
  const std::size_t end = part == npart ? n_lines : std::min(n_lines, begin + run_len);
  return {begin, end};
}

ShardRange BwSkipRunLines(std::size_t n_lines, std::size_t skip, std::optional<std::size_t> runlen) {
  const std::size_t begin = std::min(n_lines, skip);
  const std::size_t end = runlen ? std::min(n_lines, begin + *runlen) : n_lines;
  return {begin, end};
}

}  // namespace pstrain
