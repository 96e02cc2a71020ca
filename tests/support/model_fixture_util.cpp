// The hand-built model parts of model_fixture_util.h.
#include "support/model_fixture_util.h"

#include <vector>

namespace pstrain::testing {

Array3D LinearTransitionMatrices(std::uint32_t n_tmat, std::uint32_t n_emit) {
  Array3D tmats{n_tmat, n_emit, n_emit + 1, std::vector<float>(std::size_t(n_tmat) * n_emit * (n_emit + 1), 0.0f)};
  for (std::uint32_t tmat = 0; tmat < n_tmat; ++tmat) {
    for (std::uint32_t from = 0; from < n_emit; ++from) {
      tmats.at(tmat, from, from) = 0.5f;
      tmats.at(tmat, from, from + 1) = 0.5f;
    }
  }
  return tmats;
}

}  // namespace pstrain::testing
