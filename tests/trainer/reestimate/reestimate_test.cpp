// Tests for re-estimation (trainer/reestimate/reestimate.h) on hand-built accumulators, and for the
// Accumulators value type (trainer/accumulators/accumulators.h): Add, Write/Read round trips.
#include "reestimate/reestimate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "accumulators/accumulators.h"
#include "accumulators/exact_accumulators.h"
#include "common/file_io.h"
#include "common/error.h"
#include "formats/mdef.h"
#include "formats/param_files.h"
#include "model/acoustic_model.h"

namespace pstrain {
namespace {

namespace fs = std::filesystem;

constexpr std::uint32_t kSenones = 6, kDensity = 2, kVeclen = 3, kTmats = 2, kEmit = 3;
const AccumulatorShape kShape{kSenones, kDensity, kVeclen, kTmats, kEmit};

// Two CI phones, 2 densities of dimension 3. Previous parameters are recognizable: means 100+i,
// variances 200+i, mixture weights 7+i, transitions 9+i (i = element index).
ModelFiles PreviousModel() {
  ModelFiles files;
  files.mdef = Mdef::Parse(
      "0.3\n2 n_base\n0 n_tri\n8 n_state_map\n6 n_tied_state\n6 n_tied_ci_state\n2 n_tied_tmat\n"
      "A - - - n/a 0 0 1 2 N\nB - - - n/a 1 3 4 5 N\n",
      "reest.mdef");
  files.means = GaussianParams::OneStream(kSenones, kDensity, kVeclen);
  files.variances = files.means;
  for (std::size_t idx = 0; idx < files.means.data.size(); ++idx) {
    files.means.data[idx] = 100.0f + static_cast<float>(idx);
    files.variances.data[idx] = 200.0f + static_cast<float>(idx);
  }
  files.mixture_weights = Array3D{kSenones, 1, kDensity, std::vector<float>(kSenones * kDensity)};
  for (std::size_t idx = 0; idx < files.mixture_weights.data.size(); ++idx) files.mixture_weights.data[idx] = 7.0f + static_cast<float>(idx);
  files.transition_matrices = Array3D{kTmats, kEmit, kEmit + 1, std::vector<float>(kTmats * kEmit * (kEmit + 1))};
  for (std::size_t idx = 0; idx < files.transition_matrices.data.size(); ++idx) {
    files.transition_matrices.data[idx] = 9.0f + static_cast<float>(idx);
  }
  files.feat_params_text = "-feat 1s_c_d_dd\n";
  files.has_feat_params = true;
  return files;
}

void SetVec(double* out, std::initializer_list<double> values) {
  std::size_t idx = 0;
  for (double v : values) out[idx++] = v;
}

float Mean(const ModelFiles& files, std::uint32_t senone, std::uint32_t k, std::uint32_t dim) {
  return files.means.data[files.means.Offset(senone, 0, k) + dim];
}
float Var(const ModelFiles& files, std::uint32_t senone, std::uint32_t k, std::uint32_t dim) {
  return files.variances.data[files.variances.Offset(senone, 0, k) + dim];
}

// Every parameter of `a` and `b` bit for bit (float ==; these models hold no NaN).
void ExpectSameParameters(const ModelFiles& a, const ModelFiles& b) {
  EXPECT_EQ(a.means.data, b.means.data);
  EXPECT_EQ(a.variances.data, b.variances.data);
  EXPECT_EQ(a.mixture_weights.data, b.mixture_weights.data);
  EXPECT_EQ(a.transition_matrices.data, b.transition_matrices.data);
}

TEST(ReestimateTest, OnePassMeansAndVariances) {
  const ModelFiles previous = PreviousModel();
  Accumulators acc(kShape, false);
  // Exact case: dnom 2, mean {1, 2, -3}, E[x^2] {2, 5, 10} -> variance {1, 1, 1}.
  acc.dnom(0, 0) = 2.0;
  SetVec(acc.mean(0, 0), {2.0, 4.0, -6.0});
  SetVec(acc.var(0, 0), {4.0, 10.0, 20.0});
  // Inexact case: rounded once from double.
  acc.dnom(0, 1) = 3.0;
  SetVec(acc.mean(0, 1), {1.0, 0.1, -7.0});
  SetVec(acc.var(0, 1), {1.0, 0.5, 50.0});
  ReestimationReport report;
  const ModelFiles next = Reestimate(acc, previous, &report);

  const float exact_means[] = {1.0f, 2.0f, -3.0f};
  for (std::uint32_t dim = 0; dim < kVeclen; ++dim) {
    SCOPED_TRACE("dim " + std::to_string(dim));
    EXPECT_EQ(Mean(next, 0, 0, dim), exact_means[dim]);
    EXPECT_EQ(Var(next, 0, 0, dim), 1.0f);
    const double mu = acc.mean(0, 1)[dim] / 3.0;
    EXPECT_EQ(Mean(next, 0, 1, dim), static_cast<float>(mu));
    EXPECT_EQ(Var(next, 0, 1, dim), static_cast<float>(acc.var(0, 1)[dim] / 3.0 - mu * mu));
  }
  EXPECT_EQ(Var(next, 0, 1, 0), static_cast<float>(2.0 / 9.0));
  EXPECT_EQ(report.negative_variances, 0u);
  // The model's other files are copied unchanged.
  EXPECT_EQ(next.mdef.Serialize(), previous.mdef.Serialize());
  EXPECT_EQ(next.feat_params_text, previous.feat_params_text);
  EXPECT_TRUE(next.has_feat_params);
}

TEST(ReestimateTest, TwoPassVarianceIsVarOverDnom) {
  const ModelFiles previous = PreviousModel();
  Accumulators acc(kShape, true);
  acc.dnom(1, 0) = 4.0;
  SetVec(acc.mean(1, 0), {4.0, 8.0, 12.0});
  SetVec(acc.var(1, 0), {2.0, 1.0, 0.3});
  const ModelFiles next = Reestimate(acc, previous, nullptr);
  const float expected_var[] = {0.5f, 0.25f, static_cast<float>(0.3 / 4.0)};
  for (std::uint32_t dim = 0; dim < kVeclen; ++dim) {
    SCOPED_TRACE("dim " + std::to_string(dim));
    EXPECT_EQ(Mean(next, 1, 0, dim), static_cast<float>(dim + 1));
    EXPECT_EQ(Var(next, 1, 0, dim), expected_var[dim]);  // not var/dnom - mu^2 (that would be negative)
  }
}

TEST(ReestimateTest, UncountedParametersKeepPreviousValuesAndAreReported) {
  const ModelFiles previous = PreviousModel();
  Accumulators acc(kShape, false);
  // Gaussians: senone 0 both densities, senone 1 density 0 only, senone 3 density 1 only, senone 4
  // both; senones 2 and 5 none. Senone 3 has one negative variance component (E[x^2] < mu^2).
  for (auto [senone, k] : {std::pair{0u, 0u}, {0u, 1u}, {1u, 0u}, {3u, 1u}, {4u, 0u}, {4u, 1u}}) {
    acc.dnom(senone, k) = 1.0;
    SetVec(acc.mean(senone, k), {1.0, 1.0, 1.0});
    SetVec(acc.var(senone, k), {2.0, 2.0, 2.0});
  }
  acc.var(3, 1)[2] = 0.5;
  // Mixture weights: rows 2 and 5 have no counts; row 4 has a zero and a tiny count.
  acc.mixw(0, 0) = 2.5;
  acc.mixw(0, 1) = 0.5;
  acc.mixw(1, 0) = 1.0;
  acc.mixw(3, 1) = 1.0;
  acc.mixw(4, 1) = 1e-40;
  // Transitions: tmat 0 row 1 and all of tmat 1 have no counts.
  acc.tmat(0, 0, 0) = 3.0;
  acc.tmat(0, 0, 1) = 1.25;
  acc.tmat(0, 2, 2) = 5.0;
  acc.tmat(0, 2, 3) = 2.0;

  ReestimationReport report;
  const ModelFiles next = Reestimate(acc, previous, &report);
  // In place (the training loop's form): the same, kept parameters included.
  ExpectSameParameters(Reestimate(acc, ModelFiles(previous), nullptr), next);
  EXPECT_EQ(report.densities_without_counts, 1u + 2u + 1u + 2u);
  EXPECT_EQ(report.unseen_senones, (std::vector<std::uint32_t>{2, 5}));
  EXPECT_EQ(report.mixw_rows_without_counts, 2u);
  EXPECT_EQ(report.tmat_rows_without_counts, 1u + 3u);
  EXPECT_EQ(report.negative_variances, 1u);

  struct DensityCase {
    std::uint32_t senone, k;
    bool counted;
  };
  const DensityCase densities[] = {{0, 0, true},  {0, 1, true},  {1, 0, true},  {1, 1, false}, {2, 0, false}, {2, 1, false},
                                   {3, 0, false}, {3, 1, true},  {4, 0, true},  {4, 1, true},  {5, 0, false}, {5, 1, false}};
  for (const DensityCase& c : densities) {
    SCOPED_TRACE("senone " + std::to_string(c.senone) + " density " + std::to_string(c.k));
    for (std::uint32_t dim = 0; dim < kVeclen; ++dim) {
      if (c.counted) {
        EXPECT_EQ(Mean(next, c.senone, c.k, dim), 1.0f);
        // Senone 3's negative variance component (0.5 - 1) is written as 0, never negative.
        EXPECT_EQ(Var(next, c.senone, c.k, dim), c.senone == 3 && dim == 2 ? 0.0f : 1.0f);
        EXPECT_FALSE(std::signbit(Var(next, c.senone, c.k, dim)));
      } else {
        EXPECT_EQ(Mean(next, c.senone, c.k, dim), Mean(previous, c.senone, c.k, dim));
        EXPECT_EQ(Var(next, c.senone, c.k, dim), Var(previous, c.senone, c.k, dim));
      }
    }
  }

  // Mixture weights are the raw counts (zeros stay zero, tiny values clamped as bw writes them);
  // uncounted rows keep the previous values.
  const float expected_mixw[kSenones][kDensity] = {{2.5f, 0.5f}, {1.0f, 0.0f}, {11.0f, 12.0f},
                                                   {0.0f, 1.0f}, {0.0f, kMinPosFloat32}, {17.0f, 18.0f}};
  for (std::uint32_t senone = 0; senone < kSenones; ++senone) {
    for (std::uint32_t k = 0; k < kDensity; ++k) {
      EXPECT_EQ(next.mixture_weights.at(senone, 0, k), expected_mixw[senone][k]) << "senone " << senone << " density " << k;
    }
  }
  for (std::uint32_t tmat = 0; tmat < kTmats; ++tmat) {
    for (std::uint32_t from = 0; from < kEmit; ++from) {
      for (std::uint32_t to = 0; to <= kEmit; ++to) {
        SCOPED_TRACE("tmat " + std::to_string(tmat) + " row " + std::to_string(from) + " col " + std::to_string(to));
        const bool row_counted = tmat == 0 && from != 1;
        const float expected = row_counted ? static_cast<float>(acc.tmat(tmat, from, to)) : previous.transition_matrices.at(tmat, from, to);
        EXPECT_EQ(next.transition_matrices.at(tmat, from, to), expected);
      }
    }
  }
  EXPECT_EQ(next.transition_matrices.at(0, 0, 1), 1.25f);
  EXPECT_EQ(next.transition_matrices.at(0, 0, 2), 0.0f);
}

TEST(ReestimateTest, DimensionMismatchIsAnInputError) {
  const ModelFiles previous = PreviousModel();
  struct Case {
    std::string name;
    AccumulatorShape shape;
  };
  const Case cases[] = {
      {"senones", {kSenones + 1, kDensity, kVeclen, kTmats, kEmit}},
      {"densities", {kSenones, kDensity - 1, kVeclen, kTmats, kEmit}},
      {"veclen", {kSenones, kDensity, kVeclen + 1, kTmats, kEmit}},
      {"tmats", {kSenones, kDensity, kVeclen, kTmats + 1, kEmit}},
      {"emitting states", {kSenones, kDensity, kVeclen, kTmats, kEmit - 1}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_THROW(Reestimate(Accumulators(c.shape, false), previous, nullptr), InputError);
  }
  EXPECT_NO_THROW(Reestimate(Accumulators(kShape, false), previous, nullptr));
}

// ---- Accumulators ----

// Fills every statistic with distinct doubles, most not representable in float32, some tiny.
Accumulators FilledAccumulators(bool pass2var, std::uint32_t seed) {
  Accumulators acc(kShape, pass2var);
  std::mt19937_64 rng(seed);
  auto value = [&rng] {
    const double unit = static_cast<double>(rng() >> 11) / 9007199254740992.0;  // [0, 1) with 53 bits
    return (unit - 0.25) * 1000.0;
  };
  for (std::uint32_t senone = 0; senone < kSenones; ++senone) {
    for (std::uint32_t k = 0; k < kDensity; ++k) {
      acc.mixw(senone, k) = value();
      acc.dnom(senone, k) = value();
      for (std::uint32_t dim = 0; dim < kVeclen; ++dim) {
        acc.mean(senone, k)[dim] = value();
        acc.var(senone, k)[dim] = value();
      }
    }
  }
  for (std::uint32_t tmat = 0; tmat < kTmats; ++tmat) {
    for (std::uint32_t from = 0; from < kEmit; ++from) {
      for (std::uint32_t to = 0; to <= kEmit; ++to) acc.tmat(tmat, from, to) = value();
    }
  }
  acc.mixw(1, 1) = 3e-39;   // clamped to 1.2e-38 in the float32 files
  acc.dnom(2, 0) = -1e-45;  // tiny negative
  acc.tmat(1, 2, 3) = 0.0;
  return acc;
}

bool BitIdentical(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

class AccumulatorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "pstrain_accum_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  fs::path dir_;
};

// The exact form of FilledAccumulators' values (each rounded once to 2^-64).
ExactAccumulators ExactFrom(const Accumulators& acc) {
  ExactAccumulators exact(acc.shape(), acc.pass2var());
  using Block = ExactAccumulators::Block;
  for (auto [block, data] : {std::pair{Block::kMixw, &acc.mixw_data()}, std::pair{Block::kDnom, &acc.dnom_data()},
                             std::pair{Block::kMean, &acc.mean_data()}, std::pair{Block::kVar, &acc.var_data()},
                             std::pair{Block::kTmat, &acc.tmat_data()}}) {
    for (std::size_t i = 0; i < data->size(); ++i) exact.AddValue(block, i, (*data)[i]);
  }
  return exact;
}

// A tied-CD-sized model (701 senones x 8 densities x 39 dimensions, above the size re-estimated on
// several threads) re-estimated on 1, 2 and 3 threads: the same parameters bit for bit and the same
// report, with densities, senones and mixture-weight rows without counts and negative variances
// spread over the senone ranges and at their edges. With 2 threads the sums are asked from more
// than one thread (the split is taken), and every density with counts is asked exactly once.
TEST(ReestimateTest, SeveralThreadsGiveOneThreadsModelAndReport) {
  constexpr std::uint32_t kManySenones = 701, kEight = 8, kDims = 39;
  const AccumulatorShape shape{kManySenones, kEight, kDims, kTmats, kEmit};
  ModelFiles previous;
  previous.means = GaussianParams::OneStream(kManySenones, kEight, kDims);
  previous.variances = previous.means;
  for (std::size_t i = 0; i < previous.means.data.size(); ++i) {
    previous.means.data[i] = 0.5f + static_cast<float>(i % 1000);
    previous.variances.data[i] = 1.5f + static_cast<float>(i % 777);
  }
  previous.mixture_weights = Array3D{kManySenones, 1, kEight, std::vector<float>(std::size_t(kManySenones) * kEight, 0.125f)};
  previous.transition_matrices = Array3D{kTmats, kEmit, kEmit + 1, std::vector<float>(kTmats * kEmit * (kEmit + 1), 0.25f)};

  for (bool pass2var : {false, true}) {
    SCOPED_TRACE(pass2var ? "2-pass" : "1-pass");
    Accumulators acc(shape, pass2var);
    std::mt19937_64 rng(29);
    const auto unit = [&rng] { return static_cast<double>(rng() >> 11) / 9007199254740992.0; };
    for (std::uint32_t senone = 0; senone < kManySenones; ++senone) {
      // Every 7th senone unseen, and some on either side of a range's edge (the ranges of 2 threads
      // start at 87, 175, ..., 613; of 3 at 58, 116, 175, 233, ...) and the last; every 5th density
      // of the rest without counts; every 11th mixture-weight row zero.
      const bool unseen = senone % 7 == 0 || senone == 87 || senone == 88 || senone == 175 || senone == 233 || senone == 234 ||
                          senone == 700;
      for (std::uint32_t k = 0; k < kEight; ++k) {
        if (senone % 11 != 0) acc.mixw(senone, k) = unit() * 10.0;
        if (unseen || (senone * kEight + k) % 5 == 0) continue;
        acc.dnom(senone, k) = 0.5 + unit() * 100.0;
        for (std::uint32_t dim = 0; dim < kDims; ++dim) {
          acc.mean(senone, k)[dim] = (unit() - 0.5) * 50.0;
          // Now and then a negative variance, written as 0 (1-pass: E[x^2] below mu^2).
          acc.var(senone, k)[dim] = dim % 13 == 0 ? (pass2var ? -1e-3 : 0.0) : unit() * 500.0;
        }
      }
    }
    for (std::uint32_t tmat = 0; tmat < kTmats; ++tmat) {
      for (std::uint32_t from = 0; from < kEmit; ++from) {
        for (std::uint32_t to = 0; to <= kEmit; ++to) acc.tmat(tmat, from, to) = unit();
      }
    }
    const ExactAccumulators exact = ExactFrom(acc);
    const Accumulators partial = exact.ToAccumulatorsWithoutGaussians();
    std::mutex asked_mutex;
    std::condition_variable another_asked;
    std::set<std::thread::id> asking_threads;
    bool held = false;
    std::vector<int> asked(std::size_t(kManySenones) * kEight, 0);
    const GaussianRows rows = [&](std::uint32_t senone, std::uint32_t k, double* mean, double* var) {
      const std::size_t first = (std::size_t(senone) * kEight + k) * kDims;
      exact.MeanDoubles(first, kDims, mean);
      exact.VarDoubles(first, kDims, var);
      std::unique_lock<std::mutex> lock(asked_mutex);
      asking_threads.insert(std::this_thread::get_id());
      ++asked[std::size_t(senone) * kEight + k];
      // The first call is held (at most 10 s) until another thread asks too, so that a split is seen
      // however the threads are scheduled; a second thread is never started otherwise.
      if (!held) {
        held = true;
        another_asked.wait_for(lock, std::chrono::seconds(10), [&] { return asking_threads.size() > 1; });
      } else if (asking_threads.size() > 1) {
        another_asked.notify_all();
      }
    };

    ReestimationReport one_report;
    const ModelFiles one = Reestimate(exact.ToAccumulators(), ModelFiles(previous), &one_report, nullptr, {}, 1);
    EXPECT_GT(one_report.densities_without_counts, 0u);
    EXPECT_GT(one_report.mixw_rows_without_counts, 0u);
    EXPECT_GT(one_report.negative_variances, 0u);
    EXPECT_GT(one_report.unseen_senones.size(), 100u);
    for (unsigned threads : {2u, 3u}) {
      SCOPED_TRACE(std::to_string(threads) + " threads");
      for (bool with_rows : {false, true}) {
        SCOPED_TRACE(with_rows ? "sums asked by density" : "whole view");
        asking_threads.clear();
        held = false;
        std::fill(asked.begin(), asked.end(), 0);
        ReestimationReport report;
        const ModelFiles many = with_rows ? Reestimate(partial, ModelFiles(previous), &report, nullptr, rows, threads)
                                          : Reestimate(exact.ToAccumulators(), ModelFiles(previous), &report, nullptr, {}, threads);
        ExpectSameParameters(many, one);
        EXPECT_EQ(report.densities_without_counts, one_report.densities_without_counts);
        EXPECT_EQ(report.mixw_rows_without_counts, one_report.mixw_rows_without_counts);
        EXPECT_EQ(report.tmat_rows_without_counts, one_report.tmat_rows_without_counts);
        EXPECT_EQ(report.negative_variances, one_report.negative_variances);
        EXPECT_EQ(report.unseen_senones, one_report.unseen_senones);
        if (!with_rows) continue;
        EXPECT_GT(asking_threads.size(), 1u);
        for (std::size_t d = 0; d < asked.size(); ++d) ASSERT_EQ(asked[d], acc.dnom_data()[d] == 0.0 ? 0 : 1) << "density " << d;
      }
    }
  }
}

TEST_F(AccumulatorsTest, ExactWriteReadRoundTripIsExact) {
  for (bool pass2var : {false, true}) {
    SCOPED_TRACE(pass2var ? "2-pass" : "1-pass");
    const ExactAccumulators exact = ExactFrom(FilledAccumulators(pass2var, 11));
    const fs::path accum_dir = dir_ / (pass2var ? "two" : "one") / "accum";  // Write creates parents
    exact.Write(accum_dir.string());
    for (const char* name : {"gauden_counts", "mixw_counts", "tmat_counts", "exact_counts"}) {
      EXPECT_TRUE(fs::is_regular_file(accum_dir / name)) << name;
    }
    EXPECT_TRUE(ExactAccumulators::Read(accum_dir.string()) == exact);
    // Accumulators::Read prefers exact_counts: the double view is bit-identical to ToAccumulators().
    const Accumulators view = exact.ToAccumulators();
    const Accumulators read = Accumulators::Read(accum_dir.string());
    EXPECT_EQ(read.shape(), view.shape());
    EXPECT_EQ(read.pass2var(), pass2var);
    EXPECT_TRUE(BitIdentical(read.mixw_data(), view.mixw_data()));
    EXPECT_TRUE(BitIdentical(read.dnom_data(), view.dnom_data()));
    EXPECT_TRUE(BitIdentical(read.mean_data(), view.mean_data()));
    EXPECT_TRUE(BitIdentical(read.var_data(), view.var_data()));
    EXPECT_TRUE(BitIdentical(read.tmat_data(), view.tmat_data()));

    // Reading twice and adding doubles every statistic exactly (reading with add is the reduction).
    ExactAccumulators twice = ExactAccumulators::Read(accum_dir.string());
    twice.Add(ExactAccumulators::Read(accum_dir.string()), "twice");
    const Accumulators twice_view = twice.ToAccumulators();
    for (std::size_t idx = 0; idx < view.mean_data().size(); ++idx) ASSERT_EQ(twice_view.mean_data()[idx], 2.0 * view.mean_data()[idx]);
    for (std::size_t idx = 0; idx < view.tmat_data().size(); ++idx) ASSERT_EQ(twice_view.tmat_data()[idx], 2.0 * view.tmat_data()[idx]);
  }
}

// A view of exact sums without their mean and variance blocks: the bw-format files written with
// those values asked piece by piece are the whole view's bytes, and re-estimation asking each
// density's sums gives the whole view's model and report. Used where it cannot be, it refuses.
TEST_F(AccumulatorsTest, AViewWithoutGaussiansWritesAndReestimatesAsTheWholeView) {
  for (bool pass2var : {false, true}) {
    SCOPED_TRACE(pass2var ? "2-pass" : "1-pass");
    Accumulators filled = FilledAccumulators(pass2var, 13);
    filled.dnom(4, 1) = 0.0;  // a density without counts keeps its previous parameters
    const ExactAccumulators exact = ExactFrom(filled);
    const Accumulators whole = exact.ToAccumulators();
    const Accumulators partial = exact.ToAccumulatorsWithoutGaussians();
    EXPECT_TRUE(whole.has_gaussians());
    EXPECT_FALSE(partial.has_gaussians());

    const fs::path a = dir_ / (pass2var ? "two" : "one") / "whole", b = dir_ / (pass2var ? "two" : "one") / "partial";
    const std::vector<std::string> whole_digests = whole.Write(a.string());
    const std::vector<std::string> partial_digests = partial.Write(
        b.string(), [&exact](std::size_t first, std::size_t n, double* out) { exact.MeanDoubles(first, n, out); },
        [&exact](std::size_t first, std::size_t n, double* out) { exact.VarDoubles(first, n, out); });
    EXPECT_EQ(partial_digests, whole_digests);
    for (const char* name : {"gauden_counts", "mixw_counts", "tmat_counts"}) {
      EXPECT_EQ(ReadFileBytes(b / name), ReadFileBytes(a / name)) << name;
    }

    const GaussianRows rows = [&exact](std::uint32_t senone, std::uint32_t k, double* mean, double* var) {
      const std::size_t first = (std::size_t(senone) * kDensity + k) * kVeclen;
      exact.MeanDoubles(first, kVeclen, mean);
      exact.VarDoubles(first, kVeclen, var);
    };
    ReestimationReport whole_report, rows_report;
    const ModelFiles from_whole = Reestimate(whole, PreviousModel(), &whole_report);
    const ModelFiles from_rows = Reestimate(partial, PreviousModel(), &rows_report, nullptr, rows);
    ExpectSameParameters(from_whole, from_rows);
    EXPECT_GT(rows_report.densities_without_counts, 0u);
    EXPECT_EQ(rows_report.densities_without_counts, whole_report.densities_without_counts);
    EXPECT_EQ(rows_report.negative_variances, whole_report.negative_variances);
    EXPECT_EQ(rows_report.unseen_senones, whole_report.unseen_senones);

    EXPECT_THROW(Reestimate(partial, PreviousModel(), nullptr), TrainingError);
    const std::vector<std::uint8_t> activated(kSenones, 1);
    EXPECT_THROW(Reestimate(partial, PreviousModel(), nullptr, &activated, rows), TrainingError);
    EXPECT_THROW(partial.Write((dir_ / "refused").string()), TrainingError);
    Accumulators sum = whole;
    EXPECT_THROW(sum.Add(partial), TrainingError);
    EXPECT_THROW(partial.ToGaudenCounts(), TrainingError);
  }
}

// The bw-format files with the means and variances asked a piece at a time are Write's bytes, for
// arrays of several pieces and a short last one (5 x 7 x 239 = 8,365 values: 4,096 + 4,096 + 173);
// the pieces are asked in order, each once, and cover each array.
TEST_F(AccumulatorsTest, TheMeansAndVariancesAskedInPiecesGiveWritesBytes) {
  const AccumulatorShape shape{5, 7, 239, 1, 3};
  Accumulators acc(shape, true);
  std::mt19937_64 rng(41);
  for (std::uint32_t senone = 0; senone < shape.n_senones; ++senone) {
    for (std::uint32_t k = 0; k < shape.n_density; ++k) {
      acc.dnom(senone, k) = double(rng() % 1000) / 7.0;
      for (std::uint32_t l = 0; l < shape.veclen; ++l) {
        acc.mean(senone, k)[l] = (double(rng() >> 11) / 9007199254740992.0 - 0.5) * 100.0;
        acc.var(senone, k)[l] = double(rng() >> 11) / 9007199254740992.0 * 50.0;
      }
    }
  }
  const std::vector<std::string> whole = acc.Write((dir_ / "whole").string());
  std::vector<std::pair<std::size_t, std::size_t>> mean_asked, var_asked;
  const auto from = [](const std::vector<double>& values, std::vector<std::pair<std::size_t, std::size_t>>& asked) {
    return [&values, &asked](std::size_t first, std::size_t n, double* out) {
      asked.emplace_back(first, n);
      std::copy_n(values.data() + first, n, out);
    };
  };
  const std::vector<std::string> pieces = acc.Write((dir_ / "pieces").string(), from(acc.mean_data(), mean_asked), from(acc.var_data(), var_asked));
  EXPECT_EQ(pieces, whole);
  for (const char* name : {"gauden_counts", "mixw_counts", "tmat_counts"}) {
    EXPECT_EQ(ReadFileBytes(dir_ / "pieces" / name), ReadFileBytes(dir_ / "whole" / name)) << name;
  }
  const std::size_t size = std::size_t(shape.n_senones) * shape.n_density * shape.veclen;
  for (const auto* asked : {&mean_asked, &var_asked}) {
    ASSERT_EQ(asked->size(), 3u);
    std::size_t next = 0;
    for (const auto& [first, n] : *asked) {
      EXPECT_EQ(first, next);
      next = first + n;
    }
    EXPECT_EQ(next, size);
  }
}

TEST_F(AccumulatorsTest, CorruptExactCountsAreRejected) {
  const fs::path accum_dir = dir_ / "corrupt";
  ExactFrom(FilledAccumulators(false, 14)).Write(accum_dir.string());
  const fs::path exact_path = accum_dir / "exact_counts";
  const auto bytes = ReadFileBytes(exact_path);
  for (std::size_t keep : {std::size_t{0}, std::size_t{10}, bytes.size() - 1}) {
    SCOPED_TRACE(keep);
    WriteFileAtomic(exact_path, std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(keep)));
    try {
      ExactAccumulators::Read(accum_dir.string());
      ADD_FAILURE() << "a truncated exact_counts was accepted";
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find(exact_path.string()), std::string::npos) << error.what();
    }
  }
}

TEST_F(AccumulatorsTest, ReadsBwFormatFilesAlone) {
  for (bool pass2var : {false, true}) {
    SCOPED_TRACE(pass2var ? "2-pass" : "1-pass");
    const Accumulators acc = FilledAccumulators(pass2var, 12);
    const fs::path accum_dir = dir_ / (pass2var ? "bw2" : "bw1");
    acc.Write(accum_dir.string());
    ASSERT_FALSE(fs::exists(accum_dir / "exact_counts")) << "the double view writes bw's three files only";
    const Accumulators read = Accumulators::Read(accum_dir.string());
    EXPECT_EQ(read.shape(), acc.shape());
    EXPECT_EQ(read.pass2var(), pass2var);
    auto as_written = [](const std::vector<double>& values) {
      std::vector<double> out;
      for (double v : values) out.push_back(double(ClampTinyMagnitude(static_cast<float>(v))));
      return out;
    };
    EXPECT_EQ(read.mixw_data(), as_written(acc.mixw_data()));
    EXPECT_EQ(read.dnom_data(), as_written(acc.dnom_data()));
    EXPECT_EQ(read.mean_data(), as_written(acc.mean_data()));
    EXPECT_EQ(read.var_data(), as_written(acc.var_data()));
    EXPECT_EQ(read.tmat_data(), as_written(acc.tmat_data()));
    EXPECT_EQ(read.mixw_data()[1 * kDensity + 1], double(kMinPosFloat32));
    EXPECT_EQ(read.dnom_data()[2 * kDensity + 0], -double(kMinPosFloat32));
    EXPECT_NE(read.mean_data(), acc.mean_data());  // float32 rounding really happened
  }
}

TEST_F(AccumulatorsTest, ReadErrors) {
  EXPECT_THROW(Accumulators::Read((dir_ / "missing").string()), InputError);
  const fs::path partial = dir_ / "partial";
  FilledAccumulators(false, 13).Write(partial.string());
  fs::remove(partial / "tmat_counts");
  EXPECT_THROW(Accumulators::Read(partial.string()), InputError);
}

TEST(AccumulatorsAddTest, AddSumsElementWise) {
  Accumulators sum = FilledAccumulators(false, 1);
  const Accumulators other = FilledAccumulators(false, 2);
  const Accumulators original = sum;
  sum.Add(other);
  auto check = [](const std::vector<double>& total, const std::vector<double>& a, const std::vector<double>& b, const char* what) {
    ASSERT_EQ(total.size(), a.size()) << what;
    for (std::size_t idx = 0; idx < total.size(); ++idx) ASSERT_EQ(total[idx], a[idx] + b[idx]) << what << "[" << idx << "]";
  };
  check(sum.mixw_data(), original.mixw_data(), other.mixw_data(), "mixw");
  check(sum.dnom_data(), original.dnom_data(), other.dnom_data(), "dnom");
  check(sum.mean_data(), original.mean_data(), other.mean_data(), "mean");
  check(sum.var_data(), original.var_data(), other.var_data(), "var");
  check(sum.tmat_data(), original.tmat_data(), other.tmat_data(), "tmat");
}

TEST(AccumulatorsAddTest, MismatchedShapesOrVarianceModesThrow) {
  struct Case {
    std::string name;
    AccumulatorShape shape;
    bool pass2var;
  };
  const Case cases[] = {
      {"senones", {kSenones + 1, kDensity, kVeclen, kTmats, kEmit}, false},
      {"densities", {kSenones, kDensity + 1, kVeclen, kTmats, kEmit}, false},
      {"veclen", {kSenones, kDensity, kVeclen - 1, kTmats, kEmit}, false},
      {"tmats", {kSenones, kDensity, kVeclen, kTmats - 1, kEmit}, false},
      {"emitting states", {kSenones, kDensity, kVeclen, kTmats, kEmit + 1}, false},
      {"2-pass into 1-pass", kShape, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Accumulators acc(kShape, false);
    try {
      acc.Add(Accumulators(c.shape, c.pass2var), "part-7");
      ADD_FAILURE() << "expected an InputError";
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find("part-7"), std::string::npos) << error.what();
    }
  }
  Accumulators acc(kShape, false);
  EXPECT_NO_THROW(acc.Add(Accumulators(kShape, false)));
}

}  // namespace
}  // namespace pstrain

namespace pstrain {
namespace {

// The multipron survival prior (docs/multipron.md), by hand. Senone 1 is activated and was seen in
// two shards; senone 2 is activated and unseen; senone 3 is seen and not activated.
class SurvivalPriorTest : public ::testing::TestWithParam<bool> {};

TEST_P(SurvivalPriorTest, OneUnitAtThePreviousParametersOnceAfterReduction) {
  const bool pass2var = GetParam();
  const ModelFiles previous = PreviousModel();
  // Two shards' statistics for senones 1 and 3, reduced (exactly) before re-estimation.
  auto shard = [&] {
    using Block = ExactAccumulators::Block;
    ExactAccumulators stats(kShape, pass2var);
    for (std::size_t senone : {1u, 3u}) {
      const std::size_t density = senone * kDensity;  // density 0
      stats.AddValue(Block::kDnom, density, 1.5);
      stats.AddValue(Block::kMixw, density, 1.5);
      const double x[] = {3.0, -1.5, 0.75}, x2[] = {9.0, 4.5, 2.25};
      for (std::size_t dim = 0; dim < kVeclen; ++dim) {
        stats.AddValue(Block::kMean, density * kVeclen + dim, x[dim]);
        stats.AddValue(Block::kVar, density * kVeclen + dim, x2[dim]);
      }
    }
    return stats;
  };
  ExactAccumulators reduced = shard();
  reduced.Add(shard(), "shard b");
  const Accumulators total = reduced.ToAccumulators();
  std::vector<std::uint8_t> activated(kSenones, 0);
  activated[1] = activated[2] = 1;

  ReestimationReport report;
  const ModelFiles next = Reestimate(total, previous, &report, &activated);
  EXPECT_EQ(report.survival_prior_states, 1u);
  EXPECT_EQ(report.activated_states_without_counts, 1u);

  // Senone 1, density 0: previous weights 9 and 10 (elements 2 and 3) -> w0 = 9/19.
  const double w0 = 9.0 / 19.0, w1 = 10.0 / 19.0;
  for (std::uint32_t dim = 0; dim < kVeclen; ++dim) {
    const double mu_prev = Mean(previous, 1, 0, dim), var_prev = Var(previous, 1, 0, dim);
    const double sum_x = 2 * std::vector<double>{3.0, -1.5, 0.75}[dim];
    const double sum_x2 = 2 * std::vector<double>{9.0, 4.5, 2.25}[dim];
    const double dnom = 3.0 + w0;
    const double mean = (sum_x + w0 * mu_prev) / dnom;
    const double var = pass2var ? (sum_x2 + w0 * var_prev) / dnom : (sum_x2 + w0 * (var_prev + mu_prev * mu_prev)) / dnom - mean * mean;
    EXPECT_EQ(Mean(next, 1, 0, dim), static_cast<float>(mean)) << "dim " << dim;
    EXPECT_EQ(Var(next, 1, 0, dim), static_cast<float>(var)) << "dim " << dim;
    // Applied per shard instead, the prior would count twice: a different mean.
    EXPECT_NE(Mean(next, 1, 0, dim), static_cast<float>((sum_x + 2 * w0 * mu_prev) / (3.0 + 2 * w0))) << "dim " << dim;
    // Density 1 of senone 1 had no counts: kept exactly.
    EXPECT_EQ(Mean(next, 1, 1, dim), Mean(previous, 1, 1, dim));
    EXPECT_EQ(Var(next, 1, 1, dim), Var(previous, 1, 1, dim));
  }
  EXPECT_EQ(next.mixture_weights.at(1, 0, 0), static_cast<float>(3.0 + w0));
  EXPECT_EQ(next.mixture_weights.at(1, 0, 1), static_cast<float>(w1));

  // Senone 2 (activated, unseen) keeps every previous parameter bit for bit.
  for (std::uint32_t k = 0; k < kDensity; ++k) {
    EXPECT_EQ(next.mixture_weights.at(2, 0, k), previous.mixture_weights.at(2, 0, k));
    for (std::uint32_t dim = 0; dim < kVeclen; ++dim) {
      EXPECT_EQ(Mean(next, 2, k, dim), Mean(previous, 2, k, dim));
      EXPECT_EQ(Var(next, 2, k, dim), Var(previous, 2, k, dim));
    }
  }
  // Re-estimated in place (the training loop's form): the same parameters and report, and the
  // statistics it was given unchanged (the prior works on a copy).
  const Accumulators total_before = total;
  ReestimationReport in_place_report;
  const ModelFiles in_place = Reestimate(total, ModelFiles(previous), &in_place_report, &activated);
  ExpectSameParameters(in_place, next);
  EXPECT_EQ(in_place_report.survival_prior_states, report.survival_prior_states);
  EXPECT_EQ(in_place_report.activated_states_without_counts, report.activated_states_without_counts);
  EXPECT_EQ(in_place_report.densities_without_counts, report.densities_without_counts);
  EXPECT_EQ(total.mean_data(), total_before.mean_data());
  EXPECT_EQ(total.dnom_data(), total_before.dnom_data());
  EXPECT_EQ(total.mixw_data(), total_before.mixw_data());

  // Senone 3 (seen, not activated) is plain maximum likelihood, as without flags.
  const ModelFiles plain = Reestimate(total, previous, nullptr);
  ExpectSameParameters(Reestimate(total, ModelFiles(previous), nullptr), plain);
  EXPECT_EQ(next.means.data[next.means.Offset(3, 0, 0)], plain.means.data[plain.means.Offset(3, 0, 0)]);
  EXPECT_EQ(next.mixture_weights.at(3, 0, 0), plain.mixture_weights.at(3, 0, 0));
  EXPECT_EQ(Mean(plain, 3, 0, 0), static_cast<float>(6.0 / 3.0));
}

INSTANTIATE_TEST_SUITE_P(VarianceModes, SurvivalPriorTest, ::testing::Values(false, true),
                         [](const auto& test_info) { return test_info.param ? "TwoPassVariance" : "OnePassVariance"; });

TEST(SurvivalPriorTest, FlagsMustCoverTheModel) {
  const ModelFiles previous = PreviousModel();
  const Accumulators acc(kShape, false);
  const std::vector<std::uint8_t> short_flags(kSenones - 1, 1);
  EXPECT_THROW(Reestimate(acc, previous, nullptr, &short_flags), InputError);
}

}  // namespace
}  // namespace pstrain
