// Identities a correct Baum-Welch E-step must satisfy (trainer/forward_backward/forward_backward.h):
// posteriors sum to one per frame, state occupancy equals outgoing transitions, the likelihood does
// not depend on a wide enough beam, an exact brute-force forward-backward agrees (and a brute-force
// forward pass with bw's relative alpha beam agrees for narrow beams), accumulating in pieces equals
// accumulating at once, and 2-pass variance equals the expanded 1-pass statistics.
// The shipped an4 CI model is used with synthetic features drawn near its Gaussians; the brute-force
// check uses a tiny hand-made model.
#include "forward_backward/forward_backward.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "accumulators/accumulators.h"
#include "formats/dictionary.h"
#include "formats/mdef.h"
#include "graph/pronunciation_graph.h"
#include "graph/sentence_hmm.h"
#include "model/acoustic_model.h"
#include "support/test_helpers.h"
#include "support/test_util.h"

namespace pstrain {
namespace {


constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double LogAdd(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double high = std::max(a, b);
  return high + std::log1p(std::exp(std::min(a, b) - high));
}

bool NearRelative(double actual, double expected, double rel_tol, double abs_floor = 0.0) {
  return std::fabs(actual - expected) <= rel_tol * std::fabs(expected) + abs_floor;
}

ForwardBackwardOptions WideBeams(bool pass2var = false) {
  ForwardBackwardOptions options;
  options.beams.abeam = 1e-300;
  options.beams.bbeam = 1e-300;
  options.pass2var = pass2var;
  return options;
}

AccumulatorShape ShapeOf(const AcousticModel& model) {
  return {model.n_senones(), model.n_density(), model.veclen(), model.n_tmat(), model.n_emit_state()};
}

// ---- The an4 model with synthetic features ----

Dictionary An4Dictionary() {
  Dictionary dict = Dictionary::Parse(
      "ONE W AH N\nTWO T UW\nTHREE TH R IY\nFOUR F AO R\nFIVE F AY V\nSIX S IH K S\nSEVEN S EH V AH N\n"
      "EIGHT EY T\nNINE N AY N\nZERO Z IH R OW\n",
      "an4-test.dic", false);
  dict.Merge(Dictionary::Parse("<sil> SIL\n", "an4-test.filler", true));
  return dict;
}

// Features that walk the sentence HMM's emitting states in order, `frames_per_state` frames each,
// drawn uniformly within +-`spread` standard deviations of the state's (first) Gaussian.
Features SyntheticFeatures(const ModelFiles& files, const SentenceHmm& hmm, std::uint32_t frames_per_state,
                           std::uint32_t seed, double spread = 0.7) {
  const std::uint32_t veclen = files.means.veclen[0];
  std::mt19937 rng(seed);
  Features features;
  features.dim = veclen;
  for (const HmmState& state : hmm.states) {
    if (!state.emitting()) continue;
    const std::size_t offset = files.means.Offset(state.senone, 0, 0);
    for (std::uint32_t repeat = 0; repeat < frames_per_state; ++repeat) {
      for (std::uint32_t dim = 0; dim < veclen; ++dim) {
        const double uniform = static_cast<double>(rng()) / 4294967296.0 * 2.0 - 1.0;
        const double sigma = std::sqrt(std::max(1e-4, static_cast<double>(files.variances.data[offset + dim])));
        features.data.push_back(static_cast<float>(files.means.data[offset + dim] + spread * uniform * sigma));
      }
      ++features.n_frames;
    }
  }
  return features;
}

// The first `n_frames` frames of `features`.
Features Truncate(const Features& features, std::uint32_t n_frames) {
  Features out;
  out.dim = features.dim;
  out.n_frames = n_frames;
  out.data.assign(features.data.begin(), features.data.begin() + std::ptrdiff_t(n_frames) * features.dim);
  return out;
}

// One of the synthetic utterances below: its words and how its features are made.
struct Utterance {
  std::vector<std::string> words;
  std::uint32_t frames_per_state;
  std::uint32_t seed;
  double spread;
};

class An4Test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!std::filesystem::is_directory(testing::An4Model())) return;
    files_ = new ModelFiles(ModelFiles::Load(testing::An4Model().string()));
    model_ = new AcousticModel(*files_, ModelOptions{});
  }
  static void TearDownTestSuite() {
    delete model_;
    delete files_;
    model_ = nullptr;
    files_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(files_, nullptr) << "the an4 model is not installed at " << testing::An4Model() << " (scripts/bootstrap.sh installs it)";
  }

  SentenceHmm Build(const std::vector<std::string>& words) const {
    return BuildSentenceHmm(words, dictionary_, files_->mdef, *model_);
  }
  // The synthetic features of `utt` along `hmm` (its sentence HMM).
  Features FeaturesOf(const Utterance& utt, const SentenceHmm& hmm) const {
    return SyntheticFeatures(*files_, hmm, utt.frames_per_state, utt.seed, utt.spread);
  }
  // Runs forward-backward; fails the test on an alignment failure.
  ForwardBackwardStats RunOk(const SentenceHmm& hmm, const Features& features, const ForwardBackwardOptions& options,
                             UtteranceStats& stats) {
    ForwardBackwardStats fb_stats;
    const std::optional<AlignmentFailure> failure = fb_.Run(*model_, hmm, features, options, stats, fb_stats);
    EXPECT_FALSE(failure.has_value()) << failure->reason << ": " << failure->message;
    return fb_stats;
  }
  Accumulators Accumulate(const UtteranceStats& stats, bool pass2var = false) const {
    Accumulators acc(ShapeOf(*model_), pass2var);
    stats.AddTo(acc);
    return acc;
  }

  static ModelFiles* files_;
  static AcousticModel* model_;
  Dictionary dictionary_ = An4Dictionary();
  ForwardBackward fb_;
};

ModelFiles* An4Test::files_ = nullptr;
AcousticModel* An4Test::model_ = nullptr;

const Utterance kUtterances[] = {
    {{"<sil>", "ONE", "TWO", "<sil>"}, 3, 1, 0.7},
    {{"<sil>", "SEVEN", "<sil>"}, 4, 2, 0.7},
    {{"THREE", "FOUR", "FIVE"}, 2, 3, 1.5},
    {{"<sil>", "SIX", "<sil>", "ZERO", "NINE", "<sil>"}, 5, 4, 1.0},
};

TEST_F(An4Test, PosteriorsSumToTheNumberOfFrames) {
  for (const Utterance& utt : kUtterances) {
    SCOPED_TRACE(utt.words[1]);
    const SentenceHmm hmm = Build(utt.words);
    const Features features = FeaturesOf(utt, hmm);
    UtteranceStats stats;
    const ForwardBackwardStats fb_stats = RunOk(hmm, features, WideBeams(), stats);
    EXPECT_EQ(fb_stats.n_frames, features.n_frames);
    const Accumulators acc = Accumulate(stats);
    const double dnom_total = std::accumulate(acc.dnom_data().begin(), acc.dnom_data().end(), 0.0);
    const double mixw_total = std::accumulate(acc.mixw_data().begin(), acc.mixw_data().end(), 0.0);
    EXPECT_PRED4(NearRelative, dnom_total, double(features.n_frames), 1e-9, 0.0);
    EXPECT_PRED4(NearRelative, mixw_total, double(features.n_frames), 1e-9, 0.0);
    // Only the utterance's senones receive counts.
    for (std::uint32_t senone = 0; senone < model_->n_senones(); ++senone) {
      const bool used = std::find(hmm.senones.begin(), hmm.senones.end(), senone) != hmm.senones.end();
      if (!used) {
        EXPECT_EQ(acc.dnom_data()[senone], 0.0) << "senone " << senone;
      }
    }
  }
}

TEST_F(An4Test, StateOccupancyEqualsOutgoingTransitions) {
  for (const Utterance& utt : kUtterances) {
    SCOPED_TRACE(utt.words[1]);
    const SentenceHmm hmm = Build(utt.words);
    const Features features = FeaturesOf(utt, hmm);
    UtteranceStats stats;
    RunOk(hmm, features, WideBeams(), stats);
    Accumulators acc = Accumulate(stats);
    // CI model: phone p uses tmat p and senones 3p..3p+2, so each tmat row belongs to one senone.
    double total_transitions = 0.0;
    for (const MdefPhone& phone : files_->mdef.phones()) {
      for (std::uint32_t from = 0; from < model_->n_emit_state(); ++from) {
        double outgoing = 0.0;
        for (std::uint32_t to = 0; to <= model_->n_emit_state(); ++to) outgoing += acc.tmat(phone.tmat, from, to);
        double occupancy = 0.0;
        for (std::uint32_t k = 0; k < model_->n_density(); ++k) occupancy += acc.dnom(files_->mdef.Senones(phone)[from], k);
        EXPECT_PRED4(NearRelative, outgoing, occupancy, 1e-6, 1e-300) << files_->mdef.Name(phone.base) << " state " << from;
        total_transitions += outgoing;
      }
    }
    EXPECT_PRED4(NearRelative, total_transitions, double(features.n_frames), 1e-9, 0.0);
  }
}

TEST_F(An4Test, LogLikelihoodDoesNotDependOnAWideBeam) {
  for (const Utterance& utt : kUtterances) {
    SCOPED_TRACE(utt.words[1]);
    const SentenceHmm hmm = Build(utt.words);
    const Features features = FeaturesOf(utt, hmm);
    UtteranceStats stats;
    ForwardBackwardOptions options;
    options.beams = {1e-100, 1e-100};
    const double loglik_100 = RunOk(hmm, features, options, stats).log_likelihood;
    const double loglik_300 = RunOk(hmm, features, WideBeams(), stats).log_likelihood;
    EXPECT_TRUE(std::isfinite(loglik_300));
    EXPECT_NE(loglik_300, 0.0);
    EXPECT_PRED4(NearRelative, loglik_100, loglik_300, 1e-9, 0.0);
  }
}

TEST_F(An4Test, Failures) {
  const SentenceHmm sil = Build({"<sil>"});
  const Features sil_features = SyntheticFeatures(*files_, sil, 3, 7);  // 9 frames
  ASSERT_EQ(sil_features.n_frames, 9u);
  struct Case {
    std::string name;
    std::vector<std::string> words;
    Features features;
    std::string reason;  // empty: succeeds
    bool beam_related;
  };
  Features wrong_dim = sil_features;
  wrong_dim.dim = 13;
  wrong_dim.n_frames = static_cast<std::uint32_t>(wrong_dim.data.size() / 13);
  const Case cases[] = {
      {"8 frames are too short", {"<sil>"}, Truncate(sil_features, 8), "too-short", false},
      {"1 frame is too short", {"<sil>"}, Truncate(sil_features, 1), "too-short", false},
      {"9 frames are enough", {"<sil>"}, sil_features, "", false},
      {"more states than frames", {"SEVEN", "SEVEN", "SIX"}, Truncate(SyntheticFeatures(*files_, Build({"SEVEN"}), 2, 8), 10),
       "final-state-not-reached", true},
      {"feature dimension", {"<sil>"}, wrong_dim, "feature-dimension", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    UtteranceStats stats;
    ForwardBackwardStats fb_stats;
    const std::optional<AlignmentFailure> failure = fb_.Run(*model_, Build(c.words), c.features, WideBeams(), stats, fb_stats);
    if (c.reason.empty()) {
      EXPECT_FALSE(failure.has_value()) << failure->reason;
      continue;
    }
    ASSERT_TRUE(failure.has_value());
    EXPECT_EQ(failure->reason, c.reason) << failure->message;
    EXPECT_EQ(failure->beam_related, c.beam_related);
  }
}

// A backward pass that fails half-way leaves its per-frame lookups as they were (nothing is cleared
// between frames); the next utterance on the same object must not see them: the same bits as on a
// fresh object. Also after a successful one, and after a forward pass that fails.
TEST_F(An4Test, AFailedUtteranceLeavesNothingForTheNext) {
  const Utterance& failing = kUtterances[3];
  const SentenceHmm failing_hmm = Build(failing.words);
  const Features failing_features = FeaturesOf(failing, failing_hmm);
  ForwardBackwardOptions narrow_beta = WideBeams();
  narrow_beta.beams.bbeam = 0.5;  // prunes so much of the backward pass that alpha * beta no longer sums up
  const SentenceHmm short_hmm = Build({"SEVEN", "SEVEN", "SIX"});
  const Features short_features = Truncate(SyntheticFeatures(*files_, Build({"SEVEN"}), 2, 8), 10);
  for (const Utterance& next : kUtterances) {
    SCOPED_TRACE(next.words[1]);
    const SentenceHmm hmm = Build(next.words);
    const Features features = FeaturesOf(next, hmm);
    ForwardBackward fresh;
    UtteranceStats fresh_stats;
    ForwardBackwardStats fresh_fb;
    ASSERT_FALSE(fresh.Run(*model_, hmm, features, WideBeams(), fresh_stats, fresh_fb).has_value());
    const Accumulators want = Accumulate(fresh_stats);

    UtteranceStats stats;
    ForwardBackwardStats fb_stats;
    const std::optional<AlignmentFailure> beta_failure = fb_.Run(*model_, failing_hmm, failing_features, narrow_beta, stats, fb_stats);
    ASSERT_TRUE(beta_failure.has_value());
    ASSERT_EQ(beta_failure->reason, "alpha-beta-mismatch") << beta_failure->message;
    for (int previous = 0; previous < 3; ++previous) {
      if (previous == 1) {
        ASSERT_EQ(fb_.Run(*model_, short_hmm, short_features, WideBeams(), stats, fb_stats)->reason, "final-state-not-reached");
      }
      if (previous == 2) RunOk(failing_hmm, failing_features, WideBeams(), stats);
      UtteranceStats got_stats;
      const ForwardBackwardStats got_fb = RunOk(hmm, features, WideBeams(), got_stats);
      EXPECT_EQ(got_fb.log_likelihood, fresh_fb.log_likelihood) << "after utterance kind " << previous;
      const Accumulators got = Accumulate(got_stats);
      EXPECT_EQ(got.mean_data(), want.mean_data()) << "after utterance kind " << previous;
      EXPECT_EQ(got.var_data(), want.var_data()) << "after utterance kind " << previous;
      EXPECT_EQ(got.mixw_data(), want.mixw_data()) << "after utterance kind " << previous;
      EXPECT_EQ(got.tmat_data(), want.tmat_data()) << "after utterance kind " << previous;
    }
  }
}

// The statistics gatherer keeps a block of frames and adds each density's frames together
// (StatisticsGatherer): the sums must be those of adding each frame at once (a block of 1), bit for
// bit, with the block's edge anywhere in the utterance (5 frames, and the default), and in both
// variance forms. Every utterance here is longer than the default block, so sums cross its edge.
TEST_F(An4Test, BlockedStatisticsAreTheFrameByFrameStatistics) {
  for (bool pass2var : {false, true}) {
    for (const Utterance& utt : kUtterances) {
      SCOPED_TRACE(std::string(pass2var ? "2-pass variance, " : "1-pass variance, ") + utt.words[1]);
      const SentenceHmm hmm = Build(utt.words);
      const Features features = FeaturesOf(utt, hmm);
      ASSERT_GT(features.n_frames, StatisticsGatherer::kDefaultBlockFrames);
      Accumulators want(ShapeOf(*model_), pass2var);
      for (const std::uint32_t block : {1u, 5u, StatisticsGatherer::kDefaultBlockFrames}) {
        ForwardBackward fb;
        fb.set_statistics_block_frames(block);
        UtteranceStats stats;
        ForwardBackwardStats fb_stats;
        ASSERT_FALSE(fb.Run(*model_, hmm, features, WideBeams(pass2var), stats, fb_stats).has_value());
        Accumulators got = Accumulate(stats, pass2var);
        if (block == 1) {
          want = std::move(got);
          continue;
        }
        EXPECT_TRUE(test::SameStatisticsBits(got, want)) << "block of " << block;
      }
    }
  }
}

TEST_F(An4Test, AccumulatingInPiecesEqualsAccumulatingAtOnce) {
  for (bool pass2var : {false, true}) {
    SCOPED_TRACE(pass2var ? "2-pass variance" : "1-pass variance");
    UtteranceStats stats[2];
    std::uint32_t total_frames = 0;
    for (int utt_idx = 0; utt_idx < 2; ++utt_idx) {
      const Utterance& utt = kUtterances[utt_idx];
      const SentenceHmm hmm = Build(utt.words);
      const Features features = FeaturesOf(utt, hmm);
      RunOk(hmm, features, WideBeams(pass2var), stats[utt_idx]);
      total_frames += features.n_frames;
    }
    Accumulators pieces = Accumulate(stats[0], pass2var);
    pieces.Add(Accumulate(stats[1], pass2var));
    Accumulators at_once(ShapeOf(*model_), pass2var);
    stats[0].AddTo(at_once);
    stats[1].AddTo(at_once);
    EXPECT_EQ(pieces.mixw_data(), at_once.mixw_data());
    EXPECT_EQ(pieces.dnom_data(), at_once.dnom_data());
    EXPECT_EQ(pieces.mean_data(), at_once.mean_data());
    EXPECT_EQ(pieces.var_data(), at_once.var_data());
    EXPECT_EQ(pieces.tmat_data(), at_once.tmat_data());
    // Both utterances really contributed.
    const double frames = std::accumulate(at_once.dnom_data().begin(), at_once.dnom_data().end(), 0.0);
    EXPECT_PRED4(NearRelative, frames, double(total_frames), 1e-9, 0.0);
  }
}

TEST_F(An4Test, TwoPassVarianceIsTheExpandedOnePassVariance) {
  ASSERT_EQ(model_->n_density(), 1u);
  for (const Utterance& utt : kUtterances) {
    SCOPED_TRACE(utt.words[1]);
    const SentenceHmm hmm = Build(utt.words);
    const Features features = FeaturesOf(utt, hmm);
    UtteranceStats one_pass_stats, two_pass_stats;
    RunOk(hmm, features, WideBeams(false), one_pass_stats);
    RunOk(hmm, features, WideBeams(true), two_pass_stats);
    Accumulators one_pass = Accumulate(one_pass_stats, false);
    Accumulators two_pass = Accumulate(two_pass_stats, true);
    EXPECT_EQ(one_pass.dnom_data(), two_pass.dnom_data());
    EXPECT_EQ(one_pass.mean_data(), two_pass.mean_data());
    EXPECT_EQ(one_pass.mixw_data(), two_pass.mixw_data());
    EXPECT_EQ(one_pass.tmat_data(), two_pass.tmat_data());
    std::uint32_t checked = 0;
    for (std::uint32_t senone : hmm.senones) {
      const double dnom = one_pass.dnom(senone, 0);
      if (dnom == 0.0) continue;
      for (std::uint32_t dim = 0; dim < model_->veclen(); ++dim) {
        const double mu = model_->MeanAt(senone, 0, dim);
        const double expected = one_pass.var(senone, 0)[dim] - 2.0 * mu * one_pass.mean(senone, 0)[dim] + mu * mu * dnom;
        EXPECT_PRED4(NearRelative, two_pass.var(senone, 0)[dim], expected, 1e-6, 0.0) << "senone " << senone << " dim " << dim;
        ++checked;
      }
    }
    EXPECT_GT(checked, 0u);
  }
}

// ---- Brute force on a tiny model ----

// Two CI phones with 3 emitting states, 2 densities of dimension 39. Means and features are
// multiples of 1/4 and 1/8, so float differences are exact and a double computation can agree
// with ForwardBackward to ~1e-12.
struct TinyModel {
  static constexpr std::uint32_t kVeclen = 39;
  static constexpr std::uint32_t kDensity = 2;

  TinyModel() : files(MakeFiles()), model(files, ModelOptions{}) {}

  static ModelFiles MakeFiles() {
    ModelFiles out;
    out.mdef = Mdef::Parse(
        "0.3\n2 n_base\n0 n_tri\n8 n_state_map\n6 n_tied_state\n6 n_tied_ci_state\n2 n_tied_tmat\n"
        "A - - - n/a 0 0 1 2 N\nB - - - n/a 1 3 4 5 N\n",
        "tiny.mdef");
    const std::uint32_t n_senones = 6;
    out.means = GaussianParams::OneStream(n_senones, kDensity, kVeclen);
    out.variances = out.means;
    for (std::uint32_t senone = 0; senone < n_senones; ++senone) {
      for (std::uint32_t k = 0; k < kDensity; ++k) {
        for (std::uint32_t dim = 0; dim < kVeclen; ++dim) {
          const std::size_t index = (std::size_t(senone) * kDensity + k) * kVeclen + dim;
          out.means.data[index] = 0.25f * static_cast<float>(int((senone * 7 + k * 3 + dim * 5) % 9) - 4);
          out.variances.data[index] = 0.5f + 0.125f * static_cast<float>((senone + k + dim) % 5);
        }
      }
    }
    out.mixture_weights = Array3D{n_senones, 1, kDensity, {3, 1, 1, 2, 1, 1, 2, 5, 1, 3, 4, 1}};
    out.transition_matrices = Array3D{2, 3, 4,
                                      {0.5f, 0.3f, 0.2f, 0.0f, 0.0f, 0.6f, 0.3f, 0.1f, 0.0f, 0.0f, 0.7f, 0.3f,  // skip arcs
                                       0.6f, 0.4f, 0.0f, 0.0f, 0.0f, 0.5f, 0.5f, 0.0f, 0.0f, 0.0f, 0.8f, 0.2f}};
    return out;
  }

  // log b_senone(x), computed independently of ForwardBackward (log-sum-exp over densities).
  double LogOutput(std::uint32_t senone, const float* x) const {
    double total = kNegInf;
    for (std::uint32_t k = 0; k < kDensity; ++k) total = LogAdd(total, LogDensity(senone, k, x));
    return total;
  }
  // log (w_k N_k(x)).
  double LogDensity(std::uint32_t senone, std::uint32_t k, const float* x) const {
    double dist = 0.0;
    for (std::uint32_t dim = 0; dim < kVeclen; ++dim) {
      const double diff = double(x[dim]) - double(model.MeanAt(senone, k, dim));
      dist += model.PrecisionAt(senone, k, dim) * diff * diff;
    }
    return std::log(double(model.MixtureWeight(senone, k))) + double(model.LogNorm(senone, k)) - dist;
  }

  ModelFiles files;
  AcousticModel model;
};

Features TinyFeatures(std::uint32_t n_frames) {
  Features features;
  features.dim = TinyModel::kVeclen;
  features.n_frames = n_frames;
  for (std::uint32_t frame = 0; frame < n_frames; ++frame) {
    for (std::uint32_t dim = 0; dim < TinyModel::kVeclen; ++dim) {
      features.data.push_back(0.125f * static_cast<float>(int((frame * 5 + dim * 3 + frame * dim) % 17) - 8));
    }
  }
  return features;
}

// The sentence HMM of a phone sequence (mdef rows), built straight from the model's transition
// matrices rather than from SentenceHmm: state m of phone p is index p*(E+1)+m (m = E is the exit),
// and the exit of phone p feeds the first state of phone p+1 with probability 1. Holds the log
// output probabilities of every emitting state at every frame.
struct Lattice {
  Lattice(const TinyModel& tiny_in, const std::vector<std::uint32_t>& phone_ids_in, const Features& features_in)
      : tiny(tiny_in), phone_ids(phone_ids_in), features(features_in), n_emit(tiny.model.n_emit_state()), per_phone(n_emit + 1),
        n_states(static_cast<std::uint32_t>(phone_ids.size()) * per_phone), n_frames(features.n_frames), final_state(n_states - 1),
        log_b(n_frames, std::vector<double>(n_states, kNegInf)) {
    for (std::uint32_t frame = 0; frame < n_frames; ++frame) {
      for (std::uint32_t state = 0; state < n_states; ++state) {
        if (m_of(state) < n_emit) log_b[frame][state] = tiny.LogOutput(tiny.files.mdef.Senones(row_of(state))[m_of(state)], features.frame(frame));
      }
    }
  }
  std::uint32_t m_of(std::uint32_t state) const { return state % per_phone; }
  const MdefPhone& row_of(std::uint32_t state) const { return tiny.files.mdef.phones()[phone_ids[state / per_phone]]; }
  // log a(from -> to) for two states of one phone.
  double log_a(std::uint32_t from, std::uint32_t to) const {
    const float prob = tiny.model.Transition(row_of(from).tmat, m_of(from), m_of(to));
    return prob > 0.0f ? std::log(double(prob)) : kNegInf;
  }
  // log alpha of emitting `state` at frame >= 1 from the previous frame's log alphas `prev`.
  double EmittingAlpha(const std::vector<double>& prev, std::uint32_t frame, std::uint32_t state) const {
    double sum = kNegInf;
    const std::uint32_t first = state - m_of(state);
    for (std::uint32_t from = first; from <= state; ++from) sum = LogAdd(sum, prev[from] + log_a(from, state));
    if (m_of(state) == 0 && state > 0) sum = LogAdd(sum, prev[state - 1]);  // previous exit, prob 1
    return sum + log_b[frame][state];
  }
  // log alpha of exit `state` in the same frame, from that frame's alphas `cur` of its phone.
  double ExitAlpha(const std::vector<double>& cur, std::uint32_t state) const {
    double sum = kNegInf;
    for (std::uint32_t from = state - n_emit; from < state; ++from) sum = LogAdd(sum, cur[from] + log_a(from, state));
    return sum;
  }

  const TinyModel& tiny;
  const std::vector<std::uint32_t>& phone_ids;
  const Features& features;
  std::uint32_t n_emit, per_phone, n_states, n_frames, final_state;
  std::vector<std::vector<double>> log_b;
};

// Exact forward-backward in log space over a Lattice, without scaling or pruning.
struct BruteForce {
  double log_likelihood = kNegInf;
  std::vector<double> dnom, mean, var, tmat;  // same layouts as Accumulators

  BruteForce(const TinyModel& tiny, const std::vector<std::uint32_t>& phone_ids, const Features& features) {
    const AcousticModel& model = tiny.model;
    const Lattice lattice(tiny, phone_ids, features);
    const std::uint32_t n_emit = lattice.n_emit, per_phone = lattice.per_phone, n_states = lattice.n_states;
    const std::uint32_t n_frames = lattice.n_frames, final_state = lattice.final_state;
    auto m_of = [&](std::uint32_t state) { return lattice.m_of(state); };
    auto row_of = [&](std::uint32_t state) -> const MdefPhone& { return lattice.row_of(state); };
    auto log_a = [&](std::uint32_t from, std::uint32_t to) { return lattice.log_a(from, to); };
    const std::vector<std::vector<double>>& log_b = lattice.log_b;

    // Forward: alpha[t][s] = log P(x_0..x_t, in s at t).
    std::vector<std::vector<double>> alpha(n_frames, std::vector<double>(n_states, kNegInf));
    alpha[0][0] = log_b[0][0];
    for (std::uint32_t frame = 1; frame < n_frames; ++frame) {
      for (std::uint32_t state = 0; state < n_states; ++state) {
        if (m_of(state) < n_emit) alpha[frame][state] = lattice.EmittingAlpha(alpha[frame - 1], frame, state);
      }
      for (std::uint32_t state = n_emit; state < n_states; state += per_phone) alpha[frame][state] = lattice.ExitAlpha(alpha[frame], state);
    }
    log_likelihood = alpha[n_frames - 1][final_state];

    // Backward: beta[t][s] = log P(x_{t+1}.., end | in s at t).
    std::vector<std::vector<double>> beta(n_frames, std::vector<double>(n_states, kNegInf));
    for (std::uint32_t frame = n_frames; frame-- > 0;) {
      for (std::uint32_t state = n_states; state-- > 0;) {
        if (m_of(state) == n_emit) {
          if (state == final_state) beta[frame][state] = frame == n_frames - 1 ? 0.0 : kNegInf;
          else if (frame + 1 < n_frames) beta[frame][state] = log_b[frame + 1][state + 1] + beta[frame + 1][state + 1];
          continue;
        }
        const std::uint32_t exit = state - m_of(state) + n_emit;
        double sum = log_a(state, exit) + beta[frame][exit];
        if (frame + 1 < n_frames) {
          for (std::uint32_t to = state; to < exit; ++to) sum = LogAdd(sum, log_a(state, to) + log_b[frame + 1][to] + beta[frame + 1][to]);
        }
        beta[frame][state] = sum;
      }
    }

    const std::uint32_t n_density = model.n_density(), veclen = model.veclen();
    dnom.assign(std::size_t(model.n_senones()) * n_density, 0.0);
    mean.assign(dnom.size() * veclen, 0.0);
    var.assign(dnom.size() * veclen, 0.0);
    tmat.assign(std::size_t(model.n_tmat()) * n_emit * per_phone, 0.0);
    for (std::uint32_t frame = 0; frame < n_frames; ++frame) {
      const float* x = features.frame(frame);
      for (std::uint32_t state = 0; state < n_states; ++state) {
        if (m_of(state) == n_emit) continue;
        const double gamma = std::exp(alpha[frame][state] + beta[frame][state] - log_likelihood);
        const std::uint32_t senone = tiny.files.mdef.Senones(row_of(state))[m_of(state)];
        for (std::uint32_t k = 0; k < n_density; ++k) {
          const double gamma_k = gamma * std::exp(tiny.LogDensity(senone, k, x) - log_b[frame][state]);
          const std::size_t dens = std::size_t(senone) * n_density + k;
          dnom[dens] += gamma_k;
          for (std::uint32_t dim = 0; dim < veclen; ++dim) {
            mean[dens * veclen + dim] += gamma_k * x[dim];
            var[dens * veclen + dim] += gamma_k * double(x[dim]) * double(x[dim]);
          }
        }
        // Outgoing transitions of `state` at `frame` within its phone.
        const std::uint32_t exit = state - m_of(state) + n_emit;
        const std::size_t row = (std::size_t(row_of(state).tmat) * n_emit + m_of(state)) * per_phone;
        tmat[row + n_emit] += std::exp(alpha[frame][state] + log_a(state, exit) + beta[frame][exit] - log_likelihood);
        if (frame + 1 < n_frames) {
          for (std::uint32_t to = state; to < exit; ++to) {
            tmat[row + m_of(to)] += std::exp(alpha[frame][state] + log_a(state, to) + log_b[frame + 1][to] + beta[frame + 1][to] - log_likelihood);
          }
        }
      }
    }
  }
};

// The forward pass with bw's relative alpha beam (sphinx-compat.md 5.4), in log space: at frame
// t >= 1 the candidates are the emitting successors of the states kept at t-1, each emitting
// candidate feeds its exit in the same frame, and a state (exits included) is kept iff its alpha
// is above best * abeam, best being the largest candidate alpha of the frame.
struct PrunedForward {
  bool reached = false;
  double log_likelihood = kNegInf;
  double avg_alpha_states = 0.0;

  PrunedForward(const Lattice& lattice, double abeam) {
    std::vector<double> prev(lattice.n_states, kNegInf), cur;
    prev[0] = lattice.log_b[0][0];
    std::size_t n_kept = 1;
    for (std::uint32_t frame = 1; frame < lattice.n_frames; ++frame) {
      cur.assign(lattice.n_states, kNegInf);
      for (std::uint32_t state = 0; state < lattice.n_states; ++state) {
        if (lattice.m_of(state) < lattice.n_emit) cur[state] = lattice.EmittingAlpha(prev, frame, state);
      }
      for (std::uint32_t state = lattice.n_emit; state < lattice.n_states; state += lattice.per_phone) {
        cur[state] = lattice.ExitAlpha(cur, state);
      }
      const double best = *std::max_element(cur.begin(), cur.end());
      if (best == kNegInf) return;  // nothing survives
      const double threshold = best + std::log(abeam);
      for (double& value : cur) {
        if (value > threshold) ++n_kept;
        else value = kNegInf;
      }
      prev.swap(cur);
    }
    reached = prev[lattice.final_state] != kNegInf;
    log_likelihood = prev[lattice.final_state];
    avg_alpha_states = double(n_kept) / lattice.n_frames;
  }
};

void ExpectVectorsNear(const std::vector<double>& actual, const std::vector<double>& expected, double rel_tol, double abs_floor,
                       const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  int reported = 0;
  for (std::size_t idx = 0; idx < actual.size(); ++idx) {
    if (!NearRelative(actual[idx], expected[idx], rel_tol, abs_floor) && reported++ < 5) {
      ADD_FAILURE() << what << "[" << idx << "]: " << actual[idx] << " vs brute force " << expected[idx];
    }
  }
}

// Every accumulated statistic equals the brute force's within `rel_tol` (a density's
// mixture-weight count is its occupancy).
void ExpectStatisticsNear(const Accumulators& acc, const BruteForce& exact, double rel_tol) {
  ExpectVectorsNear(acc.dnom_data(), exact.dnom, rel_tol, 1e-30, "dnom");
  ExpectVectorsNear(acc.mixw_data(), exact.dnom, rel_tol, 1e-30, "mixw");
  ExpectVectorsNear(acc.mean_data(), exact.mean, rel_tol, 1e-12, "mean");
  ExpectVectorsNear(acc.var_data(), exact.var, rel_tol, 1e-12, "var");
  ExpectVectorsNear(acc.tmat_data(), exact.tmat, rel_tol, 1e-30, "tmat");
}

TEST(ForwardBackwardBruteForceTest, MatchesExactForwardBackward) {
  const TinyModel tiny;
  const Dictionary dict = Dictionary::Parse("WA A\nWB B\nWAB A B\n", "tiny.dic", false);
  struct Case {
    std::vector<std::string> words;
    std::vector<std::uint32_t> phone_ids;
    std::uint32_t n_frames;
  };
  const Case cases[] = {
      {{"WAB", "WA"}, {0, 1, 0}, 14},  // A repeats: two instances share senones and a tmat
      {{"WB", "WA"}, {1, 0}, 9},       // the shortest utterance allowed
      {{"WA"}, {0}, 20},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.words[0] + " / " + std::to_string(c.n_frames) + " frames");
    const SentenceHmm hmm = BuildSentenceHmm(c.words, dict, tiny.files.mdef, tiny.model);
    ASSERT_EQ(hmm.phones.size(), c.phone_ids.size());
    for (std::size_t p = 0; p < c.phone_ids.size(); ++p) ASSERT_EQ(hmm.phones[p].phone_id, c.phone_ids[p]);
    const Features features = TinyFeatures(c.n_frames);
    const BruteForce exact(tiny, c.phone_ids, features);
    ASSERT_TRUE(std::isfinite(exact.log_likelihood));

    ForwardBackward fb;
    UtteranceStats stats;
    ForwardBackwardStats fb_stats;
    const std::optional<AlignmentFailure> failure = fb.Run(tiny.model, hmm, features, WideBeams(), stats, fb_stats);
    ASSERT_FALSE(failure.has_value()) << failure->reason << ": " << failure->message;
    EXPECT_PRED4(NearRelative, fb_stats.log_likelihood, exact.log_likelihood, 1e-9, 0.0);

    Accumulators acc(ShapeOf(tiny.model), false);
    stats.AddTo(acc);
    ExpectStatisticsNear(acc, exact, 1e-9);
    const double total = std::accumulate(exact.dnom.begin(), exact.dnom.end(), 0.0);
    EXPECT_PRED4(NearRelative, total, double(c.n_frames), 1e-12, 0.0);  // the brute force itself is sane
  }
}

// A pronunciation graph is a mixture of linear paths: its likelihood is sum_s prior(s) L_s over the
// variant sequences s, and its statistics are each path's exact statistics weighted by that path's
// posterior prior(s) L_s / L. The words here start and end with variants that begin and end in
// different phones, so a graph in which any variant could not start or finish the utterance (the
// SphinxTrain bw -multipron defect) gives a different likelihood.
TEST(ForwardBackwardBruteForceTest, PronunciationGraphIsTheMixtureOfItsVariantPaths) {
  const TinyModel tiny;
  const Dictionary dict = Dictionary::Parse("WA A\nWA(2) B\nWAB A B\nWAB(2) B A\nWAB(3) B\n", "tiny.dic", false);
  struct Case {
    std::vector<std::string> words;
    std::vector<std::vector<std::uint32_t>> paths;  // every variant sequence, as phone ids
    std::uint32_t n_frames;
  };
  const Case cases[] = {
      {{"WA", "WAB"}, {{0, 0, 1}, {0, 1, 0}, {0, 1}, {1, 0, 1}, {1, 1, 0}, {1, 1}}, 16},
      {{"WAB"}, {{0, 1}, {1, 0}, {1}}, 12},
      {{"WAB", "WA", "WA"}, {}, 24},  // filled below: 3 x 2 x 2 sequences
  };
  for (Case c : cases) {
    if (c.paths.empty()) {
      for (const std::vector<std::uint32_t>& first : {std::vector<std::uint32_t>{0, 1}, {1, 0}, {1}}) {
        for (std::uint32_t second : {0u, 1u}) {
          for (std::uint32_t third : {0u, 1u}) {
            std::vector<std::uint32_t> path = first;
            path.push_back(second);
            path.push_back(third);
            c.paths.push_back(path);
          }
        }
      }
    }
    SCOPED_TRACE(c.words[0] + " + " + std::to_string(c.words.size() - 1) + " words, " + std::to_string(c.n_frames) + " frames");
    double log_prior = 0.0;
    for (const std::string& word : c.words) log_prior -= std::log(double(dict.Variants(word).size()));
    const Features features = TinyFeatures(c.n_frames);
    std::vector<BruteForce> exact;
    double log_total = kNegInf;
    for (const auto& path : c.paths) {
      exact.emplace_back(tiny, path, features);
      log_total = LogAdd(log_total, log_prior + exact.back().log_likelihood);
    }
    const PronunciationGraph graph = BuildPronunciationGraph(c.words, dict, tiny.files.mdef, tiny.model);
    EXPECT_FALSE(graph.hmm.initial.empty());
    EXPECT_TRUE(graph.fallback_senones.empty()) << "a CI model never falls back";
    ForwardBackward fb;
    UtteranceStats stats;
    ForwardBackwardStats fb_stats;
    const std::optional<AlignmentFailure> failure = fb.Run(tiny.model, graph.hmm, features, WideBeams(), stats, fb_stats);
    ASSERT_FALSE(failure.has_value()) << failure->reason << ": " << failure->message;
    EXPECT_PRED4(NearRelative, fb_stats.log_likelihood, log_total, 1e-9, 0.0);

    BruteForce mixture = exact.front();
    for (std::vector<double>* field : {&mixture.dnom, &mixture.mean, &mixture.var, &mixture.tmat}) {
      std::fill(field->begin(), field->end(), 0.0);
    }
    for (const BruteForce& path : exact) {
      const double weight = std::exp(log_prior + path.log_likelihood - log_total);
      for (std::size_t i = 0; i < mixture.dnom.size(); ++i) mixture.dnom[i] += weight * path.dnom[i];
      for (std::size_t i = 0; i < mixture.mean.size(); ++i) mixture.mean[i] += weight * path.mean[i];
      for (std::size_t i = 0; i < mixture.var.size(); ++i) mixture.var[i] += weight * path.var[i];
      for (std::size_t i = 0; i < mixture.tmat.size(); ++i) mixture.tmat[i] += weight * path.tmat[i];
    }
    Accumulators acc(ShapeOf(tiny.model), false);
    stats.AddTo(acc);
    ExpectStatisticsNear(acc, mixture, 1e-8);
  }
}

TEST(ForwardBackwardBruteForceTest, AlphaBeamIsRelativeToTheFramesBestState) {
  const TinyModel tiny;
  const Dictionary dict = Dictionary::Parse("WA A\nWB B\nWAB A B\n", "tiny.dic", false);
  struct Case {
    std::vector<std::string> words;
    std::vector<std::uint32_t> phone_ids;
    std::uint32_t n_frames;
  };
  const Case cases[] = {
      {{"WAB", "WA"}, {0, 1, 0}, 14},
      {{"WAB", "WAB"}, {0, 1, 0, 1}, 30},
      {{"WA"}, {0}, 20},
  };
  std::uint32_t n_pruned_and_aligned = 0, n_failed = 0;
  for (const Case& c : cases) {
    const SentenceHmm hmm = BuildSentenceHmm(c.words, dict, tiny.files.mdef, tiny.model);
    const Features features = TinyFeatures(c.n_frames);
    const Lattice lattice(tiny, c.phone_ids, features);
    const PrunedForward unpruned(lattice, 0.0);
    ASSERT_TRUE(unpruned.reached);
    for (double abeam : {0.5, 1e-1, 1e-2, 1e-3, 1e-5, 1e-8}) {
      SCOPED_TRACE(c.words[0] + " / " + std::to_string(c.phone_ids.size()) + " phones / abeam " + std::to_string(abeam));
      const PrunedForward expected(lattice, abeam);
      ForwardBackwardOptions options = WideBeams();
      options.beams.abeam = abeam;
      ForwardBackward fb;
      UtteranceStats stats;
      ForwardBackwardStats fb_stats;
      const std::optional<AlignmentFailure> failure = fb.Run(tiny.model, hmm, features, options, stats, fb_stats);
      if (!expected.reached) {
        ASSERT_TRUE(failure.has_value());
        EXPECT_TRUE(failure->reason == "final-state-not-reached" || failure->reason == "no-active-states") << failure->reason;
        EXPECT_TRUE(failure->beam_related);
        ++n_failed;
        continue;
      }
      ASSERT_FALSE(failure.has_value()) << failure->reason << ": " << failure->message;
      EXPECT_DOUBLE_EQ(fb_stats.avg_alpha_states, expected.avg_alpha_states);
      EXPECT_PRED4(NearRelative, fb_stats.log_likelihood, expected.log_likelihood, 1e-9, 0.0);
      EXPECT_LE(expected.log_likelihood, unpruned.log_likelihood);
      if (expected.avg_alpha_states < unpruned.avg_alpha_states) ++n_pruned_and_aligned;
    }
  }
  // The table exercises both outcomes: beams that prune yet align, and beams too narrow to align.
  EXPECT_GT(n_pruned_and_aligned, 0u);
  EXPECT_GT(n_failed, 0u);
}

}  // namespace
}  // namespace pstrain
