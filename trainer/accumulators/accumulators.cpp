#include "accumulators/accumulators.h"

#include <cstring>
#include <filesystem>

#include "common/error.h"
#include "common/file_io.h"

namespace pstrain {

namespace fs = std::filesystem;

namespace {

constexpr char kExactMagic[] = "PSTRAIN_EXACT_COUNTS_V1\n";

void AppendU32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>((v >> (8 * i)) & 0xFF));
}

void AppendDoubles(std::vector<std::uint8_t>& out, const std::vector<double>& values) {
  for (double d : values) {
    std::uint64_t bits;
    std::memcpy(&bits, &d, 8);
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>((bits >> (8 * i)) & 0xFF));
  }
}

class ExactReader {
 public:
  ExactReader(const std::vector<std::uint8_t>& bytes, std::string path) : bytes_(bytes), path_(std::move(path)) {}
  void Skip(std::size_t n) { Need(n); pos_ += n; }
  std::uint32_t U32() {
    Need(4);
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t(bytes_[pos_ + i]) << (8 * i);
    pos_ += 4;
    return v;
  }
  void Doubles(std::vector<double>& out) {
    Need(8 * out.size());
    for (double& d : out) {
      std::uint64_t bits = 0;
      for (int i = 0; i < 8; ++i) bits |= std::uint64_t(bytes_[pos_ + i]) << (8 * i);
      std::memcpy(&d, &bits, 8);
      pos_ += 8;
    }
  }
  void ExpectEnd() const {
    if (pos_ != bytes_.size()) throw FileError(path_, "unexpected trailing bytes (corrupt file)");
  }
  const std::uint8_t* data() const { return bytes_.data(); }

 private:
  void Need(std::size_t n) const {
    if (bytes_.size() - pos_ < n) throw FileError(path_, "truncated exact_counts file");
  }
  const std::vector<std::uint8_t>& bytes_;
  std::string path_;
  std::size_t pos_ = 0;
};

std::vector<float> ToFloats(const std::vector<double>& values) {
  std::vector<float> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = ClampTinyMagnitude(static_cast<float>(values[i]));
  return out;
}

std::vector<double> ToDoubles(const std::vector<float>& values) { return std::vector<double>(values.begin(), values.end()); }

}  // namespace

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

GaudenCounts Accumulators::ToGaudenCounts() const {
  GaudenCounts c;
  c.has_means = true;
  c.has_vars = true;
  c.pass2var = pass2var_;
  c.n_cb = shape_.n_senones;
  c.n_density = shape_.n_density;
  c.veclen = {shape_.veclen};
  c.mean = ToFloats(mean_);
  c.var = ToFloats(var_);
  c.dnom = ToFloats(dnom_);
  return c;
}

Array3D Accumulators::ToMixwCounts() const {
  return Array3D{shape_.n_senones, 1, shape_.n_density, ToFloats(mixw_)};
}

Array3D Accumulators::ToTmatCounts() const {
  return Array3D{shape_.n_tmat, shape_.n_emit_state, shape_.n_emit_state + 1, ToFloats(tmat_)};
}

void Accumulators::Write(const std::string& dir_string) const {
  const fs::path dir(dir_string);
  fs::create_directories(dir);
  WriteGaudenCountsFile((dir / "gauden_counts").string(), ToGaudenCounts());
  WriteArray3DFile((dir / "mixw_counts").string(), ToMixwCounts());
  WriteArray3DFile((dir / "tmat_counts").string(), ToTmatCounts());

  std::vector<std::uint8_t> exact(kExactMagic, kExactMagic + sizeof(kExactMagic) - 1);
  for (std::uint32_t v : {shape_.n_senones, shape_.n_density, shape_.veclen, shape_.n_tmat, shape_.n_emit_state,
                          static_cast<std::uint32_t>(pass2var_ ? 1 : 0)}) {
    AppendU32(exact, v);
  }
  for (const auto* block : {&mixw_, &dnom_, &mean_, &var_, &tmat_}) AppendDoubles(exact, *block);
  WriteFileAtomic(dir / "exact_counts", exact);
}

Accumulators Accumulators::Read(const std::string& dir_string) {
  const fs::path dir(dir_string);
  if (!fs::is_directory(dir)) throw FileError(dir_string, "accumulator directory does not exist");
  const fs::path exact_path = dir / "exact_counts";
  if (fs::is_regular_file(exact_path)) {
    const std::vector<std::uint8_t> bytes = ReadFileBytes(exact_path);
    const std::size_t magic_len = sizeof(kExactMagic) - 1;
    if (bytes.size() < magic_len || std::memcmp(bytes.data(), kExactMagic, magic_len) != 0) {
      throw FileError(exact_path.string(), "not a pstrain exact_counts file (bad magic line)");
    }
    ExactReader in(bytes, exact_path.string());
    in.Skip(magic_len);
    AccumulatorShape shape;
    shape.n_senones = in.U32();
    shape.n_density = in.U32();
    shape.veclen = in.U32();
    shape.n_tmat = in.U32();
    shape.n_emit_state = in.U32();
    std::uint32_t pass2var = in.U32();
    if (pass2var > 1) throw FileError(exact_path.string(), "bad pass2var flag");
    if (std::uint64_t(shape.n_senones) * shape.n_density * shape.veclen > (1ull << 31)) {
      throw FileError(exact_path.string(), "implausible dimensions (corrupt file)");
    }
    Accumulators acc(shape, pass2var == 1);
    for (auto* block : {&acc.mixw_, &acc.dnom_, &acc.mean_, &acc.var_, &acc.tmat_}) in.Doubles(*block);
    in.ExpectEnd();
    return acc;
  }
  for (const char* name : {"gauden_counts", "mixw_counts", "tmat_counts"}) {
    if (!fs::is_regular_file(dir / name)) throw FileError((dir / name).string(), "accumulator file is missing");
  }
  const std::string gauden_path = (dir / "gauden_counts").string();
  GaudenCounts g = ReadGaudenCountsFile(gauden_path);
  Array3D mixw = ReadArray3DFile((dir / "mixw_counts").string());
  Array3D tmat = ReadArray3DFile((dir / "tmat_counts").string());
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
