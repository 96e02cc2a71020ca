// Baum-Welch statistics in double: adding, reading and writing bw's accumulator files.
#include "accumulators/accumulators.h"

#include "accumulators/exact_accumulators.h"

#include <cstring>
#include <filesystem>

#include "common/error.h"
#include "common/file_io.h"
#include "common/sha256.h"

namespace pstrain {

namespace fs = std::filesystem;

namespace {

std::vector<float> ToFloats(const std::vector<double>& values) {
  std::vector<float> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = ClampTinyMagnitude(static_cast<float>(values[i]));
  return out;
}

std::vector<double> ToDoubles(const std::vector<float>& values) { return std::vector<double>(values.begin(), values.end()); }

}  // namespace

AccumulatorShape StatisticsShape(const GaussianParams& means, const Array3D& transition_matrices) {
  return AccumulatorShape{means.n_mgau, means.n_density, means.TotalVeclen(), transition_matrices.d1, transition_matrices.d2};
}

Accumulators::Accumulators(const AccumulatorShape& shape, bool pass2var) : shape_(shape), pass2var_(pass2var) {
  const std::size_t n_dens = std::size_t(shape.n_senones) * shape.n_density;
  mixw_.assign(n_dens, 0.0);
  dnom_.assign(n_dens, 0.0);
  mean_.assign(n_dens * shape.veclen, 0.0);
  var_.assign(n_dens * shape.veclen, 0.0);
  tmat_.assign(std::size_t(shape.n_tmat) * shape.n_emit_state * (shape.n_emit_state + 1), 0.0);
}

void Accumulators::Add(const Accumulators& other, const std::string& what) {
  if (!(shape_ == other.shape_)) throw InputError(what + ": accumulator dimensions do not match");
  if (!has_gaussians() || !other.has_gaussians()) throw TrainingError("internal: " + what + ": a view without its mean and variance sums");
  if (pass2var_ != other.pass2var_) throw InputError(what + ": mixes 2-pass and 1-pass variance accumulators");
  auto add = [](std::vector<double>& into, const std::vector<double>& from) {
    for (std::size_t i = 0; i < into.size(); ++i) into[i] += from[i];
  };
  add(mixw_, other.mixw_);
  add(dnom_, other.dnom_);
  add(mean_, other.mean_);
  add(var_, other.var_);
  add(tmat_, other.tmat_);
}

namespace {

GaudenCounts MakeGaudenCounts(const AccumulatorShape& shape, bool pass2var, std::vector<float> mean, std::vector<float> var,
                              std::vector<float> dnom) {
  GaudenCounts c;
  c.has_means = true;
  c.has_vars = true;
  c.pass2var = pass2var;
  c.n_cb = shape.n_senones;
  c.n_density = shape.n_density;
  c.veclen = {shape.veclen};
  c.mean = std::move(mean);
  c.var = std::move(var);
  c.dnom = std::move(dnom);
  return c;
}

Array3D MakeMixwCounts(const AccumulatorShape& shape, std::vector<float> mixw) {
  return Array3D{shape.n_senones, 1, shape.n_density, std::move(mixw)};
}

Array3D MakeTmatCounts(const AccumulatorShape& shape, std::vector<float> tmat) {
  return Array3D{shape.n_tmat, shape.n_emit_state, shape.n_emit_state + 1, std::move(tmat)};
}

}  // namespace

namespace {

// DIR/name written atomically, its SHA-256 appended to `digests`.
void WriteCountFile(const fs::path& dir, const char* name, const std::vector<std::uint8_t>& bytes, std::vector<std::string>& digests) {
  WriteFileAtomic(dir / name, bytes);
  digests.push_back(Sha256Hex(bytes.data(), bytes.size()));
}

// mixw_counts and tmat_counts (a few KB), after gauden_counts.
void WriteMixwAndTmatCounts(const fs::path& dir, const AccumulatorShape& shape, std::vector<float> mixw, std::vector<float> tmat,
                            std::vector<std::string>& digests) {
  WriteCountFile(dir, kBwCountFiles[1], EncodeArray3DFile(MakeMixwCounts(shape, std::move(mixw))), digests);
  WriteCountFile(dir, kBwCountFiles[2], EncodeArray3DFile(MakeTmatCounts(shape, std::move(tmat))), digests);
}

}  // namespace

BwCountFileBytes EncodeBwCountFiles(const AccumulatorShape& shape, bool pass2var, BwCountFloats floats) {
  return BwCountFileBytes{
      EncodeGaudenCountsFile(MakeGaudenCounts(shape, pass2var, std::move(floats.mean), std::move(floats.var), std::move(floats.dnom))),
      EncodeArray3DFile(MakeMixwCounts(shape, std::move(floats.mixw))), EncodeArray3DFile(MakeTmatCounts(shape, std::move(floats.tmat)))};
}

GaudenCounts Accumulators::ToGaudenCounts() const {
  if (!has_gaussians()) throw TrainingError("internal: ToGaudenCounts of a view without its mean and variance sums");
  return MakeGaudenCounts(shape_, pass2var_, ToFloats(mean_), ToFloats(var_), ToFloats(dnom_));
}

Array3D Accumulators::ToMixwCounts() const { return MakeMixwCounts(shape_, ToFloats(mixw_)); }

Array3D Accumulators::ToTmatCounts() const { return MakeTmatCounts(shape_, ToFloats(tmat_)); }

// gauden_counts streamed from the doubles (a CD model's is 1.5 MB: no float32 copy and no encoded
// file beside them, so that a pass may write it while the exact sums still exist), then the two
// small files: the bytes EncodeBwCountFiles gives for the same values.
std::vector<std::string> Accumulators::Write(const std::string& dir_string) const {
  if (!has_gaussians()) throw TrainingError("internal: Accumulators::Write of a view without its mean and variance blocks");
  return Write(dir_string, ChunksOf(mean_.data()), ChunksOf(var_.data()));
}

std::vector<std::string> Accumulators::Write(const std::string& dir_string, const DoubleChunks& mean, const DoubleChunks& var) const {
  const fs::path dir(dir_string);
  fs::create_directories(dir);
  std::vector<std::string> digests;
  Sha256Stream gauden_digest;
  WriteFileAtomicStreamed(dir / kBwCountFiles[0], [&](const ByteSink& sink) {
    EmitGaudenCountsFromDoubleChunks(shape_.n_senones, shape_.n_density, shape_.veclen, pass2var_, mean, var, dnom_.data(),
                                     [&](const void* data, std::size_t size) {
                                       sink(data, size);
                                       gauden_digest.Add(data, size);
                                     });
  });
  digests.push_back(gauden_digest.HexDigest());
  WriteMixwAndTmatCounts(dir, shape_, ToFloats(mixw_), ToFloats(tmat_), digests);
  return digests;
}

Accumulators Accumulators::Read(const std::string& dir_string) {
  const fs::path dir(dir_string);
  if (!fs::is_directory(dir)) throw FileError(dir_string, "accumulator directory does not exist");
  if (fs::is_regular_file(dir / "exact_counts")) return ExactAccumulators::Read(dir_string).ToAccumulators();
  return ReadBwFormat(dir_string);
}

void Accumulators::AddInFloat32(const Accumulators& other, const std::string& what) {
  if (!(shape_ == other.shape_)) throw InputError(what + ": accumulator dimensions do not match");
  if (!has_gaussians() || !other.has_gaussians()) throw TrainingError("internal: " + what + ": a view without its mean and variance sums");
  if (pass2var_ != other.pass2var_) throw InputError(what + ": mixes 2-pass and 1-pass variance accumulators");
  auto add = [](std::vector<double>& into, const std::vector<double>& from) {
    for (std::size_t i = 0; i < into.size(); ++i) {
      into[i] = static_cast<double>(static_cast<float>(into[i]) + static_cast<float>(from[i]));
    }
  };
  add(mixw_, other.mixw_);
  add(dnom_, other.dnom_);
  add(mean_, other.mean_);
  add(var_, other.var_);
  add(tmat_, other.tmat_);
}

Accumulators Accumulators::ReadBwFormat(const std::string& dir_string, std::vector<std::string>* sha256) {
  const fs::path dir(dir_string);
  if (!fs::is_directory(dir)) throw FileError(dir_string, "accumulator directory does not exist");
  for (const char* name : kBwCountFiles) {
    if (!fs::is_regular_file(dir / name)) throw FileError((dir / name).string(), "accumulator file is missing");
  }
  if (sha256) sha256->clear();
  // Each file read once; with `sha256`, hashed from the bytes decoded.
  const auto read = [&](const char* name) {
    std::vector<std::uint8_t> bytes = ReadRegularFileBytes(dir / name);
    if (sha256) sha256->push_back(Sha256Hex(bytes.data(), bytes.size()));
    return bytes;
  };
  const std::string gauden_path = (dir / "gauden_counts").string();
  GaudenCounts g = DecodeGaudenCountsFile(read(kBwCountFiles[0]), gauden_path);
  Array3D mixw = DecodeArray3DFile(read(kBwCountFiles[1]), (dir / "mixw_counts").string());
  Array3D tmat = DecodeArray3DFile(read(kBwCountFiles[2]), (dir / "tmat_counts").string());
  if (!g.has_means || !g.has_vars) throw FileError(gauden_path, "has no mean or no variance accumulators (run bw with -meanreest yes -varreest yes)");
  if (g.n_feat() != 1) throw FileError(gauden_path, "multi-stream accumulators are not supported");
  if (mixw.d1 != g.n_cb || mixw.d2 != 1 || mixw.d3 != g.n_density) {
    throw FileError((dir / "mixw_counts").string(), "dimensions do not match gauden_counts");
  }
  if (tmat.d3 != tmat.d2 + 1) throw FileError((dir / "tmat_counts").string(), "is not [n_tmat][n_emit][n_emit+1]");
  AccumulatorShape shape{g.n_cb, g.n_density, g.veclen[0], tmat.d1, tmat.d2};
  Accumulators acc(shape, g.pass2var);
  acc.mixw_ = ToDoubles(mixw.data);
  acc.dnom_ = ToDoubles(g.dnom);
  acc.mean_ = ToDoubles(g.mean);
  acc.var_ = ToDoubles(g.var);
  acc.tmat_ = ToDoubles(tmat.data);
  return acc;
}

}  // namespace pstrain
