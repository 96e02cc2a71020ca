// Sphinx `.mfc` cepstral feature files: int32 count, then `count` float32 values (frames x ceplen,
// frame-major). No header text, no checksum. Byte order is detected from the file size, as
// sphinxbase does: native if 4 + 4*count == size, else byte-swapped if that matches, else an error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/uninitialized_vector.h"

namespace pstrain {

struct Cepstra {
  std::uint32_t ceplen = 0;
  std::uint32_t n_frames = 0;
  // n_frames * ceplen. Not zeroed when sized: every reader of a feature file writes each value
  // before anything reads it (a zeroing resize was a memset of every utterance's cepstra).
  UninitializedVector<float> data;
  const float* frame(std::uint32_t t) const { return data.data() + std::size_t(t) * ceplen; }
};

// Reads a .mfc file. Errors (InputError naming the file): size not matching the count in either
// byte order (truncated), count not a multiple of ceplen, a NaN or infinite value (names the frame).
Cepstra ReadMfcFile(const std::string& path, std::uint32_t ceplen);
Cepstra ParseMfc(const std::vector<std::uint8_t>& bytes, const std::string& path, std::uint32_t ceplen);
std::vector<std::uint8_t> EncodeMfc(const Cepstra& cepstra);

}  // namespace pstrain
