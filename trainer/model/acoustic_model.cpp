// Loading and saving a model directory's files, and the acoustic model the E-step evaluates.
#include "model/acoustic_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <utility>

#include "common/error.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "common/sha256_pair.h"
#include "numerics/elementary.h"
#include "numerics/vector_kernels.h"

namespace pstrain {

namespace fs = std::filesystem;

namespace {

void RequireFile(const fs::path& path) {
  if (!fs::is_regular_file(path)) throw FileError(path.string(), "model file is missing");
}

// Normalizes `row` by its float64 sum (no-op for an all-zero row).
void NormalizeRow(float* row, std::size_t n) {
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) sum += row[i];
  if (sum == 0.0) return;
  for (std::size_t i = 0; i < n; ++i) row[i] = static_cast<float>(row[i] / sum);
}

}  // namespace

ModelPaths ModelPaths::InDirectory(const std::string& dir_string) {
  const fs::path dir(dir_string);
  return {(dir / "mdef").string(), (dir / "means").string(), (dir / "variances").string(), (dir / "mixture_weights").string(),
          (dir / "transition_matrices").string()};
}

ModelFiles ModelFiles::Load(const std::string& dir_string) { return LoadAndHash(dir_string, nullptr); }

ModelFiles ModelFiles::Load(const std::string& dir_string, ModelFileDigests& digests) {
  return LoadAndHash(dir_string, &digests);
}

ModelFiles ModelFiles::LoadAndHash(const std::string& dir_string, ModelFileDigests* digests) {
  const fs::path dir(dir_string);
  if (!fs::is_directory(dir)) throw FileError(dir_string, "model directory does not exist");
  if (digests != nullptr) digests->clear();
  ModelFiles files = LoadFilesAndHash(ModelPaths::InDirectory(dir_string), digests);
  if (fs::is_regular_file(dir / "feat.params")) {
    files.feat_params_text = ReadFileText(dir / "feat.params");
    FeatParams::Parse(files.feat_params_text, (dir / "feat.params").string());  // validate syntax
    files.has_feat_params = true;
    if (digests != nullptr) digests->emplace_back("feat.params", Sha256Hex(files.feat_params_text));
  }
  if (fs::is_regular_file(dir / "noisedict")) {
    files.noisedict_text = ReadFileText(dir / "noisedict");
    files.has_noisedict = true;
    if (digests != nullptr) digests->emplace_back("noisedict", Sha256Hex(files.noisedict_text));
  }
  return files;
}

ModelFiles ModelFiles::LoadFiles(const ModelPaths& paths) { return LoadFilesAndHash(paths, nullptr); }

ModelFiles ModelFiles::TakeParameterFiles() {
  ModelFiles taken;
  taken.mdef = std::exchange(mdef, Mdef());
  taken.means = std::exchange(means, GaussianParams());
  taken.variances = std::exchange(variances, GaussianParams());
  taken.mixture_weights = std::exchange(mixture_weights, Array3D());
  taken.transition_matrices = std::exchange(transition_matrices, Array3D());
  return taken;
}

void ModelFiles::ReloadParameterFiles(const std::string& dir, const ModelFileDigests& digests) {
  const ModelPaths paths = ModelPaths::InDirectory(dir);
  ModelFileDigests read_digests;
  ModelFiles read = LoadFilesAndHash(paths, &read_digests);
  for (const auto& [name, sha256] : digests) {
    if (name != "feat.params" && name != "noisedict") continue;
    const fs::path path = fs::path(dir) / name;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) throw TrainingError(path.string() + ": gone or not a regular file: it changed during the pass");
    read_digests.emplace_back(name, Sha256OfFile(path));
  }
  for (const auto& [name, sha256] : read_digests) {
    const auto listed = std::find_if(digests.begin(), digests.end(), [&name = name](const auto& digest) { return digest.first == name; });
    const std::string path = (std::filesystem::path(dir) / name).string();
    if (listed == digests.end()) throw TrainingError(path + ": no recorded SHA-256 to read it back against");
    if (sha256 != listed->second) {
      throw TrainingError(path + ": SHA-256 " + sha256 + " differs from " + listed->second +
                          ", the digest the pass's model fingerprint was made of: it changed during the pass");
    }
  }
  mdef = std::move(read.mdef);
  means = std::move(read.means);
  variances = std::move(read.variances);
  mixture_weights = std::move(read.mixture_weights);
  transition_matrices = std::move(read.transition_matrices);
}

// Each file is read once: parsed from the bytes read, and hashed from them when asked.
ModelFiles ModelFiles::LoadFilesAndHash(const ModelPaths& paths, ModelFileDigests* digests) {
  ModelFiles files;
  for (const std::string* name : {&paths.mdef, &paths.means, &paths.variances, &paths.mixture_weights, &paths.transition_matrices}) RequireFile(*name);
  const auto hash = [digests](const char* name, const void* data, std::size_t size) {
    if (digests != nullptr) digests->emplace_back(name, Sha256Hex(data, size));
  };
  {
    const std::string text = ReadFileText(paths.mdef);
    hash("mdef", text.data(), text.size());
    files.mdef = Mdef::Parse(text, paths.mdef);
  }
  // The parameter files two by two: the first read and decoded, the second read, both hashed side
  // by side (common/sha256_pair.h: the means and variances are most of a model's bytes), then the
  // second decoded. Errors come in the files' order, as one at a time.
  const auto two_files = [&](const char* first_name, const std::string& first_path, const auto& decode_first,
                             const char* second_name, const std::string& second_path, const auto& decode_second) {
    std::vector<std::uint8_t> first = ReadFileBytes(first_path);
    decode_first(first);
    const std::vector<std::uint8_t> second = ReadFileBytes(second_path);
    if (digests != nullptr) {
      std::array<std::string, 2> pair = Sha256HexPair(first, second);
      digests->emplace_back(first_name, std::move(pair[0]));
      digests->emplace_back(second_name, std::move(pair[1]));
    }
    std::vector<std::uint8_t>().swap(first);  // (no more bytes held at once than one at a time)
    decode_second(second);
  };
  two_files(
      "means", paths.means, [&](const std::vector<std::uint8_t>& bytes) { files.means = DecodeGaussianFile(bytes, paths.means); },
      "variances", paths.variances, [&](const std::vector<std::uint8_t>& bytes) { files.variances = DecodeGaussianFile(bytes, paths.variances); });
  two_files(
      "mixture_weights", paths.mixture_weights,
      [&](const std::vector<std::uint8_t>& bytes) { files.mixture_weights = DecodeArray3DFile(bytes, paths.mixture_weights); },
      "transition_matrices", paths.transition_matrices,
      [&](const std::vector<std::uint8_t>& bytes) { files.transition_matrices = DecodeArray3DFile(bytes, paths.transition_matrices); });

  const std::string means_path = paths.means;
  const Mdef& mdef = files.mdef;
  if (files.means.n_mgau != mdef.n_tied_state()) {
    if (files.means.n_mgau == 1) {
      throw FileError(means_path, "semi-continuous model (one shared codebook) is not supported; pstrain trains continuous models (one codebook per tied state)");
    }
    if (files.means.n_mgau == mdef.n_ci_phones()) {
      throw FileError(means_path, "phonetically-tied (PTM) model (one codebook per CI phone) is not supported; pstrain trains continuous models");
    }
    throw FileError(means_path, "has " + std::to_string(files.means.n_mgau) + " codebooks but the mdef has " +
                                    std::to_string(mdef.n_tied_state()) + " tied states");
  }
  if (files.means.n_feat != 1) throw FileError(means_path, "multi-stream models are not supported (n_feat = " + std::to_string(files.means.n_feat) + ")");
  if (!files.variances.SameShape(files.means)) {
    throw FileError(paths.variances, "dimensions differ from the means file");
  }
  const Array3D& mixw = files.mixture_weights;
  if (mixw.d1 != mdef.n_tied_state() || mixw.d2 != files.means.n_feat || mixw.d3 != files.means.n_density) {
    throw FileError(paths.mixture_weights,
                    "dimensions " + std::to_string(mixw.d1) + "x" + std::to_string(mixw.d2) + "x" + std::to_string(mixw.d3) +
                        " do not match the model (" + std::to_string(mdef.n_tied_state()) + " tied states, " +
                        std::to_string(files.means.n_density) + " densities)");
  }
  const Array3D& tmat = files.transition_matrices;
  if (tmat.d1 != mdef.n_tied_tmat() || tmat.d2 != mdef.n_emit_state() || tmat.d3 != mdef.n_emit_state() + 1) {
    throw FileError(paths.transition_matrices,
                    "dimensions " + std::to_string(tmat.d1) + "x" + std::to_string(tmat.d2) + "x" + std::to_string(tmat.d3) +
                        " do not match the mdef (" + std::to_string(mdef.n_tied_tmat()) + " matrices of " +
                        std::to_string(mdef.n_emit_state()) + "x" + std::to_string(mdef.n_emit_state() + 1) + ")");
  }
  return files;
}

void ModelFiles::ForEachEncodedFile(const std::function<void(const char* name, const void* data, std::size_t size)>& use,
                                    const std::string* mdef_text) const {
  const auto text = [&](const char* name, const std::string& s) { use(name, s.data(), s.size()); };
  const auto bytes = [&](const char* name, const std::vector<std::uint8_t>& b) { use(name, b.data(), b.size()); };
  if (mdef_text) {
    text(kModelFiles[0], *mdef_text);  // (not through ?:, which would copy it)
  } else {
    text(kModelFiles[0], mdef.Serialize());
  }
  bytes(kModelFiles[1], EncodeGaussianFile(means));
  bytes(kModelFiles[2], EncodeGaussianFile(variances));
  bytes(kModelFiles[3], EncodeArray3DFile(mixture_weights));
  bytes(kModelFiles[4], EncodeArray3DFile(transition_matrices));
  if (has_feat_params) text(kModelFiles[5], feat_params_text);
  if (has_noisedict) text(kModelFiles[6], noisedict_text);
}

void ModelFiles::Save(const std::string& dir_string) const {
  const fs::path dir(dir_string);
  ForEachEncodedFile([&](const char* name, const void* data, std::size_t size) { WriteFileAtomic(dir / name, data, size); });
}

AcousticModel::AcousticModel(const ModelFiles& files, const ModelOptions& options) : AcousticModel(files, files.means.data, options) {}

AcousticModel::AcousticModel(ModelFiles&& files, const ModelOptions& options)
    : AcousticModel(files, std::move(files.means.data), options) {}

AcousticModel::AcousticModel(const ModelFiles& files, std::vector<float> means, const ModelOptions& options) {
  n_senones_ = files.means.n_mgau;
  n_density_ = files.means.n_density;
  veclen_ = files.means.veclen[0];
  n_emit_state_ = files.mdef.n_emit_state();
  n_tmat_ = files.mdef.n_tied_tmat();
  topn_ = (options.topn == 0 || options.topn > n_density_) ? n_density_ : options.topn;

  means_ = std::move(means);
  const std::size_t n_densities_total = std::size_t(n_senones_) * n_density_;
  // The layouts, fixed first: each precision is written once, straight into the one that keeps it
  // (docs/performance.md, thirty-fifth round: a float32 copy of them all, then converted into the
  // grouped layout, was a fresh 5.2 MB block for 2,102 senones x 16 Gaussians at every worker's
  // start). The grouped layout holds every density when they fill its groups; the float32
  // precisions, of every density, are kept only when some are beyond the last full group
  // (PrecisionAt reads those from them).
  const bool grouped = n_density_ >= kDensityGroup;
  std::uint32_t n_groups = 0;
  if (grouped) {
    grouped_width_ = n_density_ % 8 == 0 ? 8 : kDensityGroup;
    n_groups = n_density_ / grouped_width_;
    grouped_stride_ = std::size_t(n_groups) * veclen_ * grouped_width_;
    grouped_precision_.resize(std::size_t(n_senones_) * grouped_stride_);
  }
  const bool all_grouped = grouped && n_density_ % grouped_width_ == 0;
  if (grouped && !all_grouped) grouped_means_.resize(grouped_precision_.size());
  if (!grouped) {
    pair_precision_.resize(files.variances.data.size());
  } else if (!all_grouped) {
    precision_.resize(files.variances.data.size());
  }
  log_norm_.resize(n_densities_total);
  const float log_two_pi_term = static_cast<float>(veclen_ * numerics::Log(2.0 * M_PI));
  // The logarithms of a density's floored variances through the vector kernel (numerics::Log's
  // bits on every level, element by element), then summed in float32 in dimension order, as
  // SphinxTrain does. A block of densities at a time: one kernel call for the block's logarithms,
  // and the sums of kChains densities side by side, each still in dimension order (one density's
  // chain of dependent additions at a time was most of a tied CD model's construction).
  const numerics::VectorKernels& kernels = numerics::ActiveKernels();
  constexpr std::size_t kBlock = 64, kChains = 8;
  std::vector<double> log_var(kBlock * veclen_);
  for (std::size_t first = 0; first < n_densities_total; first += kBlock) {
    const std::size_t n = std::min(kBlock, n_densities_total - first);
    for (std::size_t d = first; d < first + n; ++d) {
      const std::uint32_t senone = static_cast<std::uint32_t>(d / n_density_), density = static_cast<std::uint32_t>(d % n_density_);
      const bool in_group = grouped && density < n_groups * grouped_width_;
      const std::size_t row = d * veclen_;
      const std::size_t grouped_first = in_group ? GroupedAt(senone, density, 0) : 0;  // then + l * grouped_width_
      for (std::uint32_t l = 0; l < veclen_; ++l) {
        float var = files.variances.data[row + l];
        if (!(var >= options.varfloor)) var = options.varfloor;  // also floors NaN
        log_var[(d - first) * veclen_ + l] = static_cast<double>(var);
        const float precision = static_cast<float>(1.0 / (2.0 * var));
        if (!grouped) {
          pair_precision_[row + l] = precision;  // (float32 to double: exact)
        } else {
          if (in_group) grouped_precision_[grouped_first + std::size_t(l) * grouped_width_] = precision;
          if (!all_grouped) precision_[row + l] = precision;
        }
      }
    }
    kernels.log(log_var.data(), log_var.data(), n * veclen_);
    for (std::size_t chain0 = 0; chain0 < n; chain0 += kChains) {
      const std::size_t chains = std::min(kChains, n - chain0);
      float log_det[kChains] = {};
      for (std::uint32_t dim = 0; dim < veclen_; ++dim) {
        for (std::size_t j = 0; j < chains; ++j) {
          log_det[j] = static_cast<float>(log_det[j] + log_var[(chain0 + j) * veclen_ + dim]);
        }
      }
      for (std::size_t j = 0; j < chains; ++j) {
        log_norm_[first + chain0 + j] =
            static_cast<float>(-0.5 * (static_cast<double>(log_det[j]) + static_cast<double>(log_two_pi_term)));
      }
    }
  }
  // The means in the grouped layout (the precisions are there already). When the groups hold every
  // density, each group's block of the rows is where the layout puts that group: the rows are
  // transposed block by block in place and become the layout (no second 5.2 MB block for 2,102
  // senones x 16 Gaussians).
  if (all_grouped) {
    const std::size_t block = std::size_t(grouped_width_) * veclen_;
    std::vector<float> rows(block);
    for (std::size_t at = 0; at < means_.size(); at += block) {
      std::copy(means_.begin() + static_cast<std::ptrdiff_t>(at), means_.begin() + static_cast<std::ptrdiff_t>(at + block), rows.begin());
      for (std::uint32_t j = 0; j < grouped_width_; ++j) {
        for (std::uint32_t l = 0; l < veclen_; ++l) means_[at + std::size_t(l) * grouped_width_ + j] = rows[std::size_t(j) * veclen_ + l];
      }
    }
    grouped_means_ = std::move(means_);
    means_.clear();
  } else if (grouped) {
    const std::uint32_t width = grouped_width_;
    for (std::uint32_t senone = 0; senone < n_senones_; ++senone) {
      for (std::uint32_t g = 0; g < n_groups; ++g) {
        const std::size_t base = senone * grouped_stride_ + std::size_t(g) * veclen_ * width;
        for (std::uint32_t j = 0; j < width; ++j) {
          const float* mean = Mean(senone, g * width + j);
          for (std::uint32_t l = 0; l < veclen_; ++l) grouped_means_[base + std::size_t(l) * width + j] = mean[l];
        }
      }
    }
  }
  // (The means' rows stay when some densities are in no full group, which EvaluateLogDensity reads
  // from them, or without the grouped layout: the pair kernel reads them.)

  mixw_ = files.mixture_weights.data;
  for (std::uint32_t senone = 0; senone < n_senones_; ++senone) {
    float* row = mixw_.data() + std::size_t(senone) * n_density_;
    NormalizeRow(row, n_density_);
    for (std::uint32_t k = 0; k < n_density_; ++k) {
      if (row[k] < options.mwfloor) row[k] = options.mwfloor;
    }
    NormalizeRow(row, n_density_);
  }

  tmat_ = files.transition_matrices.data;
  const std::uint32_t n_to = n_emit_state_ + 1;
  for (std::size_t row_idx = 0; row_idx < std::size_t(n_tmat_) * n_emit_state_; ++row_idx) {
    float* row = tmat_.data() + row_idx * n_to;
    NormalizeRow(row, n_to);
    for (std::uint32_t to = 0; to < n_to; ++to) {
      if (row[to] != 0.0f && row[to] < options.tpfloor) row[to] = options.tpfloor;
    }
    NormalizeRow(row, n_to);
  }
}

}  // namespace pstrain
