// Checks of a model's parameter values (means, variances, mixture weights, transitions).
#include "model/model_checks.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "common/error.h"
#include "formats/feat_params.h"

namespace pstrain {

namespace {

namespace fs = std::filesystem;

std::string ValueText(float value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.9g", static_cast<double>(value));
  return buffer;
}

// The problem with `value`, or empty. `negative_rule` (null: negative values are fine) is the rule a
// negative value breaks, for the message.
std::string Problem(float value, const char* negative_rule) {
  if (!std::isfinite(value)) return ValueText(value) + " (model parameters must be finite numbers)";
  if (negative_rule != nullptr && value < 0.0f) return ValueText(value) + " (" + negative_rule + ")";
  return {};
}

// Whether every value is finite, and not negative when `negative_rule` is given: one flat loop of
// comparisons the compiler vectorizes (no message made for each value; about 0.3 ms of a tied CD
// model's load went to those). NaN fails both comparisons; -0.0 passes `>= 0` as it passes
// Problem's `< 0` test.
bool AllValuesFine(const std::vector<float>& values, const char* negative_rule) {
  const float lowest = negative_rule == nullptr ? -std::numeric_limits<float>::max() : 0.0f;
  const float highest = std::numeric_limits<float>::max();
  unsigned bad = 0;
  for (const float value : values) bad |= static_cast<unsigned>(!(value >= lowest) | !(value <= highest));
  return bad == 0;
}

void CheckGaussians(const GaussianParams& params, const fs::path& path, const char* negative_rule) {
  if (AllValuesFine(params.data, negative_rule)) return;
  // The first bad value, in file order, named.
  for (std::uint32_t senone = 0; senone < params.n_mgau; ++senone) {
    for (std::uint32_t feat = 0; feat < params.n_feat; ++feat) {
      for (std::uint32_t density = 0; density < params.n_density; ++density) {
        const std::size_t offset = params.Offset(senone, feat, density);
        for (std::uint32_t dim = 0; dim < params.veclen[feat]; ++dim) {
          const std::string problem = Problem(params.data[offset + dim], negative_rule);
          if (problem.empty()) continue;
          throw FileError(path.string(), "senone " + std::to_string(senone) + (params.n_feat > 1 ? ", stream " + std::to_string(feat) : "") +
                                             ", density " + std::to_string(density) + ", dimension " + std::to_string(dim) + " is " + problem);
        }
      }
    }
  }
}

void CheckMixtureWeightValues(const Array3D& mixw, const fs::path& path) {
  for (std::uint32_t senone = 0; senone < mixw.d1; ++senone) {
    for (std::uint32_t feat = 0; feat < mixw.d2; ++feat) {
      for (std::uint32_t density = 0; density < mixw.d3; ++density) {
        const std::string problem = Problem(mixw.at(senone, feat, density), "a mixture weight must not be negative");
        if (problem.empty()) continue;
        throw FileError(path.string(), "senone " + std::to_string(senone) + (mixw.d2 > 1 ? ", stream " + std::to_string(feat) : "") +
                                           ", density " + std::to_string(density) + " is " + problem);
      }
    }
  }
}

void CheckTransitions(const Array3D& tmat, const fs::path& path) {
  for (std::uint32_t matrix = 0; matrix < tmat.d1; ++matrix) {
    for (std::uint32_t from = 0; from < tmat.d2; ++from) {
      for (std::uint32_t to = 0; to < tmat.d3; ++to) {
        const std::string problem = Problem(tmat.at(matrix, from, to), "a transition probability must not be negative");
        if (problem.empty()) continue;
        throw FileError(path.string(), "transition matrix " + std::to_string(matrix) + ", from state " + std::to_string(from) +
                                           " to state " + std::to_string(to) + (to + 1 == tmat.d3 ? " (the exit)" : "") + " is " +
                                           problem);
      }
    }
  }
}

}  // namespace

void CheckModelParameters(const ModelFiles& files, const std::string& dir_string) {
  const fs::path dir(dir_string);
  if (files.has_feat_params) {
    const std::string path = (dir / "feat.params").string();
    CheckFeatParamsSupported(FeatParams::Parse(files.feat_params_text, path), path);
  }
  CheckParameterFiles(files, ModelPaths::InDirectory(dir_string));
}

void CheckParameterFiles(const ModelFiles& files, const ModelPaths& paths) {
  CheckMeans(files.means, paths.means);
  CheckVariances(files.variances, paths.variances);
  CheckMixtureWeights(files.mixture_weights, paths.mixture_weights);
  CheckTransitionMatrices(files.transition_matrices, paths.transition_matrices);
}

void CheckMeans(const GaussianParams& means, const std::string& path) { CheckGaussians(means, path, nullptr); }

void CheckVariances(const GaussianParams& variances, const std::string& path) {
  CheckGaussians(variances, path, "a variance must not be negative; 0 is allowed and floored to --varfloor");
}

void CheckMixtureWeights(const Array3D& mixture_weights, const std::string& path) {
  CheckMixtureWeightValues(mixture_weights, path);
}

void CheckTransitionMatrices(const Array3D& transition_matrices, const std::string& path) {
  CheckTransitions(transition_matrices, path);
}

ModelFiles LoadCheckedModel(const std::string& dir) {
  ModelFiles files = ModelFiles::Load(dir);
  CheckModelParameters(files, dir);
  return files;
}

ModelFiles LoadCheckedModel(const std::string& dir, ModelFileDigests& digests) {
  ModelFiles files = ModelFiles::Load(dir, digests);
  CheckModelParameters(files, dir);
  return files;
}

}  // namespace pstrain
