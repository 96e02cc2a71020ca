// UtteranceStats::AddTo visits only what an utterance touched, in runs: a senone's mixture-weight
// and occupancy counts as one run each, and each stretch of adjacent occupied densities as one run
// of mean and one of variance sums. Reset leaves the sums of every density as the last utterance
// left them, so a run that reached past an occupied stretch would add another utterance's values.
// Both sinks (exact and double) must receive exactly the values the utterance's frames produced.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "accumulators/accumulators.h"
#include "accumulators/exact_accumulators.h"
#include "forward_backward/utterance_stats.h"
#include "graph/sentence_hmm.h"
#include "model/acoustic_model.h"
#include "numerics/vector_kernels.h"
#include "support/model_fixture_util.h"

namespace pstrain {
namespace {

constexpr char kMdef[] =
    "0.3\n2 n_base\n0 n_tri\n8 n_state_map\n6 n_tied_state\n6 n_tied_ci_state\n2 n_tied_tmat\n"
    "A - - - n/a 0 0 1 2 N\n"
    "B - - - n/a 1 3 4 5 N\n";
constexpr std::uint32_t kSenones = 6, kDensities = 3, kVeclen = 5;

ModelFiles MakeModel() {
  ModelFiles files;
  files.mdef = Mdef::Parse(kMdef, "test.mdef");
  const std::uint32_t n = kSenones * kDensities * kVeclen;
  files.means = GaussianParams{kSenones, 1, kDensities, {kVeclen}, std::vector<float>(n, 0.25f)};
  files.variances = GaussianParams{kSenones, 1, kDensities, {kVeclen}, std::vector<float>(n, 0.5f)};
  files.mixture_weights = Array3D{kSenones, 1, kDensities, std::vector<float>(kSenones * kDensities, 1.0f / kDensities)};
  files.transition_matrices = testing::LinearTransitionMatrices(2, 3);
  return files;
}

struct FrameAdd {
  std::uint32_t local, k;
  double gamma;
  float x[kVeclen];
};

// The exact statistics the adds must give, built element by element (one frame per density, so
// each sum is gamma x and (gamma x) x, as the frame kernel computes them from zero).
ExactAccumulators Expected(const AccumulatorShape& shape, const std::vector<std::uint32_t>& senones,
                           const std::vector<FrameAdd>& adds, const std::vector<FrameAdd>& posteriors) {
  using Block = ExactAccumulators::Block;
  ExactAccumulators expected(shape, false);
  for (const FrameAdd& add : adds) {
    const std::size_t dens = std::size_t(senones[add.local]) * kDensities + add.k;
    expected.AddValue(Block::kDnom, dens, add.gamma);
    for (std::uint32_t l = 0; l < kVeclen; ++l) {
      const double x = add.x[l];
      expected.AddValue(Block::kMean, dens * kVeclen + l, add.gamma * x);
      expected.AddValue(Block::kVar, dens * kVeclen + l, (add.gamma * x) * x);
    }
  }
  for (const FrameAdd& p : posteriors) {
    expected.AddValue(Block::kMixw, std::size_t(senones[p.local]) * kDensities + p.k, p.gamma);
  }
  return expected;
}

TEST(UtteranceStats, RunsCarryOnlyTheOccupiedDensitiesOfThisUtterance) {
  const ModelFiles files = MakeModel();
  const AcousticModel model(files, ModelOptions{});
  const numerics::VectorKernels& kernels = numerics::ActiveKernels();
  const AccumulatorShape shape{kSenones, kDensities, kVeclen, 2, 3};
  UtteranceStats stats;

  // Utterance 1 fills every density of both its senones (local 0 = senone 4, local 1 = senone 1).
  SentenceHmm first;
  first.senones = {4, 1};
  stats.Reset(first, model, 2);
  for (std::uint32_t local = 0; local < 2; ++local) {
    for (std::uint32_t k = 0; k < kDensities; ++k) {
      const float x[kVeclen] = {9.0f, -7.0f, 5.5f, 3.0f, 1.0f};
      const float* xs[] = {x};
      const double gammas[] = {0.75};
      stats.AddFrames(local, k, gammas, xs, 1, nullptr, kernels);
      stats.AddDensityPosterior(local, k, 0.75);
    }
  }
  ExactAccumulators ignored(shape, false);
  stats.AddTo(ignored);

  // Utterance 2, same object: senone 4 has densities 0 and 2 occupied (1 is not, but has a
  // mixture-weight count), senone 3 only density 1, senone 1 none at all.
  SentenceHmm second;
  second.senones = {4, 3, 1};
  stats.Reset(second, model, 2);
  const std::vector<FrameAdd> adds = {
      {0, 0, 0.5, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f}},
      {0, 2, 0.125, {-1.5f, 0.25f, 8.0f, -2.0f, 0.5f}},
      {1, 1, 0.375, {2.5f, -3.5f, 1.25f, 0.0f, -6.0f}},
  };
  const std::vector<FrameAdd> posteriors = {{0, 0, 0.5, {}}, {0, 1, 0x1p-30, {}}, {0, 2, 0.125, {}}, {1, 1, 0.375, {}}};
  for (const FrameAdd& add : adds) {
    const float* xs[] = {add.x};
    stats.AddFrames(add.local, add.k, &add.gamma, xs, 1, nullptr, kernels);
  }
  for (const FrameAdd& p : posteriors) stats.AddDensityPosterior(p.local, p.k, p.gamma);

  ExactAccumulators exact(shape, false);
  stats.AddTo(exact);
  const ExactAccumulators expected = Expected(shape, second.senones, adds, posteriors);
  EXPECT_TRUE(exact == expected) << "the exact sink received values the utterance's frames did not produce";

  Accumulators doubles(shape, false);
  stats.AddTo(doubles);
  const Accumulators expected_doubles = expected.ToAccumulators();
  EXPECT_EQ(doubles.mean_data(), expected_doubles.mean_data());
  EXPECT_EQ(doubles.var_data(), expected_doubles.var_data());
  EXPECT_EQ(doubles.dnom_data(), expected_doubles.dnom_data());
  EXPECT_EQ(doubles.mixw_data(), expected_doubles.mixw_data());
  // The unoccupied density between two occupied ones: utterance 1's sums must not show through.
  EXPECT_EQ(doubles.mean(4, 1)[0], 0.0);
  EXPECT_EQ(doubles.mixw(4, 1), 0x1p-30);
}

}  // namespace
}  // namespace pstrain
