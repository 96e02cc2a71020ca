// Baum-Welch sufficient statistics as doubles: a value type that can be added, written to and
// read from a directory; what re-estimation consumes.
//
// `Write` writes SphinxTrain's bw format (gauden_counts, mixw_counts, tmat_counts; float32, readable
// by `norm`). `Read` restores a directory written by pstrain from its `exact_counts` file when
// present (see exact_accumulators.h), else reads bw's three files (e.g. written by the real bw).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/param_files.h"

namespace pstrain {

struct AccumulatorShape {
  std::uint32_t n_senones = 0;   // = codebooks = mixture-weight rows (continuous models)
  std::uint32_t n_density = 0;
  std::uint32_t veclen = 0;      // one stream
  std::uint32_t n_tmat = 0;
  std::uint32_t n_emit_state = 0;
  bool operator==(const AccumulatorShape&) const = default;
};

// The shape of the statistics of a model with these means and transition matrices: what a pass on
// it accumulates (every shard's exact_counts) and what its re-estimation requires.
AccumulatorShape StatisticsShape(const GaussianParams& means, const Array3D& transition_matrices);

// The float32 values of the bw-format files (each already ClampTinyMagnitude'd), one vector per block
// in Accumulators' layouts.
struct BwCountFloats {
  std::vector<float> mixw, dnom, mean, var, tmat;
};

// The names of bw's three count files, the files Accumulators::Write writes and ReadBwFormat reads.
inline constexpr const char* kBwCountFiles[] = {"gauden_counts", "mixw_counts", "tmat_counts"};

// The bytes of gauden_counts, mixw_counts and tmat_counts of statistics of `shape` whose values are
// already float32 (ExactAccumulators::CountFloats), in memory (e.g. to compare with files on disk):
// what Accumulators::Write and ExactAccumulators::WriteCountFiles write.
struct BwCountFileBytes {
  std::vector<std::uint8_t> gauden_counts, mixw_counts, tmat_counts;
};
BwCountFileBytes EncodeBwCountFiles(const AccumulatorShape& shape, bool pass2var, BwCountFloats floats);

class Accumulators {
 public:
  Accumulators() = default;
  Accumulators(const AccumulatorShape& shape, bool pass2var);

  const AccumulatorShape& shape() const { return shape_; }
  bool pass2var() const { return pass2var_; }

  // Element access. Layouts: mixw/dnom [senone][density]; mean/var [senone][density][veclen];
  // tmat [tmat][from][to] with to in [0, n_emit_state].
  double& mixw(std::uint32_t senone, std::uint32_t density) { return mixw_[std::size_t(senone) * shape_.n_density + density]; }
  double& dnom(std::uint32_t senone, std::uint32_t density) { return dnom_[std::size_t(senone) * shape_.n_density + density]; }
  double* mean(std::uint32_t senone, std::uint32_t density) { return mean_.data() + (std::size_t(senone) * shape_.n_density + density) * shape_.veclen; }
  double* var(std::uint32_t senone, std::uint32_t density) { return var_.data() + (std::size_t(senone) * shape_.n_density + density) * shape_.veclen; }
  double& tmat(std::uint32_t tmat_id, std::uint32_t from, std::uint32_t to) {
    return tmat_[(std::size_t(tmat_id) * shape_.n_emit_state + from) * (shape_.n_emit_state + 1) + to];
  }
  double mixw(std::uint32_t senone, std::uint32_t density) const { return mixw_[std::size_t(senone) * shape_.n_density + density]; }
  double dnom(std::uint32_t senone, std::uint32_t density) const { return dnom_[std::size_t(senone) * shape_.n_density + density]; }
  const double* mean(std::uint32_t senone, std::uint32_t density) const {
    return mean_.data() + (std::size_t(senone) * shape_.n_density + density) * shape_.veclen;
  }
  const double* var(std::uint32_t senone, std::uint32_t density) const {
    return var_.data() + (std::size_t(senone) * shape_.n_density + density) * shape_.veclen;
  }
  double tmat(std::uint32_t tmat_id, std::uint32_t from, std::uint32_t to) const {
    return tmat_[(std::size_t(tmat_id) * shape_.n_emit_state + from) * (shape_.n_emit_state + 1) + to];
  }
  const std::vector<double>& mixw_data() const { return mixw_; }
  const std::vector<double>& dnom_data() const { return dnom_; }
  const std::vector<double>& mean_data() const { return mean_; }
  const std::vector<double>& var_data() const { return var_; }
  const std::vector<double>& tmat_data() const { return tmat_; }

  // Element-wise sum. Shapes and the pass2var flag must agree (InputError otherwise, naming `what`).
  void Add(const Accumulators& other, const std::string& what = "accumulators");

  // Whether the mean and variance blocks are held: not by a view of exact sums built without them
  // (ExactAccumulators::ToAccumulatorsWithoutGaussians), whose owner gives them a piece at a time.
  // mean(), var(), Add, Write(dir) and the bw-format views need them.
  bool has_gaussians() const {
    return mean_.size() == std::size_t(shape_.n_senones) * shape_.n_density * shape_.veclen && var_.size() == mean_.size();
  }

  // Writes the bw-format files into `dir` (created if needed), each atomically; returns their
  // SHA-256 in kBwCountFiles order, hashed as written (the files are not read back).
  std::vector<std::string> Write(const std::string& dir) const;
  // The same, the means and variances asked of `mean` and `var` (a view without them).
  std::vector<std::string> Write(const std::string& dir, const DoubleChunks& mean, const DoubleChunks& var) const;
  // Reads a directory written by pstrain (exact_counts) or by SphinxTrain's bw.
  static Accumulators Read(const std::string& dir);
  // Reads only the three bw-format (float32) files, ignoring exact_counts; each must be a regular
  // file, read once. With `sha256`, it receives each file's SHA-256 in kBwCountFiles order, of the
  // bytes the statistics were decoded from (the float32 reducer's check of a shard's payload).
  static Accumulators ReadBwFormat(const std::string& dir, std::vector<std::string>* sha256 = nullptr);
  // SphinxTrain's reduction: every element becomes float32(float32(this) + float32(other)).
  void AddInFloat32(const Accumulators& other, const std::string& what);

  // The bw-format (float32) views, as bw would write them (tiny magnitudes clamped as bw does).
  GaudenCounts ToGaudenCounts() const;
  Array3D ToMixwCounts() const;
  Array3D ToTmatCounts() const;

 private:
  friend class ExactAccumulators;
  AccumulatorShape shape_;
  bool pass2var_ = false;
  std::vector<double> mixw_, dnom_, mean_, var_, tmat_;
};

}  // namespace pstrain
