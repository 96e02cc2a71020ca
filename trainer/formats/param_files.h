// Sphinx model parameter files and bw accumulator files, on top of the s3 container.
//
//   means / variances     GaussianParams   [n_mgau][n_feat][n_density][veclen[feat]]
//   mixture_weights       Array3D          [n_mixw][n_feat][n_density]        (raw counts from norm)
//   transition_matrices   Array3D          [n_tmat][n_emit][n_emit + 1]       (raw counts from norm)
//   mixw_counts, tmat_counts               same layouts as the two above
//   gauden_counts         GaudenCounts     mean/var numerators and dnom
// Layouts are in docs/formats.md. Readers check every dimension against the element counts.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "formats/s3_file.h"

namespace pstrain {

// Means or variances (diagonal): [n_mgau][n_feat][n_density] vectors of veclen[feat] floats.
struct GaussianParams {
  std::uint32_t n_mgau = 0;
  std::uint32_t n_feat = 0;
  std::uint32_t n_density = 0;
  std::vector<std::uint32_t> veclen;
  std::vector<float> data;

  std::uint32_t TotalVeclen() const;
  // Offset of the first element of (mgau, feat, density).
  std::size_t Offset(std::uint32_t mgau, std::uint32_t feat, std::uint32_t density) const;
  bool SameShape(const GaussianParams& other) const {
    return n_mgau == other.n_mgau && n_feat == other.n_feat && n_density == other.n_density &&
           veclen == other.veclen;
  }
  // One stream of n_mgau x n_density vectors of `veclen` floats, every value `value`.
  static GaussianParams OneStream(std::uint32_t n_mgau, std::uint32_t n_density, std::uint32_t veclen, float value = 0.0f);
};

GaussianParams ReadGaussianFile(const std::string& path);
// The same on the file's bytes (`path` names it in errors): what ReadGaussianFile does after reading.
GaussianParams DecodeGaussianFile(const std::vector<std::uint8_t>& bytes, const std::string& path);
std::vector<std::uint8_t> EncodeGaussianFile(const GaussianParams& params);
void WriteGaussianFile(const std::string& path, const GaussianParams& params);

// A 3-D float32 array (mixture weights, transition matrices, their count files).
struct Array3D {
  std::uint32_t d1 = 0, d2 = 0, d3 = 0;
  std::vector<float> data;

  float& at(std::uint32_t i, std::uint32_t j, std::uint32_t k) { return data[(std::size_t(i) * d2 + j) * d3 + k]; }
  float at(std::uint32_t i, std::uint32_t j, std::uint32_t k) const { return data[(std::size_t(i) * d2 + j) * d3 + k]; }
};

Array3D ReadArray3DFile(const std::string& path);
Array3D DecodeArray3DFile(const std::vector<std::uint8_t>& bytes, const std::string& path);
// DecodeArray3DFile's checks on the file at `path`, with the same errors (naming `path`), without
// keeping the values: the file is read forward in pieces of `piece_bytes` (S3StreamCursor), never
// held whole, and every byte read goes to `on_bytes` (when set) so that the caller can hash it in
// the same read. A shard's validation checks its count files so.
void CheckArray3DFile(const std::filesystem::path& path, const ByteSink& on_bytes = {},
                      std::size_t piece_bytes = kS3StreamPieceBytes);
std::vector<std::uint8_t> EncodeArray3DFile(const Array3D& array);
void WriteArray3DFile(const std::string& path, const Array3D& array);

// gauden_counts as written by bw (diagonal covariances only).
struct GaudenCounts {
  bool has_means = false;
  bool has_vars = false;
  bool pass2var = false;
  std::uint32_t n_cb = 0;
  std::uint32_t n_density = 0;
  std::vector<std::uint32_t> veclen;  // one per feature stream
  std::vector<float> mean;            // [n_cb][n_feat][n_density][veclen] when has_means
  std::vector<float> var;             // same layout when has_vars
  std::vector<float> dnom;            // [n_cb][n_feat][n_density]

  std::uint32_t n_feat() const { return static_cast<std::uint32_t>(veclen.size()); }
};

GaudenCounts ReadGaudenCountsFile(const std::string& path);
// The same from the file's bytes (`path` names it in errors).
GaudenCounts DecodeGaudenCountsFile(const std::vector<std::uint8_t>& bytes, const std::string& path);
// DecodeGaudenCountsFile's checks on the file at `path`, as CheckArray3DFile's.
void CheckGaudenCountsFile(const std::filesystem::path& path, const ByteSink& on_bytes = {},
                           std::size_t piece_bytes = kS3StreamPieceBytes);
std::vector<std::uint8_t> EncodeGaudenCountsFile(const GaudenCounts& counts);
void WriteGaudenCountsFile(const std::string& path, const GaudenCounts& counts);
// The same bytes as EncodeGaudenCountsFile of the counts bw writes for statistics held in double
// (means and variances, one feature stream of `veclen`; each value converted as bw's writers do,
// ClampTinyMagnitude of its float32), written piece by piece into `sink` (S3StreamEncoder): no
// float32 copy of the arrays and no whole file in memory. mean and var hold n_cb * n_density *
// veclen values, dnom n_cb * n_density.
void EmitGaudenCountsFromDoubles(std::uint32_t n_cb, std::uint32_t n_density, std::uint32_t veclen, bool pass2var,
                                 const double* mean, const double* var, const double* dnom, const ByteSink& sink);
// Fills out[0..n) with values [first, first + n) of an array of doubles.
using DoubleChunks = std::function<void(std::size_t first, std::size_t n, double* out)>;
// The pieces of an array held in memory.
DoubleChunks ChunksOf(const double* values);
// The same bytes as EmitGaudenCountsFromDoubles, the means and variances asked of `mean` and `var`
// a piece at a time (in order; no piece twice) instead of read from arrays: statistics held in
// another form (the exact sums) need no double copy of their Gaussian blocks.
void EmitGaudenCountsFromDoubleChunks(std::uint32_t n_cb, std::uint32_t n_density, std::uint32_t veclen, bool pass2var,
                                      const DoubleChunks& mean, const DoubleChunks& var, const double* dnom, const ByteSink& sink);

// SphinxTrain's writers clamp tiny non-zero magnitudes up to MIN_POS_FLOAT32 (1.2e-38) before
// writing; exact zeros stay zero. We do the same so that `norm` and pocketsphinx see the same values.
inline constexpr float kMinPosFloat32 = 1.2e-38f;
inline float ClampTinyMagnitude(float value) {
  // One test on the magnitude, rarely true: a test on the sign first would be mispredicted about
  // every other value of a block of mean sums (their signs are as good as random).
  const float magnitude = std::fabs(value);
  if (magnitude > 0.0f && magnitude < kMinPosFloat32) [[unlikely]] return std::copysign(kMinPosFloat32, value);
  return value;
}

}  // namespace pstrain
