// Encoding and decoding Sphinx parameter files and bw accumulator files on the s3 container.
#include "formats/param_files.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "formats/s3_stream_cursor.h"

namespace pstrain {

namespace {

std::size_t Product(std::initializer_list<std::uint64_t> dims, const std::string& path) {
  std::uint64_t total = 1;
  for (std::uint64_t d : dims) {
    total *= d;
    if (total > (1ull << 32)) throw FileError(path, "dimensions are implausibly large (corrupt header?)");
  }
  return static_cast<std::size_t>(total);
}

// The sum of the streams' vector lengths, in 64 bits (a uint32 sum wrapped: veclen 2^32-1 and 1
// summed to 0, the payload check then expected no data, and code indexing by veclen read past it).
// Bounded so that GaussianParams::TotalVeclen() cannot wrap.
std::uint64_t CheckedTotalVeclen(const std::vector<std::uint32_t>& veclen, const std::string& path) {
  constexpr std::uint64_t kMaxTotalVeclen = 1u << 20;
  const std::uint64_t total = std::accumulate(veclen.begin(), veclen.end(), std::uint64_t{0});
  if (total > kMaxTotalVeclen) {
    throw FileError(path, "vector length " + std::to_string(total) + " (the streams' veclen summed) is implausibly large (corrupt header?)");
  }
  return total;
}

// What `from` reads from the payload of the s3 file in `bytes` (its container checked first):
// from(cursor, path, keep), keeping the arrays' values or only checking them.
template <typename From>
auto FromPayload(const std::vector<std::uint8_t>& bytes, const std::string& path, From from, bool keep) {
  const S3View file = ParseS3View(bytes, path);
  S3Cursor in(file, path);
  return from(in, path, keep);
}

}  // namespace

GaussianParams GaussianParams::OneStream(std::uint32_t n_mgau, std::uint32_t n_density, std::uint32_t veclen, float value) {
  GaussianParams params;
  params.n_mgau = n_mgau;
  params.n_feat = 1;
  params.n_density = n_density;
  params.veclen = {veclen};
  params.data.assign(std::size_t(n_mgau) * n_density * veclen, value);
  return params;
}

std::uint32_t GaussianParams::TotalVeclen() const {
  return std::accumulate(veclen.begin(), veclen.end(), 0u);
}

std::size_t GaussianParams::Offset(std::uint32_t mgau, std::uint32_t feat, std::uint32_t density) const {
  std::size_t total = TotalVeclen();
  std::size_t feat_offset = 0;
  for (std::uint32_t f = 0; f < feat; ++f) feat_offset += std::size_t(n_density) * veclen[f];
  return std::size_t(mgau) * n_density * total + feat_offset + std::size_t(density) * veclen[feat];
}

GaussianParams ReadGaussianFile(const std::string& path) { return DecodeGaussianFile(ReadFileBytes(path), path); }

GaussianParams DecodeGaussianFile(const std::vector<std::uint8_t>& bytes, const std::string& path) {
  const S3View file = ParseS3View(bytes, path);
  S3Cursor in(file, path);
  GaussianParams p;
  p.n_mgau = in.U32("n_mgau");
  p.n_feat = in.U32("n_feat");
  p.n_density = in.U32("n_density");
  if (p.n_feat == 0 || p.n_feat > 64) throw FileError(path, "implausible n_feat " + std::to_string(p.n_feat));
  for (std::uint32_t f = 0; f < p.n_feat; ++f) p.veclen.push_back(in.U32("veclen"));
  std::size_t n = Product({p.n_mgau, p.n_density, CheckedTotalVeclen(p.veclen, path)}, path);
  p.data = in.FloatArray1D(n, "parameter data");
  in.ExpectEnd();
  return p;
}

std::vector<std::uint8_t> EncodeGaussianFile(const GaussianParams& p) {
  // EncodeS3's bytes for the words below, encoded straight into the file's bytes (no S3File of
  // words in between: a tied CD model's means and variances are encoded on every pass).
  return EncodeStandardS3([&](S3StreamEncoder& out) {
    for (const std::uint32_t word : {p.n_mgau, p.n_feat, p.n_density}) out.Word(word);
    for (const std::uint32_t v : p.veclen) out.Word(v);
    out.Word(static_cast<std::uint32_t>(p.data.size()));
    out.Floats(p.data.data(), p.data.size());
  }, 4 + p.veclen.size() + p.data.size());
}

void WriteGaussianFile(const std::string& path, const GaussianParams& p) {
  WriteFileAtomic(path, EncodeGaussianFile(p));
}

Array3D ReadArray3DFile(const std::string& path) { return DecodeArray3DFile(ReadFileBytes(path), path); }

namespace {

// An Array3D file's payload from `in` (an S3Cursor, or an S3StreamCursor without `keep`): its
// values only when `keep` (else checked and skipped).
template <typename Cursor>
Array3D Array3DFrom(Cursor& in, const std::string& path, bool keep) {
  Array3D a;
  a.d1 = in.U32("d1");
  a.d2 = in.U32("d2");
  a.d3 = in.U32("d3");
  a.data = in.FloatArray1D(Product({a.d1, a.d2, a.d3}, path), "array data", keep);
  in.ExpectEnd();
  return a;
}

}  // namespace

Array3D DecodeArray3DFile(const std::vector<std::uint8_t>& bytes, const std::string& path) {
  return FromPayload(bytes, path, Array3DFrom<S3Cursor>, /*keep=*/true);
}

void CheckArray3DFile(const std::filesystem::path& path, const ByteSink& on_bytes, std::size_t piece_bytes) {
  CheckS3FileForward(path, on_bytes, piece_bytes, Array3DFrom<S3StreamCursor>);
}

std::vector<std::uint8_t> EncodeArray3DFile(const Array3D& a) {
  return EncodeStandardS3([&](S3StreamEncoder& out) {
    for (const std::uint32_t word : {a.d1, a.d2, a.d3, static_cast<std::uint32_t>(a.data.size())}) out.Word(word);
    out.Floats(a.data.data(), a.data.size());
  }, 4 + a.data.size());
}

void WriteArray3DFile(const std::string& path, const Array3D& a) { WriteFileAtomic(path, EncodeArray3DFile(a)); }

GaudenCounts ReadGaudenCountsFile(const std::string& path) { return DecodeGaudenCountsFile(ReadFileBytes(path), path); }

namespace {

// A gauden_counts file's payload from `in` (an S3Cursor, or an S3StreamCursor without `keep`): its
// arrays only when `keep` (else checked and skipped).
template <typename Cursor>
GaudenCounts GaudenCountsFrom(Cursor& in, const std::string& path, bool keep) {
  GaudenCounts c;
  auto flag = [&](const char* name) {
    std::uint32_t v = in.U32(name);
    if (v > 1) throw FileError(path, std::string(name) + " flag is " + std::to_string(v) + ", expected 0 or 1");
    return v == 1;
  };
  c.has_means = flag("has_means");
  c.has_vars = flag("has_vars");
  c.pass2var = flag("pass2var");
  c.n_cb = in.U32("n_cb");
  c.n_density = in.U32("n_density");
  std::uint32_t n_feat = in.U32("n_feat");
  if (n_feat == 0 || n_feat > 64) throw FileError(path, "implausible n_feat " + std::to_string(n_feat));
  for (std::uint32_t f = 0; f < n_feat; ++f) c.veclen.push_back(in.U32("veclen"));
  const std::uint64_t total_veclen = CheckedTotalVeclen(c.veclen, path);
  std::size_t n = Product({c.n_cb, c.n_density, total_veclen}, path);
  if (c.has_means) c.mean = in.FloatArray1D(n, "mean accumulator", keep);
  if (c.has_vars) c.var = in.FloatArray1D(n, "variance accumulator", keep);
  std::uint32_t d1 = in.U32("dnom d1"), d2 = in.U32("dnom d2"), d3 = in.U32("dnom d3");
  if (d1 != c.n_cb || d2 != n_feat || d3 != c.n_density) {
    throw FileError(path, "dnom dimensions " + std::to_string(d1) + "x" + std::to_string(d2) + "x" +
                              std::to_string(d3) + " do not match the codebook dimensions");
  }
  c.dnom = in.FloatArray1D(Product({d1, d2, d3}, path), "dnom", keep);
  in.ExpectEnd();
  return c;
}

}  // namespace

GaudenCounts DecodeGaudenCountsFile(const std::vector<std::uint8_t>& bytes, const std::string& path) {
  return FromPayload(bytes, path, GaudenCountsFrom<S3Cursor>, /*keep=*/true);
}

void CheckGaudenCountsFile(const std::filesystem::path& path, const ByteSink& on_bytes, std::size_t piece_bytes) {
  CheckS3FileForward(path, on_bytes, piece_bytes, GaudenCountsFrom<S3StreamCursor>);
}

namespace {

// gauden_counts' words in file order into `out` (the caller Finishes it: the checksum): has_means, has_vars, pass2var,
// the dimensions (the counts' own: n_cb, n_density, the feature streams' veclen), the means and
// variances as 1-D arrays when present, the dimensions again, dnom as a 1-D array. The arrays are
// `mean`, `var` and `dnom` (not the counts' vectors), each value written as to_float(value).
// The words of a gauden_counts file around its three arrays, each written by its own function
// (its length word, then its values).
template <typename Means, typename Vars, typename Dnoms>
void EmitGaudenCountsLayout(S3StreamEncoder& out, const GaudenCounts& dims, Means&& means, Vars&& vars, Dnoms&& dnoms) {
  for (const std::uint32_t word : {dims.has_means ? 1u : 0u, dims.has_vars ? 1u : 0u, dims.pass2var ? 1u : 0u, dims.n_cb,
                                   dims.n_density, dims.n_feat()}) {
    out.Word(word);
  }
  for (const std::uint32_t v : dims.veclen) out.Word(v);
  if (dims.has_means) means();
  if (dims.has_vars) vars();
  for (const std::uint32_t word : {dims.n_cb, dims.n_feat(), dims.n_density}) out.Word(word);
  dnoms();
}

template <typename T, typename ToFloat>
void EmitGaudenCountsWords(S3StreamEncoder& out, const GaudenCounts& dims, std::span<const T> mean, std::span<const T> var,
                           std::span<const T> dnom, ToFloat to_float) {
  const auto array = [&](std::span<const T> values) {
    out.Word(static_cast<std::uint32_t>(values.size()));
    for (const T value : values) out.Word(FloatBits(to_float(value)));
  };
  EmitGaudenCountsLayout(out, dims, [&] { array(mean); }, [&] { array(var); }, [&] { array(dnom); });
}

}  // namespace

std::vector<std::uint8_t> EncodeGaudenCountsFile(const GaudenCounts& c) {
  return EncodeStandardS3([&](S3StreamEncoder& out) { EmitGaudenCountsWords<float>(out, c, c.mean, c.var, c.dnom, [](float value) { return value; }); },
                          12 + c.veclen.size() + (c.has_means ? c.mean.size() : 0) + (c.has_vars ? c.var.size() : 0) + c.dnom.size());
}

void WriteGaudenCountsFile(const std::string& path, const GaudenCounts& c) {
  WriteFileAtomic(path, EncodeGaudenCountsFile(c));
}

// The counts bw writes (means and variances, one feature stream), each double converted as
// ToFloats does in accumulators.cpp.
void EmitGaudenCountsFromDoubles(std::uint32_t n_cb, std::uint32_t n_density, std::uint32_t veclen, bool pass2var,
                                 const double* mean, const double* var, const double* dnom, const ByteSink& sink) {
  EmitGaudenCountsFromDoubleChunks(n_cb, n_density, veclen, pass2var, ChunksOf(mean), ChunksOf(var), dnom, sink);
}

DoubleChunks ChunksOf(const double* values) {
  return [values](std::size_t first, std::size_t n, double* out) { std::copy_n(values + first, n, out); };
}

void EmitGaudenCountsFromDoubleChunks(std::uint32_t n_cb, std::uint32_t n_density, std::uint32_t veclen, bool pass2var,
                                      const DoubleChunks& mean, const DoubleChunks& var, const double* dnom, const ByteSink& sink) {
  GaudenCounts dims;
  dims.has_means = dims.has_vars = true;
  dims.pass2var = pass2var;
  dims.n_cb = n_cb;
  dims.n_density = n_density;
  dims.veclen = {veclen};
  const std::size_t n_dens = std::size_t(n_cb) * n_density;
  const auto word_of = [](double value) { return FloatBits(ClampTinyMagnitude(static_cast<float>(value))); };
  S3StreamEncoder out(sink);
  const auto chunked = [&](const DoubleChunks& chunks) {
    const std::size_t size = n_dens * veclen;
    out.Word(static_cast<std::uint32_t>(size));
    constexpr std::size_t kPiece = 4096;
    std::vector<double> piece(std::min(kPiece, size));
    for (std::size_t first = 0; first < size; first += kPiece) {
      const std::size_t n = std::min(kPiece, size - first);
      chunks(first, n, piece.data());
      for (std::size_t i = 0; i < n; ++i) out.Word(word_of(piece[i]));
    }
  };
  EmitGaudenCountsLayout(
      out, dims, [&] { chunked(mean); }, [&] { chunked(var); },
      [&] {
        out.Word(static_cast<std::uint32_t>(n_dens));
        for (std::size_t i = 0; i < n_dens; ++i) out.Word(word_of(dnom[i]));
      });
  out.Finish();
}

}  // namespace pstrain
