// Feature computation: CMN and 1s_c_d_dd from cepstra, as sphinxbase computes them.
#include "features/features.h"

#include <cmath>

#include "common/error.h"

namespace pstrain {

namespace {
constexpr int kDeltaWindow = 2;             // sphinxbase FEAT_DCEP_WIN
constexpr int kPad = kDeltaWindow + 1;      // feature window: frames replicated at each edge
}  // namespace

CmnMode ParseCmnMode(const std::string& value) {
  if (value == "batch" || value == "current") return CmnMode::kBatch;
  if (value == "none") return CmnMode::kNone;
  if (value == "live" || value == "prior") {
    throw InputError("--cmn " + value +
                     " is not supported: live CMN carries a running mean from one utterance to the next, so an "
                     "utterance's features would depend on shard boundaries and processing order; use batch");
  }
  throw InputError("--cmn: unknown value \"" + value + "\" (expected batch, current or none)");
}

void ApplyCmn(Cepstra& cep, const FeatureOptions& options, const std::string& path) {
  if (options.cmn == CmnMode::kNone || cep.n_frames == 0) return;
  const std::uint32_t len = cep.ceplen;
  std::vector<float> mean(len, 0.0f);
  std::uint32_t n_pos_frames = 0;
  for (std::uint32_t t = 0; t < cep.n_frames; ++t) {
    const float* frame = cep.frame(t);
    if (frame[0] < 0.0f) continue;  // frames with negative energy do not enter the mean
    for (std::uint32_t i = 0; i < len; ++i) mean[i] += frame[i];
    ++n_pos_frames;
  }
  if (n_pos_frames == 0) {
    throw FileError(path, "batch CMN impossible: every frame has c0 < 0 (silent or corrupt audio)");
  }
  for (std::uint32_t i = 0; i < len; ++i) mean[i] /= static_cast<float>(n_pos_frames);
  float* data = cep.data.data();
  if (!options.varnorm) {
    for (std::uint32_t t = 0; t < cep.n_frames; ++t) {
      for (std::uint32_t i = 0; i < len; ++i) data[std::size_t(t) * len + i] -= mean[i];
    }
    return;
  }
  std::vector<float> inv_stddev(len, 0.0f);
  for (std::uint32_t t = 0; t < cep.n_frames; ++t) {
    for (std::uint32_t i = 0; i < len; ++i) {
      float diff = data[std::size_t(t) * len + i] - mean[i];
      inv_stddev[i] += diff * diff;
    }
  }
  for (std::uint32_t i = 0; i < len; ++i) {
    if (inv_stddev[i] <= 0.0f) throw FileError(path, "variance normalization impossible: coefficient " + std::to_string(i) + " is constant");
    inv_stddev[i] = static_cast<float>(std::sqrt(static_cast<double>(cep.n_frames) / static_cast<double>(inv_stddev[i])));
  }
  for (std::uint32_t t = 0; t < cep.n_frames; ++t) {
    for (std::uint32_t i = 0; i < len; ++i) {
      float& x = data[std::size_t(t) * len + i];
      x = (x - mean[i]) * inv_stddev[i];
    }
  }
}

Features ComputeFeatures(Cepstra cep, const FeatureOptions& options, const std::string& path) {
  ApplyCmn(cep, options, path);
  const std::uint32_t len = cep.ceplen;
  Features out;
  out.dim = 3 * len;
  out.n_frames = cep.n_frames;
  out.data.resize(std::size_t(out.n_frames) * out.dim);
  if (cep.n_frames == 0) return out;
  // Frame index into the padded utterance: frames before 0 repeat frame 0, after the end the last.
  auto padded = [&](long t) -> const float* {
    if (t < 0) t = 0;
    if (t >= static_cast<long>(cep.n_frames)) t = cep.n_frames - 1;
    return cep.frame(static_cast<std::uint32_t>(t));
  };
  static_assert(kPad == 3);
  for (std::uint32_t t = 0; t < cep.n_frames; ++t) {
    float* f = out.data.data() + std::size_t(t) * out.dim;
    const long tt = t;
    const float* c0 = padded(tt);
    const float* cp2 = padded(tt + 2);
    const float* cm2 = padded(tt - 2);
    const float* cp3 = padded(tt + 3);
    const float* cm1 = padded(tt - 1);
    const float* cp1 = padded(tt + 1);
    const float* cm3 = padded(tt - 3);
    for (std::uint32_t i = 0; i < len; ++i) {
      f[i] = c0[i];
      f[len + i] = cp2[i] - cm2[i];
      float d1 = cp3[i] - cm1[i];
      float d2 = cp1[i] - cm3[i];
      f[2 * len + i] = d1 - d2;
    }
  }
  return out;
}

}  // namespace pstrain
