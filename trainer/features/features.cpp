// Feature computation: CMN and 1s_c_d_dd from cepstra, as sphinxbase computes them.
#include "features/features.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"

namespace pstrain {

namespace {
constexpr int kDeltaWindow = 2;             // sphinxbase FEAT_DCEP_WIN
constexpr int kPad = kDeltaWindow + 1;      // feature window: frames replicated at each edge

// The per-frame loops below run over a frame's coefficients. They are templates on the cepstral
// length so that the usual 13 is a constant (the compiler then unrolls each loop into a few vector
// operations, with no run-time length or alias checks); kLen 0 takes the length at run time. Every
// element gets the same float operations in the same order either way: the vector forms only do
// several coefficients' operations at once.
constexpr std::uint32_t kUsualCeplen = 13;

// The batch CMN mean: of the frames with c0 >= 0, summed frame by frame in float, then divided by
// their number. Returns false when no frame has c0 >= 0.
template <std::uint32_t kLen>
bool BatchMean(const Cepstra& cep, float* mean_out) {
  const std::uint32_t len = kLen != 0 ? kLen : cep.ceplen;
  float fixed_mean[kLen != 0 ? kLen : 1] = {};
  float* __restrict mean = kLen != 0 ? fixed_mean : mean_out;  // (mean_out starts zeroed)
  const float* __restrict data = cep.data.data();
  std::uint32_t n_pos_frames = 0;
  for (std::uint32_t t = 0; t < cep.n_frames; ++t) {
    const float* frame = data + std::size_t(t) * len;
    if (frame[0] < 0.0f) continue;  // frames with negative energy do not enter the mean
    for (std::uint32_t i = 0; i < len; ++i) mean[i] += frame[i];
    ++n_pos_frames;
  }
  if (n_pos_frames == 0) return false;
  for (std::uint32_t i = 0; i < len; ++i) mean[i] /= static_cast<float>(n_pos_frames);
  if constexpr (kLen != 0) std::copy_n(fixed_mean, kLen, mean_out);
  return true;
}

// Subtracts `mean` from every frame.
template <std::uint32_t kLen>
void SubtractMean(Cepstra& cep, const float* mean_in) {
  const std::uint32_t len = kLen != 0 ? kLen : cep.ceplen;
  float fixed_mean[kLen != 0 ? kLen : 1];
  if constexpr (kLen != 0) std::copy_n(mean_in, kLen, fixed_mean);
  const float* __restrict mean = kLen != 0 ? fixed_mean : mean_in;
  float* __restrict data = cep.data.data();
  for (std::uint32_t t = 0; t < cep.n_frames; ++t) {
    float* frame = data + std::size_t(t) * len;
    for (std::uint32_t i = 0; i < len; ++i) frame[i] -= mean[i];
  }
}

// 1s_c_d_dd of frame t into f (3 len values), from the frames at t - 3 .. t + 3 (cm3 .. cp3).
template <std::uint32_t kLen>
inline __attribute__((always_inline)) void FeatureFrame(std::uint32_t len, const float* __restrict cm3,
                                                        const float* __restrict cm2, const float* __restrict cm1,
                                                        const float* __restrict c0, const float* __restrict cp1,
                                                        const float* __restrict cp2, const float* __restrict cp3,
                                                        float* __restrict f) {
  if constexpr (kLen != 0) len = kLen;
  for (std::uint32_t i = 0; i < len; ++i) {
    f[i] = c0[i];
    f[len + i] = cp2[i] - cm2[i];
    float d1 = cp3[i] - cm1[i];
    float d2 = cp1[i] - cm3[i];
    f[2 * len + i] = d1 - d2;
  }
}

template <std::uint32_t kLen>
void DeltaFeatures(const Cepstra& cep, float* out) {
  const std::uint32_t len = kLen != 0 ? kLen : cep.ceplen;
  const std::uint32_t dim = 3 * len;
  const long n = cep.n_frames;
  const float* c = cep.data.data();
  static_assert(kPad == 3);
  // Frame index into the padded utterance: frames before 0 repeat frame 0, after the end the last.
  auto padded = [&](long t) -> const float* {
    if (t < 0) t = 0;
    if (t >= n) t = n - 1;
    return c + std::size_t(t) * len;
  };
  auto edge_frame = [&](long t) {
    FeatureFrame<kLen>(len, padded(t - 3), padded(t - 2), padded(t - 1), padded(t), padded(t + 1), padded(t + 2),
                       padded(t + 3), out + std::size_t(t) * dim);
  };
  // The frames whose window lies inside the utterance need no clamping.
  const long inner_first = kPad, inner_end = n - kPad;
  for (long t = 0; t < n && t < inner_first; ++t) edge_frame(t);
  for (long t = inner_first; t < inner_end; ++t) {
    const float* c0 = c + std::size_t(t) * len;
    FeatureFrame<kLen>(len, c0 - 3 * len, c0 - 2 * len, c0 - len, c0, c0 + len, c0 + 2 * len, c0 + 3 * len,
                       out + std::size_t(t) * dim);
  }
  for (long t = std::max(inner_first, inner_end); t < n; ++t) edge_frame(t);
}
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
  const bool usual = len == kUsualCeplen;
  std::vector<float> mean(len, 0.0f);
  if (!(usual ? BatchMean<kUsualCeplen>(cep, mean.data()) : BatchMean<0>(cep, mean.data()))) {
    throw FileError(path, "batch CMN impossible: every frame has c0 < 0 (silent or corrupt audio)");
  }
  if (!options.varnorm) {
    if (usual) {
      SubtractMean<kUsualCeplen>(cep, mean.data());
    } else {
      SubtractMean<0>(cep, mean.data());
    }
    return;
  }
  float* data = cep.data.data();
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
  if (len == kUsualCeplen) {
    DeltaFeatures<kUsualCeplen>(cep, out.data.data());
  } else {
    DeltaFeatures<0>(cep, out.data.data());
  }
  return out;
}

}  // namespace pstrain
