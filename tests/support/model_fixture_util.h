// Small in-memory model parts for the unit tests that build a model by hand.
#pragma once

#include <cstdint>

#include "formats/param_files.h"

namespace pstrain::testing {

// n_tmat left-to-right transition matrices of n_emit emitting states: each state stays with
// probability 0.5 and moves to the next with 0.5 (the last one to the exit state); no skips.
Array3D LinearTransitionMatrices(std::uint32_t n_tmat, std::uint32_t n_emit);

}  // namespace pstrain::testing
