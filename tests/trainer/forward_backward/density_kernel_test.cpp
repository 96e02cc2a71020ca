// DensityKernel::EvaluateMany against Evaluate: the same top-n indices and bit-identical log
// densities, senone by senone, for one-at-a-time models (1, 2 and 3 densities) and grouped ones
// (6 and 12 densities: groups of 4; 8, 16 and 24: groups of 8), topn all or below, with the
// kernels of every instruction-set level the CPU has, at every length of the batch (a multiple of
// 4 pairs and a tail); both against the reference, every density one at a time (EvaluateLogDensity) and the
// first topn of a stable sort. TopOrder against the first topn of a stable sort, with ties and -inf,
// for lists short enough for counted places (4, 8 and 16 among them) and longer ones.
#include "forward_backward/density_kernel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "forward_backward/gaussian_eval.h"
#include "model/acoustic_model.h"
#include "numerics/isa.h"
#include "numerics/vector_kernels.h"
#include "support/model_fixture_util.h"
#include "support/test_util.h"

namespace pstrain {
namespace {

TEST(DensityKernelTest, EvaluateManyGivesEvaluatesIndicesAndBits) {
  const std::filesystem::path an4_dir = testing::An4Model();
  ASSERT_TRUE(std::filesystem::is_directory(an4_dir)) << an4_dir << " is missing (scripts/bootstrap.sh installs it)";
  const ModelFiles an4 = ModelFiles::Load(an4_dir.string());
  std::mt19937 rng(12);
  struct Case {
    std::uint32_t n_density, topn;
  };
  for (const Case c : {Case{1, 0}, Case{2, 0}, Case{3, 0}, Case{3, 1}, Case{8, 2}, Case{8, 0}, Case{6, 0}, Case{6, 5}, Case{12, 0},
                       Case{16, 0}, Case{16, 1}, Case{16, 4}, Case{24, 0}}) {
    SCOPED_TRACE("densities " + std::to_string(c.n_density) + ", topn " + std::to_string(c.topn));
    const ModelFiles files = testing::WidenedModel(an4, c.n_density, rng);
    ModelOptions options;
    options.topn = c.topn;
    const AcousticModel model(files, options);
    EXPECT_EQ(model.has_grouped_layout(), c.n_density >= 4);
    if (model.has_grouped_layout()) {
      EXPECT_EQ(model.grouped_width(), c.n_density % 8 == 0 ? 8u : 4u);
    }
    const std::uint32_t n_senones = model.n_senones(), veclen = model.veclen(), topn = model.topn();
    // Frames near the senones' means (so the top-n order varies) and far from them.
    std::normal_distribution<float> noise(0.0f, 1.0f);
    for (std::uint32_t frame = 0; frame < 6; ++frame) {
      std::vector<float> x(veclen);
      const std::uint32_t near = (frame * 37) % n_senones;
      for (std::uint32_t l = 0; l < veclen; ++l) x[l] = model.MeanAt(near, 0, l) + noise(rng) * float(frame);
      // Batches of every length 1..9 (tails of 1-3 pairs), over a shuffled senone order.
      std::vector<std::uint32_t> senones(n_senones);
      for (std::uint32_t s = 0; s < n_senones; ++s) senones[s] = (s * 29 + frame) % n_senones;
      // Every level the CPU has: the model's layout (groups of 4 or 8) through each level's kernels.
      for (const numerics::IsaLevel level : numerics::SupportedIsaLevels()) {
        SCOPED_TRACE(std::string(numerics::IsaName(level)));
        const numerics::VectorKernels& kernels = numerics::KernelsFor(level);
        DensityKernel one(kernels), many(kernels);
        one.Prepare(model);
        many.Prepare(model);
        std::size_t at = 0;
        for (std::size_t batch = 1; at < senones.size(); batch = batch % 9 + 1) {
          const std::size_t n = std::min(batch, senones.size() - at);
          // Appended after what is there; with topn = all no index is appended (the order is the
          // identity, which Evaluate's Order must then be).
          std::vector<std::uint32_t> index{99};
          UninitializedVector<double> log{7.0};
          many.EvaluateMany(senones.data() + at, n, x.data(), index, log);
          const bool all = topn >= model.n_density();
          ASSERT_EQ(index.size(), 1 + (all ? 0 : n * topn));
          ASSERT_EQ(log.size(), 1 + n * topn);
          EXPECT_EQ(index[0], 99u);
          EXPECT_EQ(log[0], 7.0);
          for (std::size_t i = 0; i < n; ++i) {
            // The reference: every density on its own; with topn = all in index order, else the first
            // topn of a stable sort.
            const std::uint32_t senone = senones[at + i];
            std::vector<double> want_log(model.n_density());
            EvaluateSenoneLogDensities(model, senone, x.data(), want_log.data());
            std::vector<std::uint32_t> want_order(model.n_density());
            for (std::uint32_t k = 0; k < model.n_density(); ++k) want_order[k] = k;
            if (!all) {
              std::stable_sort(want_order.begin(), want_order.end(),
                               [&](std::uint32_t a, std::uint32_t b) { return want_log[a] > want_log[b]; });
            }
            one.Evaluate(senone, x.data());
            for (std::uint32_t kk = 0; kk < topn; ++kk) {
              ASSERT_EQ(one.Order(kk), want_order[kk]) << "senone " << senone << " rank " << kk;
              const double got = one.LogDensity(one.Order(kk));
              ASSERT_EQ(std::memcmp(&got, &want_log[want_order[kk]], sizeof got), 0) << "senone " << senone << " rank " << kk;
            }
            for (std::uint32_t kk = 0; kk < topn; ++kk) {
              EXPECT_EQ(all ? kk : index[1 + i * topn + kk], one.Order(kk)) << "senone " << senones[at + i] << " rank " << kk;
              const double want = one.LogDensity(one.Order(kk));
              EXPECT_EQ(std::memcmp(&log[1 + i * topn + kk], &want, sizeof want), 0)
                  << "senone " << senones[at + i] << " rank " << kk << ": " << log[1 + i * topn + kk] << " vs " << want;
            }
          }
          at += n;
        }
      }
    }
  }
}

TEST(DensityKernelTest, TopOrderIsTheFirstTopnOfAStableSortByDescendingValue) {
  std::mt19937 rng(5);
  const double kValues[] = {-std::numeric_limits<double>::infinity(), -1e300, -7.5, -7.5, -0.0, 0.0, 3.25, 1e300};
  std::uniform_int_distribution<int> pick(0, 7);
  std::size_t checked = 0;
  // Both ways TopOrder works: up to kRankedTopOrder densities and beyond.
  static_assert(DensityKernel::kRankedTopOrder < 40);
  for (std::uint32_t n = 1; n <= 40; ++n) {
    for (int trial = 0; trial < 40; ++trial) {
      // Few distinct values, so most lists have ties (-0.0 and 0.0 compare equal as well).
      std::vector<double> logs(n);
      for (double& v : logs) v = kValues[pick(rng)];
      std::vector<std::uint32_t> sorted(n);
      for (std::uint32_t k = 0; k < n; ++k) sorted[k] = k;
      std::stable_sort(sorted.begin(), sorted.end(), [&](std::uint32_t a, std::uint32_t b) { return logs[a] > logs[b]; });
      for (std::uint32_t topn = 1; topn <= n; ++topn) {
        std::vector<std::uint32_t> order(n + 1, 12345u);
        DensityKernel::TopOrder(logs.data(), n, topn, order.data());
        for (std::uint32_t kk = 0; kk < topn; ++kk) ASSERT_EQ(order[kk], sorted[kk]) << "n " << n << " topn " << topn << " rank " << kk;
        for (std::uint32_t kk = topn; kk <= n; ++kk) ASSERT_EQ(order[kk], 12345u) << "written past topn";
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 40u * (40u * 41u / 2));
}

}  // namespace
}  // namespace pstrain
