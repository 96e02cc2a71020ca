// SphinxTrain bw's -part/-npart and -nskip/-runlen: which control-file lines one bw run processes.
//
// bw counts the raw lines of the control file (comments and blank lines included), and Debian's
// bw (sphinxtrain 1.0.8+5prealpha) counts one fewer than the file has: C = lines - 1, measured on
// files of 5 to 9 and 93 lines, with and without a final newline (SphinxTrain's source reads as if
// it counted every line). With -part P -npart N (1 <= P <= N) each part gets floor(C / N) lines and
// the last part takes the rest of the file: part P starts at line (P-1)*floor(C/N). E.g. 93 lines
// in 3 parts: 30 + 30 + 33. -nskip K -runlen R (when both are given, they win over -part/-npart)
// skip K lines and process at most R of the rest (R < 0: to the end).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "shards/partition.h"

namespace pstrain {

// The raw-line range [begin, end) (0-based, end exclusive, clipped to n_lines) of part `part` of
// `npart` of a control file of `n_lines` raw lines. Requires 1 <= part <= npart.
ShardRange BwPartLines(std::size_t n_lines, std::uint32_t part, std::uint32_t npart);
// The raw-line range of -nskip `skip` -runlen `runlen` (nullopt runlen: to the end).
ShardRange BwSkipRunLines(std::size_t n_lines, std::size_t skip, std::optional<std::size_t> runlen);

}  // namespace pstrain
