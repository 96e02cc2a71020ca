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
  frame_gamma_.assign(n_local * model.n_density(), 0.0);
  touched_.assign(n_local, 0);
  touched_locals_.clear();
  ci_entry_.assign(n_local, -1);
  ci_entry_locals_.clear();
  ci_value_.clear();
  ci_index_.clear();
  ci_op_.clear();
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
  const std::uint32_t n_density = model.n_density();
  const std::uint32_t senone = hmm_->states[state].senone;
  const std::uint32_t local = (*local_of_senone_)[senone];
  const std::size_t entry = densities.Entry(local);
  Touch(local);
  for (std::uint32_t kk = 0; kk < topn; ++kk) {
    const std::uint32_t k = densities.Index(entry, kk);
    const double d_term = model.MixtureWeight(senone, k) * densities.Value(entry, kk) * p_reest;
    stats_->AddDensityPosterior(local, k, d_term);
    frame_gamma_[std::size_t(local) * n_density + k] += d_term;
  }
  const std::uint32_t ci_senone = hmm_->states[state].ci_senone;
  if (ci_senone == senone) return;
  const std::size_t ci = CiDensities(kernel, ci_senone, frame);
  if (ci_op_[ci] == 0.0) return;
  const std::uint32_t ci_local = (*local_of_senone_)[ci_senone];
  Touch(ci_local);
  const double inv_ci_op = 1.0 / ci_op_[ci];
  for (std::uint32_t kk = 0; kk < topn; ++kk) {
    const std::uint32_t k = ci_index_[ci * topn + kk];
    const double d_term = model.MixtureWeight(ci_senone, k) * ci_value_[ci * topn + kk] * inv_ci_op * ci_post;
    stats_->AddDensityPosterior(ci_local, k, d_term);
    frame_gamma_[std::size_t(ci_local) * n_density + k] += d_term;
  }
}

void StatisticsGatherer::FinishFrame(std::uint32_t frame) {
  const AcousticModel& model = *model_;
  const std::uint32_t n_density = model.n_density();
  const float* x = features_->frame(frame);
  for (const std::uint32_t local : touched_locals_) {
    const std::uint32_t senone = hmm_->senones[local];
    for (std::uint32_t k = 0; k < n_density; ++k) {
      double& gamma = frame_gamma_[std::size_t(local) * n_density + k];
      if (gamma > kMinCountPosterior) stats_->AddFrame(local, k, gamma, x, pass2var_ ? model.InputMean(senone, k) : nullptr, *kernels_);
      gamma = 0.0;
    }
    touched_[local] = 0;
  }
  touched_locals_.clear();
  for (const std::uint32_t local : ci_entry_locals_) ci_entry_[local] = -1;
  ci_entry_locals_.clear();
  ci_value_.clear();
  ci_index_.clear();
  ci_op_.clear();
}

}  // namespace pstrain
