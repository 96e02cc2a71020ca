// FrameDensities: building, scaling and looking up the per-frame density cache.
#include "forward_backward/frame_densities.h"

#include <algorithm>
#include <limits>

namespace pstrain {

namespace {
constexpr double kMaxLogDensity = 10.0;                  // densities are scaled so the best is exp(10)
constexpr double kMinusLogInfinity = -708.407751281802;  // log of the smallest normal double
}  // namespace

void FrameDensities::Reset(const std::vector<std::uint32_t>& senones, const AcousticModel& model) {
  senones_ = &senones;
  topn_ = model.topn();
  begin_.assign(1, 0);
  local_.clear();
  op_.clear();
  value_.clear();
  index_.clear();
  pending_log_.clear();
  pending_senones_.clear();
  local_entry_.assign(senones.size(), -1);
}

void FrameDensities::Request(std::uint32_t local, const float* x) {
  if (local_entry_[local] >= 0) return;
  local_entry_[local] = static_cast<std::int32_t>(local_.size());
  local_.push_back(local);
  pending_senones_.push_back((*senones_)[local]);
  pending_x_ = x;
}

double FrameDensities::FinishFrame(DensityKernel& kernel, const AcousticModel& model) {
  const std::size_t first_entry = begin_.back();
  kernel.EvaluateMany(pending_senones_.data(), pending_senones_.size(), pending_x_, index_, pending_log_);
  pending_senones_.clear();
  double max_log = -std::numeric_limits<double>::max();
  for (const double v : pending_log_) max_log = std::max(max_log, v);
  double dscale = max_log - kMaxLogDensity;
  if (dscale <= kMinusLogInfinity) dscale = kMinusLogInfinity + kMaxLogDensity;
  pending_value_.resize(pending_log_.size());
  kernel.ExpShifted(pending_log_.data(), dscale, pending_value_.data(), pending_log_.size());
  for (std::size_t e = first_entry; e < local_.size(); ++e) {
    const std::uint32_t senone = (*senones_)[local_[e]];
    double op = 0.0;
    for (std::uint32_t kk = 0; kk < topn_; ++kk) {
      const double den = pending_value_[(e - first_entry) * topn_ + kk];
      value_.push_back(den);
      op += model.MixtureWeight(senone, index_[e * topn_ + kk]) * den;
    }
    op_.push_back(op);
  }
  pending_log_.clear();
  begin_.push_back(local_.size());
  return dscale;
}

void FrameDensities::SetFrame(std::uint32_t t) {
  for (std::size_t e = begin_[t]; e < begin_[t + 1]; ++e) local_entry_[local_[e]] = static_cast<std::int32_t>(e);
}

void FrameDensities::ClearFrame(std::uint32_t t) {
  for (std::size_t e = begin_[t]; e < begin_[t + 1]; ++e) local_entry_[local_[e]] = -1;
}

}  // namespace pstrain
