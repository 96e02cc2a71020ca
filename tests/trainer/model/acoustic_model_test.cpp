// AcousticModel (trainer/model/acoustic_model.h): its log normalizers against one density at a time,
// its precisions in every layout, and the constructor that takes the files' means. ModelFiles: the
// parameter files taken and read back, bit for bit, only from files with their digests, and the
// digests a load records.
#include "model/acoustic_model.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "model/model_checks.h"
#include "numerics/elementary.h"
#include "support/model_fixture_util.h"
#include "support/test_util.h"

namespace pstrain {
namespace {

// SphinxTrain's normalizer of one density: the logarithms of its floored variances
// (numerics::Log, the scalar reference every kernel level matches) summed in float32 in dimension
// order, then -0.5 (log det + veclen log 2 pi).
float ReferenceLogNorm(const ModelFiles& files, std::size_t density, float varfloor) {
  const std::uint32_t veclen = files.means.veclen[0];
  const float log_two_pi_term = static_cast<float>(veclen * numerics::Log(2.0 * M_PI));
  float log_det = 0.0f;
  for (std::uint32_t dim = 0; dim < veclen; ++dim) {
    float var = files.variances.data[density * veclen + dim];
    if (!(var >= varfloor)) var = varfloor;
    log_det = static_cast<float>(log_det + numerics::Log(static_cast<double>(var)));
  }
  return static_cast<float>(-0.5 * (static_cast<double>(log_det) + static_cast<double>(log_two_pi_term)));
}

// The constructor works through blocks of 64 densities with eight sums side by side: 102 densities
// (one Gaussian a senone) leave a short block and a short group of sums, 102 x 5 = 510 as well;
// some variances are below the floor.
TEST(AcousticModelTest, LogNormalizersMatchOneDensityAtATime) {
  const ModelFiles one = LoadCheckedModel(testing::An4Model().string());
  std::mt19937 rng(26);
  for (const std::uint32_t n_density : {1u, 5u}) {
    ModelFiles files = n_density == 1 ? one : testing::WidenedModel(one, n_density, rng);
    for (std::size_t i = 0; i < files.variances.data.size(); i += 97) files.variances.data[i] = 1e-6f;
    ModelOptions options;
    options.varfloor = 1e-4f;
    const AcousticModel model(files, options);
    const std::size_t n_densities = std::size_t(files.means.n_mgau) * n_density;
    ASSERT_EQ(n_densities % 8 == 0 || n_densities % 64 == 0, false);
    for (std::uint32_t senone = 0; senone < files.means.n_mgau; ++senone) {
      for (std::uint32_t k = 0; k < n_density; ++k) {
        const float expected = ReferenceLogNorm(files, std::size_t(senone) * n_density + k, options.varfloor);
        ASSERT_EQ(std::bit_cast<std::uint32_t>(model.LogNorm(senone, k)), std::bit_cast<std::uint32_t>(expected))
            << "senone " << senone << ", density " << k << " of " << n_density;
      }
    }
  }
}

// 1 / (2 sigma^2) of the floored variance in float32, as SphinxTrain computes it: PrecisionAt gives
// it exactly whichever layout holds it. 1 and 3 densities a senone: no grouped layout (PairPrecision's);
// 6: one group of 4 and two densities outside it (the float32 copy is kept); 4 and 12: full groups
// of 4, 8 and 16: full groups of 8 (only the grouped layout holds them); the grouped layout's
// own precisions are checked too. MeanAt and InputMean give
// the files' means likewise, from rows of them or the grouped layout.
TEST(AcousticModelTest, PrecisionAtAndMeanAtAreTheFilesValuesInEveryLayout) {
  const ModelFiles one = LoadCheckedModel(testing::An4Model().string());
  std::mt19937 rng(32);
  for (const std::uint32_t n_density : {1u, 3u, 4u, 6u, 8u, 12u, 16u}) {
    ModelFiles files = n_density == 1 ? one : testing::WidenedModel(one, n_density, rng);
    for (std::size_t i = 0; i < files.variances.data.size(); i += 89) files.variances.data[i] = 1e-6f;
    ModelOptions options;
    options.varfloor = 1e-4f;
    const AcousticModel model(files, options);
    EXPECT_EQ(model.has_grouped_layout(), n_density >= AcousticModel::kDensityGroup) << n_density;
    // Rows of means only where the grouped layout does not hold every density (1, 3 and 6 densities).
    EXPECT_EQ(model.has_mean_rows(), n_density == 1 || n_density == 3 || n_density == 6) << n_density;
    const std::uint32_t veclen = model.veclen();
    std::vector<float> scratch(veclen);
    for (std::uint32_t senone = 0; senone < model.n_senones(); ++senone) {
      for (std::uint32_t k = 0; k < n_density; ++k) {
        for (std::uint32_t l = 0; l < veclen; ++l) {
          float var = files.variances.data[(std::size_t(senone) * n_density + k) * veclen + l];
          if (!(var >= options.varfloor)) var = options.varfloor;
          const float expected = static_cast<float>(1.0 / (2.0 * var));
          ASSERT_EQ(model.PrecisionAt(senone, k, l), static_cast<double>(expected))
              << n_density << " densities: senone " << senone << ", density " << k << ", dimension " << l;
          // The grouped layout's own copy too, for every density in a full group (with 6 densities
          // PrecisionAt reads the float32 copy instead).
          const std::uint32_t width = model.grouped_width();
          if (model.has_grouped_layout() && k < n_density / width * width) {
            const double grouped = model.GroupedPrecisions(senone)[(std::size_t(k / width) * veclen + l) * width + k % width];
            ASSERT_EQ(grouped, static_cast<double>(expected)) << n_density << " densities, grouped: senone " << senone << ", density " << k;
          }
          const float mean = files.means.data[(std::size_t(senone) * n_density + k) * veclen + l];
          ASSERT_EQ(model.MeanAt(senone, k, l), mean) << n_density << " densities: senone " << senone << ", density " << k;
          ASSERT_EQ(model.InputMean(senone, k, scratch.data())[l], mean) << n_density << " densities: senone " << senone << ", density " << k;
        }
      }
    }
  }
}

// Built from the files or from their means taken: the same model, and the files' means are gone.
TEST(AcousticModelTest, TakingTheMeansGivesTheSameModel) {
  const ModelFiles one = LoadCheckedModel(testing::An4Model().string());
  std::mt19937 rng(33);
  for (const std::uint32_t n_density : {1u, 8u}) {
    ModelFiles files = n_density == 1 ? one : testing::WidenedModel(one, n_density, rng);
    const std::vector<float> means = files.means.data;
    const AcousticModel copied(files, ModelOptions{});
    const AcousticModel taken(std::move(files), ModelOptions{});
    EXPECT_TRUE(files.means.data.empty());
    ASSERT_EQ(taken.n_senones(), copied.n_senones());
    for (std::uint32_t senone = 0; senone < copied.n_senones(); ++senone) {
      for (std::uint32_t k = 0; k < n_density; ++k) {
        for (std::uint32_t l = 0; l < copied.veclen(); ++l) {
          ASSERT_EQ(taken.MeanAt(senone, k, l), means[(std::size_t(senone) * n_density + k) * copied.veclen() + l]);
          ASSERT_EQ(taken.MeanAt(senone, k, l), copied.MeanAt(senone, k, l));
          ASSERT_EQ(taken.PrecisionAt(senone, k, l), copied.PrecisionAt(senone, k, l));
        }
        ASSERT_EQ(taken.LogNorm(senone, k), copied.LogNorm(senone, k));
        ASSERT_EQ(taken.MixtureWeight(senone, k), copied.MixtureWeight(senone, k));
      }
    }
  }
}

// Taken, the parameter files' contents move out whole (feat.params and noisedict stay); read back
// from the directory loaded, they are the same bits (the mdef the same text). A file whose SHA-256 is not the one listed (it changed) or
// that has none listed is refused, naming the file, and nothing is taken.
TEST(ModelFilesTest, ParameterFilesTakenAndReadBackAreTheOnesLoadedAndOnlyFromTheSameBytes) {
  namespace fs = std::filesystem;
  const fs::path dir = testing::FreshDir("model-files/reload");
  fs::copy(testing::An4Model(), dir / "model", fs::copy_options::recursive);
  const std::string model_dir = (dir / "model").string();
  ModelFileDigests digests;
  ModelFiles files = LoadCheckedModel(model_dir, digests);
  const ModelFiles loaded = files;
  const auto same_bits = [](const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
  };
  const auto expect_taken = [](const ModelFiles& taken) {
    EXPECT_TRUE(taken.mdef.phones().empty());
    EXPECT_TRUE(taken.means.data.empty());
    EXPECT_TRUE(taken.variances.data.empty());
    EXPECT_TRUE(taken.mixture_weights.data.empty());
    EXPECT_TRUE(taken.transition_matrices.data.empty());
  };
  const auto expect_loaded = [&](const ModelFiles& model) {
    EXPECT_EQ(model.mdef.Serialize(), loaded.mdef.Serialize());
    EXPECT_TRUE(model.means.SameShape(loaded.means));
    EXPECT_TRUE(same_bits(model.means.data, loaded.means.data));
    EXPECT_TRUE(same_bits(model.variances.data, loaded.variances.data));
    EXPECT_TRUE(same_bits(model.mixture_weights.data, loaded.mixture_weights.data));
    EXPECT_TRUE(same_bits(model.transition_matrices.data, loaded.transition_matrices.data));
  };
  const ModelFiles taken = files.TakeParameterFiles();
  expect_taken(files);
  expect_loaded(taken);
  EXPECT_EQ(files.noisedict_text, loaded.noisedict_text) << "noisedict stays";
  EXPECT_FALSE(files.noisedict_text.empty());
  EXPECT_TRUE(taken.noisedict_text.empty());
  files.ReloadParameterFiles(model_dir, digests);
  expect_loaded(files);

  // The variances file replaced by another valid one (the means, the same shape).
  files.TakeParameterFiles();
  fs::copy_file(dir / "model" / "means", dir / "model" / "variances", fs::copy_options::overwrite_existing);
  try {
    files.ReloadParameterFiles(model_dir, digests);
    ADD_FAILURE() << "a changed variances file was read back";
  } catch (const TrainingError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find((dir / "model" / "variances").string() + ": SHA-256 "), std::string::npos) << message;
    EXPECT_NE(message.find("changed during the pass"), std::string::npos) << message;
  }
  expect_taken(files);  // nothing is taken from a refused read
  fs::copy_file(testing::An4Model() / "variances", dir / "model" / "variances", fs::copy_options::overwrite_existing);
  files.ReloadParameterFiles(model_dir, digests);  // (the file as it was: read back)
  expect_loaded(files);
  // noisedict is not read back, but a changed one is refused all the same.
  files.TakeParameterFiles();
  WriteFileAtomic(dir / "model" / "noisedict", files.noisedict_text + "<sil2> SIL\n");
  EXPECT_THROW(files.ReloadParameterFiles(model_dir, digests), TrainingError);
  expect_taken(files);
  ModelFileDigests without_mdef = digests;
  std::erase_if(without_mdef, [](const auto& digest) { return digest.first == "mdef"; });
  EXPECT_THROW(files.ReloadParameterFiles(model_dir, without_mdef), TrainingError);
}

// The digests a load records are each file's SHA-256 (the means and variances, and the mixture
// weights and transition matrices, are hashed two at a time), listed in the files' order.
TEST(ModelFilesTest, TheDigestsOfALoadAreEachFilesSha256InTheFilesOrder) {
  ModelFileDigests digests;
  const ModelFiles files = ModelFiles::Load(testing::An4Model().string(), digests);
  std::vector<std::string> names;
  for (const auto& [name, sha256] : digests) {
    names.push_back(name);
    EXPECT_EQ(sha256, Sha256OfFile(testing::An4Model() / name)) << name;
  }
  std::vector<std::string> expected = {"mdef", "means", "variances", "mixture_weights", "transition_matrices"};
  if (files.has_feat_params) expected.push_back("feat.params");
  if (files.has_noisedict) expected.push_back("noisedict");
  EXPECT_EQ(names, expected);
}

// With both files of a pair malformed (cut to half), the first's error is the one reported, as when
// the files were loaded one at a time.
TEST(ModelFilesTest, WithBothFilesOfAPairMalformedTheFirstOnesErrorIsReported) {
  namespace fs = std::filesystem;
  const std::vector<std::pair<std::string, std::string>> pairs = {{"means", "variances"}, {"mixture_weights", "transition_matrices"}};
  for (const auto& [first, second] : pairs) {
    SCOPED_TRACE(first);
    const fs::path dir = testing::FreshDir("model-files/malformed-" + first);
    fs::copy(testing::An4Model(), dir / "model", fs::copy_options::recursive);
    for (const std::string& name : {first, second}) fs::resize_file(dir / "model" / name, fs::file_size(dir / "model" / name) / 2);
    ModelFileDigests digests;
    try {
      ModelFiles::Load((dir / "model").string(), digests);
      ADD_FAILURE() << "a model with malformed " << first << " and " << second << " was loaded";
    } catch (const InputError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find((dir / "model" / first).string()), std::string::npos) << message;
      EXPECT_EQ(message.find((dir / "model" / second).string()), std::string::npos) << message;
    }
  }
}

}  // namespace
}  // namespace pstrain
