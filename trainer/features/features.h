// Feature computation: 13-dim cepstra -> `1s_c_d_dd` (39 dims, one stream), with cepstral mean
// normalization, exactly as sphinxbase computes it for a whole utterance (float32 arithmetic):
//
//   1. CMN on the raw cepstra (batch/current: mean over frames with c0 >= 0, subtracted from all
//      frames; optional variance normalization over all frames).
//   2. AGC: only `none` is supported.
//   3. Edge padding: 3 copies of the first and of the last frame.
//   4. For each frame t: [c(t), c(t+2) - c(t-2), (c(t+3) - c(t-1)) - (c(t+1) - c(t-3))].
//
// `live` CMN (a running mean carried from one utterance to the next) is deliberately unsupported:
// it makes an utterance's features depend on which utterances a worker processed before it, so no
// sharded run could reproduce a serial one. See docs/formats.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/uninitialized_vector.h"
#include "formats/mfc_file.h"

namespace pstrain {

enum class CmnMode { kBatch, kNone };

struct FeatureOptions {
  CmnMode cmn = CmnMode::kBatch;
  bool varnorm = false;
  std::uint32_t ceplen = 13;
};

// Parses a `-cmn` value: batch, current (= batch), none. `live`/`prior` give an InputError that
// explains why they are unsupported.
CmnMode ParseCmnMode(const std::string& value);

struct Features {
  std::uint32_t dim = 0;
  std::uint32_t n_frames = 0;
  // n_frames * dim. Not zeroed when sized: ComputeFeatures writes every value before anything reads
  // it (a zeroing resize was a memset of every utterance's features).
  UninitializedVector<float> data;
  const float* frame(std::uint32_t t) const { return data.data() + std::size_t(t) * dim; }
};

// Applies CMN in place (float32, sphinxbase's order of operations). `path` names the source in
// errors (an utterance whose frames all have c0 < 0 cannot be mean-normalized).
void ApplyCmn(Cepstra& cepstra, const FeatureOptions& options, const std::string& path);

// CMN + 1s_c_d_dd. The result has 3 * ceplen dims.
Features ComputeFeatures(Cepstra cepstra, const FeatureOptions& options, const std::string& path);

}  // namespace pstrain
