// Small in-memory model parts for the unit tests that build a model by hand.
#pragma once

#include <cstdint>
#include <random>

#include "formats/param_files.h"
#include "model/acoustic_model.h"

namespace pstrain::testing {

// n_tmat left-to-right transition matrices of n_emit emitting states: each state stays with
// probability 0.5 and moves to the next with 0.5 (the last one to the exit state); no skips.
Array3D LinearTransitionMatrices(std::uint32_t n_tmat, std::uint32_t n_emit);

// A one-Gaussian model (an4_ci_cont) widened to `n_density` Gaussians per senone, each a
// perturbed copy of the original (density 0 keeps the original mean), with unequal mixture weights.
ModelFiles WidenedModel(const ModelFiles& one, std::uint32_t n_density, std::mt19937& rng);

}  // namespace pstrain::testing
