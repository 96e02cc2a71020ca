// Splitting a line of a text model file (mdef) into its whitespace-separated tokens, eight bytes at
// a time.
#pragma once

#include <string_view>
#include <vector>

namespace pstrain {

// `tokens` = the tokens of `line`, as `std::istream >> std::string` reads them in the classic
// locale: maximal runs of bytes other than ' ', '\t', '\n', '\v', '\f' and '\r' (any other byte,
// NUL and bytes above 0x7f included, belongs to a token). Views into `line`.
//
// The whitespace of eight bytes is found at once from their bits (no branch per byte): on a tied
// CD mdef's 15,323 rows, a byte loop's mispredicted branch at each token's two ends was most of the
// parse (docs/performance.md, twenty-sixth round).
void SplitWhitespace(std::string_view line, std::vector<std::string_view>& tokens);

}  // namespace pstrain
