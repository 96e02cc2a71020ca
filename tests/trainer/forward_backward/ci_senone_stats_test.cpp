// A context-dependent state also feeds its CI senone's statistics (as bw does). The CI senone is
// never evaluated in the forward pass, so its densities must not be scaled by the forward pass's
// frame scale: with a CI Gaussian far better (or far worse) than the triphone's, that scale made
// exp() overflow to inf (NaN counts) or underflow to 0 (counts silently lost).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "formats/dictionary.h"
#include "forward_backward/forward_backward.h"
#include "graph/sentence_hmm.h"
#include "model/acoustic_model.h"
#include "support/model_fixture_util.h"
#include "support/test_helpers.h"

namespace pstrain {
namespace {

constexpr char kMdef[] =
    "0.3\n2 n_base\n1 n_tri\n12 n_state_map\n9 n_tied_state\n6 n_tied_ci_state\n2 n_tied_tmat\n"
    "A - - - n/a 0 0 1 2 N\n"
    "SIL - - - filler 1 3 4 5 N\n"
    "A SIL SIL s n/a 0 6 7 8 N\n";

// One Gaussian per senone, 39 dims, variance 0.001; the CI senones of A have mean `ci_mean`, all
// other senones 0.8. Linear 3-state tmats.
ModelFiles MakeModel(float ci_mean) {
  ModelFiles files;
  files.mdef = Mdef::Parse(kMdef, "test.mdef");
  const std::uint32_t n_senones = 9, veclen = 39;
  files.means = GaussianParams{n_senones, 1, 1, {veclen}, std::vector<float>(n_senones * veclen, 0.8f)};
  for (std::uint32_t senone = 0; senone < 3; ++senone) {
    for (std::uint32_t l = 0; l < veclen; ++l) files.means.data[senone * veclen + l] = ci_mean;
  }
  files.variances = GaussianParams{n_senones, 1, 1, {veclen}, std::vector<float>(n_senones * veclen, 0.001f)};
  files.mixture_weights = Array3D{n_senones, 1, 1, std::vector<float>(n_senones, 1.0f)};
  files.transition_matrices = testing::LinearTransitionMatrices(2, 3);
  return files;
}

class CiSenoneStatsTest : public ::testing::TestWithParam<float> {};

TEST_P(CiSenoneStatsTest, CiSenoneGetsTheTriphoneStatesPosteriors) {
  const ModelFiles files = MakeModel(GetParam());
  ModelOptions options;
  options.varfloor = 1e-5f;
  const AcousticModel model(files, options);
  const Dictionary dictionary = Dictionary::Parse("A1 A\n", "test.dic", false);
  const SentenceHmm hmm = BuildSentenceHmm({"A1"}, dictionary, files.mdef, model);
  ASSERT_EQ(hmm.states[0].senone, 6u) << "the word's phone must map to the triphone A(SIL,SIL,s)";
  ASSERT_EQ(hmm.states[0].ci_senone, 0u);

  Features features;
  features.dim = 39;
  features.n_frames = 12;
  features.data.assign(12 * 39, 1.0f);
  ForwardBackward fb;
  UtteranceStats stats;
  ForwardBackwardStats fb_stats;
  ForwardBackwardOptions fb_options;
  fb_options.beams = {1e-100, 1e-100};  // bw's built-in beams, as this test has always run
  ASSERT_FALSE(fb.Run(model, hmm, features, fb_options, stats, fb_stats).has_value());
  Accumulators acc(AccumulatorShape{9, 1, 39, 2, 3}, false);
  stats.AddTo(acc);
  for (std::uint32_t state = 0; state < 3; ++state) {
    SCOPED_TRACE("state " + std::to_string(state));
    const double cd = acc.mixw(6 + state, 0);
    EXPECT_GT(cd, 1.0);
    EXPECT_TRUE(std::isfinite(acc.mixw(state, 0)));
    EXPECT_NEAR(acc.mixw(state, 0), cd, 1e-9 * cd) << "CI senone must receive the CD state's posterior mass";
    EXPECT_NEAR(acc.dnom(state, 0), acc.dnom(6 + state, 0), 1e-9 * cd);
    EXPECT_NEAR(acc.mean(state, 0)[0], acc.dnom(state, 0) * 1.0, 1e-9 * cd);
  }
}

// The statistics gatherer's blocks of frames (StatisticsGatherer) with a triphone state that also
// feeds its CI senone (the gatherer's second record of a frame): blocks of 5 and of the default
// size give the sums of a block of 1 (each frame added at once), bit for bit, in both variance
// forms, over 70 frames of varying features (several blocks, runs across their edges).
TEST(CiSenoneStats, BlockedStatisticsOfATriphoneAreTheFrameByFrameStatistics) {
  const ModelFiles files = MakeModel(0.8f);
  ModelOptions options;
  options.varfloor = 1e-5f;
  const AcousticModel model(files, options);
  const Dictionary dictionary = Dictionary::Parse("A1 A\n", "test.dic", false);
  const SentenceHmm hmm = BuildSentenceHmm({"A1"}, dictionary, files.mdef, model);
  ASSERT_NE(hmm.states[0].senone, hmm.states[0].ci_senone);
  Features features;
  features.dim = 39;
  features.n_frames = 70;
  features.data.resize(std::size_t(features.n_frames) * 39);
  for (std::size_t i = 0; i < features.data.size(); ++i) features.data[i] = 0.7f + 0.02f * float((i * 7 + i / 39 * 3) % 11);
  for (const bool pass2var : {false, true}) {
    ForwardBackwardOptions fb_options;
    fb_options.beams = {1e-100, 1e-100};
    fb_options.pass2var = pass2var;
    const std::uint32_t blocks[] = {1u, 5u, StatisticsGatherer::kDefaultBlockFrames};
    std::vector<Accumulators> got;
    for (const std::uint32_t block : blocks) {
      ForwardBackward fb;
      fb.set_statistics_block_frames(block);
      UtteranceStats stats;
      ForwardBackwardStats fb_stats;
      ASSERT_FALSE(fb.Run(model, hmm, features, fb_options, stats, fb_stats).has_value());
      got.emplace_back(AccumulatorShape{9, 1, 39, 2, 3}, pass2var);
      stats.AddTo(got.back());
    }
    // The CI senones of A (0-2) received their triphone states' statistics.
    for (std::uint32_t state = 0; state < 3; ++state) EXPECT_GT(got[0].dnom(state, 0), 1.0) << "CI senone " << state;
    for (std::size_t i = 1; i < got.size(); ++i) {
      EXPECT_TRUE(test::SameStatisticsBits(got[i], got[0])) << (pass2var ? "2-pass variance" : "1-pass variance") << ", a block of " << blocks[i];
    }
  }
}

// 1.0: the CI Gaussian sits on the data (~780 nats above the triphone's: used to overflow);
// 0.6: ~780 nats below (used to underflow); 0.8: same as the triphone (always worked).
INSTANTIATE_TEST_SUITE_P(CiMeans, CiSenoneStatsTest, ::testing::Values(1.0f, 0.6f, 0.8f));

}  // namespace
}  // namespace pstrain
