// FrameDensities against a reference built from DensityKernel::Evaluate and the scalar exp: each
// requested senone's top-n indices, scaled densities (exp(log density - (the frame's best - 10)))
// and output probability 0 + sum_kk w den in top-n order, bit for bit, for one Gaussian (top-n 1 =
// all), top-n 1 of 3, top-n 2 of 3 and all 8, and each frame's log-scale (bounded for a frame far
// from every senone); a senone requested twice in a frame is evaluated once, one requested in an
// earlier frame is evaluated again, and SetFrame finds any closed frame's entries again (frames
// looked up in another order than built, as the backward pass does).
#include "forward_backward/frame_densities.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "forward_backward/density_kernel.h"
#include "model/acoustic_model.h"
#include "numerics/vector_kernels.h"
#include "support/model_fixture_util.h"
#include "support/test_util.h"

namespace pstrain {
namespace {

struct Expected {
  std::vector<std::uint32_t> index;  // top-n density indices, best first
  std::vector<double> value;         // their scaled densities
  double op = 0.0;
};

// The frame's entries as FinishFrame must give them, for the distinct senones `senones` at x.
std::vector<Expected> Reference(const AcousticModel& model, const std::vector<std::uint32_t>& senones, const float* x,
                                double& dscale) {
  const numerics::VectorKernels& scalar = numerics::KernelsFor(numerics::IsaLevel::kScalar);
  DensityKernel kernel(scalar);
  kernel.Prepare(model);
  std::vector<Expected> entries(senones.size());
  std::vector<std::vector<double>> logs(senones.size());
  double best = -1e308;
  for (std::size_t e = 0; e < senones.size(); ++e) {
    kernel.Evaluate(senones[e], x);
    for (std::uint32_t kk = 0; kk < model.topn(); ++kk) {
      entries[e].index.push_back(kernel.Order(kk));
      logs[e].push_back(kernel.LogDensity(kernel.Order(kk)));
      best = std::max(best, logs[e].back());
    }
  }
  // The log of the smallest normal double bounds the scale (a frame far from every senone).
  dscale = best - 10.0;
  if (dscale <= -708.407751281802) dscale = -708.407751281802 + 10.0;
  for (std::size_t e = 0; e < senones.size(); ++e) {
    entries[e].value.resize(model.topn());
    scalar.exp_shifted(logs[e].data(), dscale, entries[e].value.data(), model.topn());
    double op = 0.0;
    for (std::uint32_t kk = 0; kk < model.topn(); ++kk) {
      op += double(model.MixtureWeight(senones[e], entries[e].index[kk])) * entries[e].value[kk];
    }
    entries[e].op = op;
  }
  return entries;
}

TEST(FrameDensitiesTest, EntriesMatchTheReferenceBitForBit) {
  const std::filesystem::path an4_dir = testing::An4Model();
  ASSERT_TRUE(std::filesystem::is_directory(an4_dir)) << an4_dir << " is missing (scripts/bootstrap.sh installs it)";
  const ModelFiles an4 = ModelFiles::Load(an4_dir.string());
  std::mt19937 rng(31);
  struct Case {
    std::uint32_t n_density, topn;
  };
  for (const Case c : {Case{1, 0}, Case{3, 1}, Case{3, 2}, Case{8, 0}}) {
    SCOPED_TRACE("densities " + std::to_string(c.n_density) + ", topn " + std::to_string(c.topn));
    ModelOptions options;
    options.topn = c.topn;
    const AcousticModel model(testing::WidenedModel(an4, c.n_density, rng), options);
    // An utterance's local senones: every fifth global one, in a shuffled order.
    std::vector<std::uint32_t> locals_to_global;
    for (std::uint32_t s = 0; s < model.n_senones(); s += 5) locals_to_global.push_back((s * 7) % model.n_senones());
    FrameDensities densities;
    densities.Reset(locals_to_global, model);
    DensityKernel kernel(numerics::ActiveKernels());
    kernel.Prepare(model);
    std::normal_distribution<float> noise(0.0f, 1.0f);
    const std::uint32_t veclen = model.veclen();
    std::vector<std::vector<float>> frames(3, std::vector<float>(veclen));
    std::vector<std::vector<std::uint32_t>> requested(frames.size());
    std::vector<std::vector<Expected>> want(frames.size());
    // Every entry of frame t, after FinishFrame (the forward pass's lookups) or SetFrame(t).
    const auto expect_frame = [&](std::uint32_t t) {
      for (std::size_t i = 0; i < requested[t].size(); ++i) {
        const std::uint32_t local = requested[t][i];
        const std::size_t entry = densities.Entry(local);
        // One entry per senone, in the order of their first requests.
        EXPECT_EQ(entry, densities.Entry(requested[t][0]) + i) << "local " << local;
        EXPECT_EQ(densities.Op(local), want[t][i].op) << "local " << local;
        for (std::uint32_t kk = 0; kk < model.topn(); ++kk) {
          EXPECT_EQ(densities.Index(entry, kk), want[t][i].index[kk]) << "local " << local << " rank " << kk;
          EXPECT_EQ(densities.Value(entry, kk), want[t][i].value[kk]) << "local " << local << " rank " << kk;
        }
      }
    };
    int clamped = 0;
    for (std::uint32_t t = 0; t < frames.size(); ++t) {
      SCOPED_TRACE("building frame " + std::to_string(t));
      const std::uint32_t near = locals_to_global[(t * 3) % locals_to_global.size()];
      for (std::uint32_t l = 0; l < veclen; ++l) frames[t][l] = model.MeanAt(near, 0, l) + noise(rng) * float(t + 1);
      // 3 + 2t local senones, the first two requested twice; frame 2 repeats two of frame 0.
      for (std::uint32_t i = 0; i < 3 + 2 * t; ++i) requested[t].push_back((i * 2 + t) % std::uint32_t(locals_to_global.size()));
      std::vector<std::uint32_t> asks;
      for (const std::uint32_t local : requested[t]) {
        asks.push_back(local);
        if (local == requested[t][1]) asks.push_back(requested[t][0]);
      }
      asks.push_back(requested[t][1]);
      // Frame 1 asks all at once (as the alpha pass does), the others one at a time.
      if (t == 1) {
        densities.RequestMany(asks.data(), asks.size(), frames[t].data());
      } else {
        for (const std::uint32_t local : asks) densities.Request(local, frames[t].data());
      }
      const double dscale = densities.FinishFrame(kernel, model);
      std::vector<std::uint32_t> senones;
      for (const std::uint32_t local : requested[t]) senones.push_back(locals_to_global[local]);
      double want_dscale = 0.0;
      want[t] = Reference(model, senones, frames[t].data(), want_dscale);
      EXPECT_EQ(dscale, want_dscale);
      clamped += want_dscale == -708.407751281802 + 10.0 ? 1 : 0;
      expect_frame(t);
    }
    for (const std::uint32_t t : {2u, 0u, 1u}) {
      SCOPED_TRACE("frame " + std::to_string(t) + " again");
      densities.SetFrame(t);
      expect_frame(t);
    }
    // Frames near a senone and far from all: both sides of the bound.
    EXPECT_GT(clamped, 0);
    EXPECT_LT(clamped, static_cast<int>(frames.size()));
  }
}

}  // namespace
}  // namespace pstrain
