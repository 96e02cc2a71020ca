// StatisticsGatherer: density posteriors, CI-senone shares and per-frame Gaussian statistics.
#include "forward_backward/statistics_gatherer.h"

#include <algorithm>
#include <limits>

namespace pstrain {

namespace {
constexpr double kMinCountPosterior = 1.2e-38;  // SphinxTrain's MIN_POS_FLOAT32 count threshold
}  // namespace

void StatisticsGatherer::Reset(const AcousticModel& model, const SentenceHmm& hmm, const Features& features,
                               const std::vector<std::uint32_t>& local_of_senone, bool pass2var,
                               const numerics::VectorKernels& kernels, UtteranceStats& stats) {
  kernels_ = &kernels;
  model_ = &model;
  hmm_ = &hmm;
  features_ = &features;
  local_of_senone_ = &local_of_senone;
  pass2var_ = pass2var;
  stats_ = &stats;
  const std::size_t n_local = hmm.senones.size();
  n_density_ = model.n_density();
  ci_entry_.assign(n_local, -1);
  ci_entry_locals_.clear();
  ci_value_.clear();
  ci_index_.clear();
  ci_op_.clear();
  block_capacity_ = block_frames_;
  block_x_.clear();
  block_locals_.clear();
  chain_head_.assign(n_local, -1);
  chain_tail_.assign(n_local, -1);
  frame_record_.assign(n_local, -1);
  frame_locals_.clear();
  // The record arrays keep their size between blocks and utterances (NewRecord takes the next
  // place, and grows them only when they are full); n_density may differ from the last utterance's.
  n_records_ = 0;
  record_gamma_.resize(record_next_.size() * n_density_);
  run_gamma_.resize(std::size_t(block_capacity_) * n_density_);
  run_x_.resize(std::size_t(block_capacity_) * n_density_);
  run_n_.assign(n_density_, 0);
  input_mean_.resize(model.veclen());
}

std::int32_t StatisticsGatherer::NewRecord(std::uint32_t local) {
  if (n_records_ == record_next_.size()) {
    const std::size_t size = std::max<std::size_t>(64, 2 * n_records_);  // at most block frames x locals
    record_next_.resize(size);
    record_slot_.resize(size);
    record_gamma_.resize(size * n_density_);
  }
  const auto record = static_cast<std::int32_t>(n_records_++);
  record_next_[static_cast<std::size_t>(record)] = -1;
  record_slot_[static_cast<std::size_t>(record)] = static_cast<std::uint32_t>(block_x_.size());  // the slot FinishFrame gives this frame
  std::fill_n(record_gamma_.begin() + static_cast<std::ptrdiff_t>(std::size_t(record) * n_density_), n_density_, 0.0);
  if (chain_tail_[local] < 0) {
    chain_head_[local] = record;
    block_locals_.push_back(local);
  } else {
    record_next_[static_cast<std::size_t>(chain_tail_[local])] = record;
  }
  chain_tail_[local] = record;
  frame_record_[local] = record;
  frame_locals_.push_back(local);
  return record;
}

std::size_t StatisticsGatherer::CiDensities(DensityKernel& kernel, std::uint32_t ci_senone, std::uint32_t frame) {
  const std::uint32_t local = (*local_of_senone_)[ci_senone];
  if (ci_entry_[local] >= 0) return static_cast<std::size_t>(ci_entry_[local]);
  const AcousticModel& model = *model_;
  const std::uint32_t topn = model.topn();
  kernel.Evaluate(ci_senone, features_->frame(frame));
  const std::size_t entry = ci_op_.size();
  double best_log = -std::numeric_limits<double>::max();
  ci_log_.resize(topn);
  for (std::uint32_t kk = 0; kk < topn; ++kk) {
    ci_log_[kk] = kernel.LogDensity(kernel.Order(kk));
    best_log = std::max(best_log, ci_log_[kk]);
  }
  kernel.ExpShifted(ci_log_.data(), best_log, ci_log_.data(), topn);
  double op = 0.0;
  for (std::uint32_t kk = 0; kk < topn; ++kk) {
    const double den = ci_log_[kk];
    ci_index_.push_back(kernel.Order(kk));
    ci_value_.push_back(den);
    op += model.MixtureWeight(ci_senone, kernel.Order(kk)) * den;
  }
  ci_op_.push_back(op);
  ci_entry_[local] = static_cast<std::int32_t>(entry);
  ci_entry_locals_.push_back(local);
  return entry;
}

void StatisticsGatherer::AddTransitionInto(DensityKernel& kernel, const FrameDensities& densities, std::uint32_t state,
                                           double p_reest, double ci_post, std::uint32_t frame) {
  const AcousticModel& model = *model_;
  const std::uint32_t topn = model.topn();
  const std::uint32_t senone = hmm_->states[state].senone;
  const std::uint32_t local = (*local_of_senone_)[senone];
  const std::size_t entry = densities.Entry(local);
  double* gamma = &record_gamma_[Touch(local)];
  for (std::uint32_t kk = 0; kk < topn; ++kk) {
    const std::uint32_t k = densities.Index(entry, kk);
    const double d_term = model.MixtureWeight(senone, k) * densities.Value(entry, kk) * p_reest;
    stats_->AddDensityPosterior(local, k, d_term);
    gamma[k] += d_term;
  }
  // (`gamma` is not used past here: the CI senone's Touch below may add a record, which can move
  // record_gamma_.)
  const std::uint32_t ci_senone = hmm_->states[state].ci_senone;
  if (ci_senone == senone) return;
  const std::size_t ci = CiDensities(kernel, ci_senone, frame);
  if (ci_op_[ci] == 0.0) return;
  const std::uint32_t ci_local = (*local_of_senone_)[ci_senone];
  double* ci_gamma = &record_gamma_[Touch(ci_local)];
  const double inv_ci_op = 1.0 / ci_op_[ci];
  for (std::uint32_t kk = 0; kk < topn; ++kk) {
    const std::uint32_t k = ci_index_[ci * topn + kk];
    const double d_term = model.MixtureWeight(ci_senone, k) * ci_value_[ci * topn + kk] * inv_ci_op * ci_post;
    stats_->AddDensityPosterior(ci_local, k, d_term);
    ci_gamma[k] += d_term;
  }
}

void StatisticsGatherer::FinishFrame(std::uint32_t frame) {
  block_x_.push_back(features_->frame(frame));
  for (const std::uint32_t local : frame_locals_) frame_record_[local] = -1;
  frame_locals_.clear();
  for (const std::uint32_t local : ci_entry_locals_) ci_entry_[local] = -1;
  ci_entry_locals_.clear();
  ci_value_.clear();
  ci_index_.clear();
  ci_op_.clear();
  if (block_x_.size() >= block_capacity_) Flush();
}

void StatisticsGatherer::Flush() {
  const AcousticModel& model = *model_;
  const std::uint32_t n_density = n_density_;
  const std::size_t capacity = block_capacity_;  // a local has at most one record per frame
  // Local copies of the arrays' addresses: stores through the double and pointer arrays could
  // otherwise alias the vectors' own members, and each would be reloaded.
  double* const run_gamma = run_gamma_.data();
  const float** const run_x = run_x_.data();
  std::uint32_t* const run_n = run_n_.data();
  const double* const record_gamma = record_gamma_.data();
  const std::int32_t* const record_next = record_next_.data();
  const std::uint32_t* const record_slot = record_slot_.data();
  // A senone's means, all its densities' together in either layout (Mean's rows or the grouped one).
  const std::size_t senone_mean_bytes = std::size_t(n_density) * model.veclen() * sizeof(float);
  for (const std::uint32_t local : block_locals_) {
    const std::uint32_t senone = hmm_->senones[local];
    if (pass2var_) {
      // The input means the kernel calls below start from: a tied CD model's (750 KB) are mostly
      // not in this core's cache, and their loads were a tenth of the kernel's time.
      const char* means = reinterpret_cast<const char*>(model.has_mean_rows() ? model.Mean(senone, 0) : model.GroupedMeans(senone));
      for (std::size_t offset = 0; offset < senone_mean_bytes; offset += 64) __builtin_prefetch(means + offset);
    }
    std::fill(run_n, run_n + n_density, 0u);
    for (std::int32_t record = chain_head_[local]; record >= 0; record = record_next[record]) {
      const double* gamma = record_gamma + static_cast<std::size_t>(record) * n_density;
      const float* x = block_x_[record_slot[record]];
      // Appended whatever the posterior, counted only above the threshold (no branch to mispredict:
      // the next one overwrites an uncounted place; a run never exceeds the block's frames).
      for (std::uint32_t k = 0; k < n_density; ++k) {
        const std::size_t at = k * capacity + run_n[k];
        run_gamma[at] = gamma[k];
        run_x[at] = x;
        run_n[k] += gamma[k] > kMinCountPosterior ? 1 : 0;
      }
    }
    for (std::uint32_t k = 0; k < n_density; ++k) {
      if (run_n[k] == 0) continue;
      const float* input_mean = pass2var_ ? model.InputMean(senone, k, input_mean_.data()) : nullptr;
      stats_->AddFrames(local, k, run_gamma + k * capacity, run_x + k * capacity, run_n[k], input_mean, *kernels_);
    }
    chain_head_[local] = chain_tail_[local] = -1;
  }
  block_locals_.clear();
  block_x_.clear();
  n_records_ = 0;
}

}  // namespace pstrain
