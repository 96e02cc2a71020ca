// Reading and checking Sphinx `.mfc` cepstral feature files.
#include "formats/mfc_file.h"

#include <cmath>
#include <cstring>

#include "common/error.h"
#include "common/file_io.h"

namespace pstrain {

namespace {

constexpr std::uint32_t kExponentBits = 0x7f800000u;  // a float's exponent field

std::uint32_t Swap32(std::uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

std::uint32_t LoadLittle(const std::uint8_t* p) {
  return std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) | (std::uint32_t(p[3]) << 24);
}

}  // namespace

Cepstra ParseMfc(const std::vector<std::uint8_t>& bytes, const std::string& path, std::uint32_t ceplen) {
  if (bytes.size() < 4) throw FileError(path, "truncated .mfc file (" + std::to_string(bytes.size()) + " bytes, no count word)");
  std::uint32_t count = LoadLittle(bytes.data());
  bool swap = false;
  const std::uint64_t size = bytes.size();
  if (4 + 4ull * count != size) {
    std::uint32_t swapped = Swap32(count);
    if (4 + 4ull * swapped == size) {
      swap = true;
      count = swapped;
    } else {
      throw FileError(path, "size " + std::to_string(size) + " bytes does not match the header's value count " +
                                std::to_string(count) + " in either byte order (truncated or not an .mfc file)");
    }
  }
  if (ceplen == 0 || count % ceplen != 0) {
    throw FileError(path, "value count " + std::to_string(count) + " is not a multiple of the cepstral length " +
                              std::to_string(ceplen));
  }
  Cepstra cep;
  cep.ceplen = ceplen;
  cep.n_frames = count / ceplen;
  cep.data.resize(count);
  // Converted without a check inside the loop (so that it runs in vector registers); a value whose
  // exponent bits are all ones (NaN or infinite) is looked for afterwards, only when there is one.
  const std::uint8_t* in = bytes.data() + 4;
  float* out = cep.data.data();
  std::uint32_t not_finite = 0;
  const auto convert = [&](auto swap_word) {
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::uint32_t w = swap_word(LoadLittle(in + 4 * std::size_t(i)));
      not_finite |= (w & kExponentBits) == kExponentBits ? 1u : 0u;
      std::memcpy(out + i, &w, sizeof w);
    }
  };
  if (swap) {
    convert([](std::uint32_t w) { return Swap32(w); });
  } else {
    convert([](std::uint32_t w) { return w; });
  }
  if (not_finite != 0) {
    for (std::uint32_t i = 0; i < count; ++i) {
      const float value = cep.data[i];
      if (!std::isfinite(value)) {
        throw FileError(path, "frame " + std::to_string(i / ceplen) + ", coefficient " + std::to_string(i % ceplen) +
                                  " is " + (std::isnan(value) ? "NaN" : "infinite"));
      }
    }
  }
  return cep;
}

Cepstra ReadMfcFile(const std::string& path, std::uint32_t ceplen) { return ParseMfc(ReadFileBytes(path), path, ceplen); }

std::vector<std::uint8_t> EncodeMfc(const Cepstra& cep) {
  std::vector<std::uint8_t> out(4 + 4 * cep.data.size());
  std::uint32_t count = static_cast<std::uint32_t>(cep.data.size());
  std::memcpy(out.data(), &count, 4);
  if (!cep.data.empty()) std::memcpy(out.data() + 4, cep.data.data(), 4 * cep.data.size());
  return out;
}

}  // namespace pstrain
