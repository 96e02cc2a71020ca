// The hand-built model parts of model_fixture_util.h.
#include "support/model_fixture_util.h"

#include <cstddef>
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

ModelFiles WidenedModel(const ModelFiles& one, std::uint32_t n_density, std::mt19937& rng) {
  ModelFiles files = one;
  const std::uint32_t n_senones = one.means.n_mgau, veclen = one.means.veclen.at(0);
  files.means.n_density = files.variances.n_density = n_density;
  files.means.data.assign(std::size_t(n_senones) * n_density * veclen, 0.0f);
  files.variances.data.assign(files.means.data.size(), 0.0f);
  std::uniform_real_distribution<float> jitter(-0.3f, 0.3f);
  for (std::uint32_t s = 0; s < n_senones; ++s) {
    for (std::uint32_t k = 0; k < n_density; ++k) {
      for (std::uint32_t l = 0; l < veclen; ++l) {
        const std::size_t src = std::size_t(s) * veclen + l, dst = (std::size_t(s) * n_density + k) * veclen + l;
        files.variances.data[dst] = one.variances.data[src] * (1.0f + 0.5f * jitter(rng));
        files.means.data[dst] = one.means.data[src] + (k == 0 ? 0.0f : jitter(rng) * one.variances.data[src]);
      }
    }
  }
  files.mixture_weights.d3 = n_density;
  files.mixture_weights.data.assign(std::size_t(n_senones) * n_density, 0.0f);
  for (std::size_t i = 0; i < files.mixture_weights.data.size(); ++i) files.mixture_weights.data[i] = 1.0f + float(i % 5);
  return files;
}

}  // namespace pstrain::testing
