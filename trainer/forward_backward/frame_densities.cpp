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
  all_ = model.topn_is_all();
  begin_.assign(1, 0);
  n_entries_ = 0;
  op_.clear();
  value_.clear();
  index_.clear();
  pending_log_.clear();
  if (pending_senones_.size() < senones.size()) pending_senones_.resize(senones.size());
  n_pending_ = 0;
  local_entry_.assign(senones.size(), -1);
  open_first_ = 0;
}

void FrameDensities::RequestMany(const std::uint32_t* locals, std::size_t n, const float* x) {
  // Room for n more entries (each request adds at most one); local_ grows by doubling.
  if (local_.size() < n_entries_ + n) local_.resize(std::max(2 * local_.size(), n_entries_ + n));
  std::uint32_t* const entry_local = local_.data();
  std::uint32_t* const pending = pending_senones_.data();
  std::int32_t* const local_entry = local_entry_.data();
  const std::uint32_t* const senones = senones_->data();
  const std::int32_t open_first = open_first_;
  std::size_t entry = n_entries_, n_pending = n_pending_;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t local = locals[i];
    if (local_entry[local] >= open_first) continue;  // requested already in this frame
    local_entry[local] = static_cast<std::int32_t>(entry);
    entry_local[entry++] = local;
    pending[n_pending++] = senones[local];
  }
  if (n_pending != n_pending_) pending_x_ = x;
  n_entries_ = entry;
  n_pending_ = n_pending;
}

double FrameDensities::FinishFrame(DensityKernel& kernel, const AcousticModel& model) {
  const std::size_t first_entry = begin_.back();
  const std::size_t n_entries = n_entries_ - first_entry;
  kernel.EvaluateMany(pending_senones_.data(), n_pending_, pending_x_, index_, pending_log_);
  n_pending_ = 0;
  const std::size_t n_values = pending_log_.size();  // n_entries * topn
  double max_log = -std::numeric_limits<double>::max();
  for (const double v : pending_log_) max_log = std::max(max_log, v);
  double dscale = max_log - kMaxLogDensity;
  if (dscale <= kMinusLogInfinity) dscale = kMinusLogInfinity + kMaxLogDensity;
  // The scaled densities go straight into the cache; each entry's output probability is
  // sum_k w_k den_k over its top-n in order.
  value_.resize(value_.size() + n_values);
  double* values = value_.data() + value_.size() - n_values;
  kernel.ExpShifted(pending_log_.data(), dscale, values, n_values);
  op_.resize(first_entry + n_entries);
  if (topn_ == 1) {
    // One density an entry (a one-Gaussian model, or topn 1): a flat loop, without setting up an
    // inner loop that runs once (the same sum: 0 + w den).
    const std::uint32_t* const local = local_.data() + first_entry;
    double* const op = op_.data() + first_entry;
    for (std::size_t e = 0; e < n_entries; ++e) {
      op[e] = 0.0 + model.MixtureWeight((*senones_)[local[e]], Index(first_entry + e, 0)) * values[e];
    }
  } else {
    for (std::size_t e = 0; e < n_entries; ++e, values += topn_) {
      const std::uint32_t senone = (*senones_)[local_[first_entry + e]];
      double op = 0.0;
      if (all_) {
        for (std::uint32_t k = 0; k < topn_; ++k) op += model.MixtureWeight(senone, k) * values[k];
      } else {
        const std::uint32_t* index = index_.data() + (first_entry + e) * topn_;
        for (std::uint32_t kk = 0; kk < topn_; ++kk) op += model.MixtureWeight(senone, index[kk]) * values[kk];
      }
      op_[first_entry + e] = op;
    }
  }
  pending_log_.clear();
  begin_.push_back(n_entries_);
  open_first_ = static_cast<std::int32_t>(n_entries_);
  return dscale;
}

void FrameDensities::SetFrame(std::uint32_t t) {
  for (std::size_t e = begin_[t]; e < begin_[t + 1]; ++e) local_entry_[local_[e]] = static_cast<std::int32_t>(e);
}


}  // namespace pstrain
