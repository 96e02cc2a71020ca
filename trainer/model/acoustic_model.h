// A continuous HMM-GMM acoustic model as the E-step uses it.
//
// `ModelFiles` is the model directory as stored (raw parameters, what norm writes and pocketsphinx
// reads). `AcousticModel` is the same model prepared for evaluation exactly as SphinxTrain's bw
// prepares it on load: mixture weights normalized, floored (every entry) and renormalized; transition
// rows normalized, non-zero entries floored and renormalized (zeros keep the topology); variances
// floored; per-density log normalizers and 1/(2 sigma^2) precomputed in float32.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "formats/feat_params.h"
#include "formats/mdef.h"
#include "formats/param_files.h"

namespace pstrain {

// The files of a model directory, in the order fingerprints and digests list them
// (provenance/fingerprints.h ModelFingerprint, pass.json's and provenance.json's file digests):
// the five parameter files, then the two copied verbatim when present.
inline constexpr const char* kModelFiles[] = {"mdef", "means", "variances", "mixture_weights", "transition_matrices", "feat.params",
                                              "noisedict"};
// The ones re-estimation writes, and the ones a pass copies from its input model unchanged.
inline constexpr const char* kEstimatedModelFiles[] = {"means", "variances", "mixture_weights", "transition_matrices"};
inline constexpr const char* kCopiedModelFiles[] = {"mdef", "feat.params", "noisedict"};

// (file name in kModelFiles, lower-case hex SHA-256 of its bytes), in kModelFiles order.
using ModelFileDigests = std::vector<std::pair<std::string, std::string>>;

// The files of a model directory (mdef, means, variances, mixture_weights, transition_matrices,
// feat.params, noisedict). Loading checks that all dimensions agree and that the model is continuous
// (one codebook per tied state); semi-continuous and PTM models are rejected with a clear error.
// The paths of a model's parameter files (a model directory's, or bw's -moddeffn -meanfn ... flags).
struct ModelPaths {
  std::string mdef, means, variances, mixture_weights, transition_matrices;
  static ModelPaths InDirectory(const std::string& dir);
};

struct ModelFiles {
  Mdef mdef;
  GaussianParams means;
  GaussianParams variances;
  Array3D mixture_weights;
  Array3D transition_matrices;
  std::string feat_params_text;  // copied verbatim when present
  std::string noisedict_text;    // copied verbatim when present
  bool has_feat_params = false;
  bool has_noisedict = false;

  static ModelFiles Load(const std::string& dir);
  // The same, and the SHA-256 of every file's bytes as read and parsed (kModelFiles order, the
  // files Load read): what a fingerprint of the model actually loaded is made of
  // (provenance/fingerprints.h ModelFingerprint), however the directory changes afterwards.
  static ModelFiles Load(const std::string& dir, ModelFileDigests& digests);
  // The five parameter files only (no feat.params, no noisedict), with Load's checks.
  static ModelFiles LoadFiles(const ModelPaths& paths);
  // Calls use(name, data, size) with the bytes of every file Save writes, in kModelFiles order
  // (feat.params and noisedict only when present), one file at a time (each serialized once and
  // freed after the call, so that a CD model's megabytes are never held all at once): a caller can
  // write a file twice and hash it without reading it back.
  // `mdef_text`, if given, is used as mdef's bytes: mdef.Serialize() computed before (the same
  // mdef; re-estimation never changes it).
  void ForEachEncodedFile(const std::function<void(const char* name, const void* data, std::size_t size)>& use,
                          const std::string* mdef_text = nullptr) const;
  // Writes every file into `dir` (which must exist), each atomically.
  void Save(const std::string& dir) const;

  // Moves the five parameter files' contents (mdef, means, variances, mixture_weights,
  // transition_matrices) out into a ModelFiles of their own, which it returns; feat.params and
  // noisedict stay. For a time when this copy is not read and another user can take it
  // (training/train_loop.cpp: the shard run in this process).
  ModelFiles TakeParameterFiles();
  // Reads them back from `dir` with LoadFiles' checks, each file required to have the SHA-256
  // `digests` lists for it (those it was loaded or written with), and the other files `digests`
  // lists (feat.params, noisedict) still to have theirs (they are not read back: this copy's texts
  // stay): otherwise a TrainingError naming the file (it changed since), and nothing is taken. The
  // same bytes parse to the same values: the ones taken, bit for bit.
  void ReloadParameterFiles(const std::string& dir, const ModelFileDigests& digests);

 private:
  static ModelFiles LoadAndHash(const std::string& dir, ModelFileDigests* digests);
  static ModelFiles LoadFilesAndHash(const ModelPaths& paths, ModelFileDigests* digests);
};

struct ModelOptions {
  float varfloor = 1e-4f;   // SphinxTrain scripts' value (bw's own default is 1e-5)
  float mwfloor = 1e-8f;    // SphinxTrain scripts' value (bw's own default is 1e-5)
  float tpfloor = 1e-4f;
  std::uint32_t topn = 0;   // 0 = all densities
};

class AcousticModel {
 public:
  AcousticModel(const ModelFiles& files, const ModelOptions& options);
  // The same, taking the files' means instead of copying them (files.means.data is left empty,
  // also if the constructor throws; the rest of `files` is read as above and left as it was): a
  // caller that drops the files afterwards never holds the means twice.
  AcousticModel(ModelFiles&& files, const ModelOptions& options);

  std::uint32_t n_senones() const { return n_senones_; }
  std::uint32_t n_density() const { return n_density_; }
  std::uint32_t veclen() const { return veclen_; }
  std::uint32_t topn() const { return topn_; }
  // Every density is evaluated (topn = all): a senone's top-n order is its density order.
  bool topn_is_all() const { return topn_ == n_density_; }
  std::uint32_t n_emit_state() const { return n_emit_state_; }
  std::uint32_t n_tmat() const { return n_tmat_; }

  // A density's float32 means, its veclen() values side by side: held only when has_mean_rows(),
  // i.e. without the grouped layout or when some densities are in no full group of it (the grouped
  // layout holds every mean otherwise: a second copy was 5.2 MB of a worker's 74 MB for a tied CD
  // model of 2,102 senones x 16 Gaussians). MeanAt and InputMean read any layout.
  bool has_mean_rows() const { return !means_.empty(); }
  const float* Mean(std::uint32_t senone, std::uint32_t density) const { return means_.data() + RowAt(senone, density, 0); }
  // Dimension l of a density's mean, from whichever array holds it.
  float MeanAt(std::uint32_t senone, std::uint32_t density, std::uint32_t l) const {
    return !means_.empty() ? means_[RowAt(senone, density, l)] : grouped_means_[GroupedAt(senone, density, l)];
  }
  // 1 / (2 sigma^2) of dimension l of a density, the float32 value as a double (exact), from
  // whichever array holds it: the float32 copy in Mean's layout, kept only when some densities are
  // in no full group of the grouped layout (then it holds all of them); else the grouped layout, or
  // PairPrecision's without one.
  double PrecisionAt(std::uint32_t senone, std::uint32_t density, std::uint32_t l) const {
    if (!precision_.empty()) return precision_[RowAt(senone, density, l)];
    if (!pair_precision_.empty()) return pair_precision_[RowAt(senone, density, l)];
    return grouped_precision_[GroupedAt(senone, density, l)];
  }
  float LogNorm(std::uint32_t senone, std::uint32_t density) const { return log_norm_[std::size_t(senone) * n_density_ + density]; }
  float MixtureWeight(std::uint32_t senone, std::uint32_t density) const { return mixw_[std::size_t(senone) * n_density_ + density]; }
  // Transition probability from emitting state `from` to state `to` (to == n_emit_state is the exit).
  float Transition(std::uint32_t tmat, std::uint32_t from, std::uint32_t to) const {
    return tmat_[(std::size_t(tmat) * n_emit_state_ + from) * (n_emit_state_ + 1) + to];
  }
  // The unfloored input means (2-pass variance accumulates around these), side by side: Mean's row
  // when has_mean_rows(), else copied into `scratch` (veclen() floats), which is returned.
  const float* InputMean(std::uint32_t senone, std::uint32_t density, float* scratch) const {
    if (has_mean_rows()) return Mean(senone, density);
    for (std::uint32_t l = 0; l < veclen_; ++l) scratch[l] = MeanAt(senone, density, l);
    return scratch;
  }

  // The Gaussians again, laid out once for the grouped density kernel
  // (forward_backward/gaussian_eval.h): per senone, groups of grouped_width() densities, each group
  // dimension-major [dim][grouped_width()]: the float32 means as above, and the float32 precisions
  // converted to double (exact), so the kernel does not convert them for every frame.
  // Present when a senone has at least kDensityGroup densities (every density is evaluated with
  // any topn: the top-n are chosen from all of them); only full groups are laid out (densities
  // beyond the last full group are not). The groups are of 8 when the densities are a multiple of
  // 8 (a dimension of a group is then one 8-lane register on the avx512 level), else of 4.
  static constexpr std::uint32_t kDensityGroup = 4;
  bool has_grouped_layout() const { return !grouped_means_.empty(); }
  std::uint32_t grouped_width() const { return grouped_width_; }
  const float* GroupedMeans(std::uint32_t senone) const { return grouped_means_.data() + std::size_t(senone) * grouped_stride_; }
  const double* GroupedPrecisions(std::uint32_t senone) const {
    return grouped_precision_.data() + std::size_t(senone) * grouped_stride_;
  }
  // Without the grouped layout (fewer than kDensityGroup densities a senone), the precisions again
  // in Mean's layout, converted to double (exact) once, for the kernel that evaluates densities
  // one at a time in its lanes (numerics/vector_kernels.h pair_distances).
  const double* PairPrecision(std::uint32_t senone, std::uint32_t density) const {
    return pair_precision_.data() + RowAt(senone, density, 0);
  }

 private:
  // Where dimension l of a density is in Mean's layout (its rows), and in the grouped one.
  std::size_t RowAt(std::uint32_t senone, std::uint32_t density, std::uint32_t l) const {
    return (std::size_t(senone) * n_density_ + density) * veclen_ + l;
  }
  std::size_t GroupedAt(std::uint32_t senone, std::uint32_t density, std::uint32_t l) const {
    const std::uint32_t group = density / grouped_width_, lane = density % grouped_width_;
    return std::size_t(senone) * grouped_stride_ + (std::size_t(group) * veclen_ + l) * grouped_width_ + lane;
  }

  // The constructor both public ones delegate to, `means` being the files' means (copied or taken).
  AcousticModel(const ModelFiles& files, std::vector<float> means, const ModelOptions& options);

  std::uint32_t n_senones_ = 0, n_density_ = 0, veclen_ = 0, topn_ = 0, n_emit_state_ = 0, n_tmat_ = 0;
  std::vector<float> means_;  // kept as has_mean_rows() says
  // 1 / (2 sigma^2) of the floored variance, float32; kept only when some density is in no full
  // group of the grouped layout (PrecisionAt). For a tied CD model of 2,102 senones x 16 Gaussians
  // this copy was 5.2 MB of a worker's 80 MB.
  std::vector<float> precision_;
  std::vector<float> log_norm_;
  std::vector<float> mixw_;
  std::vector<float> tmat_;
  std::uint32_t grouped_width_ = kDensityGroup;  // densities per group: 4 or 8
  std::size_t grouped_stride_ = 0;               // floats per senone in the grouped layout
  std::vector<float> grouped_means_;
  std::vector<double> grouped_precision_;
  std::vector<double> pair_precision_;  // without the grouped layout only
};

}  // namespace pstrain
