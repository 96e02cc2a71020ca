// SphinxTrain bw's -part/-npart and -nskip/-runlen: which control-file lines one bw run processes.
//
// bw counts every raw line of the control file (comments and blank lines included). With
// -part P -npart N (1 <= P <= N) each part gets floor(lines / N) lines and the last part also takes
// the remainder: part P starts at line (P-1)*floor(lines/N) and parts P < N stop after
// floor(lines/N) lines. -nskip K -runlen R (when both are given, they win over -part/-npart) skip K
// lines and process at most R of the rest (R < 0: to the end). Checked against the Debian bw binary
// (5 lines, 2 parts: 2 + 3) and SphinxTrain's source.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "shards/partition.h"

namespace pstrain {

// The raw-line range [begin, end) (0-based, end exclusive, clipped to n_lines) of part `part` of
// `npart`. Requires 1 <= part <= npart.
ShardRange BwPartLines(std::size_t n_lines, std::uint32_t part, std::uint32_t npart);
// The raw-line range of -nskip `skip` -runlen `runlen` (nullopt runlen: to the end).
ShardRange BwSkipRunLines(std::size_t n_lines, std::size_t skip, std::optional<std::size_t> runlen);

}  // namespace pstrain
