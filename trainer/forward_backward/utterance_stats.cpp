// UtteranceStats: reset per utterance, and the fixed-order transfer into the global accumulators.
#include "forward_backward/utterance_stats.h"

namespace pstrain {

void UtteranceStats::Reset(const SentenceHmm& hmm, const AcousticModel& model, std::uint32_t n_tmat) {
  senones_ = hmm.senones;
  n_density_ = model.n_density();
  veclen_ = model.veclen();
  n_emit_ = model.n_emit_state();
  const std::size_t n_dens = senones_.size() * n_density_;
  mixw_.assign(n_dens, 0.0);
  dnom_.assign(n_dens, 0.0);
  mean_.assign(n_dens * veclen_, 0.0);
  var_.assign(n_dens * veclen_, 0.0);
  tmat_.assign(std::size_t(n_tmat) * n_emit_ * (n_emit_ + 1), 0.0);
}

// Calls add(block, global index, value) for every statistic, in a fixed order.
template <typename AddFn>
void UtteranceStats::ForEachValue(AddFn&& add) const {
  using Block = ExactAccumulators::Block;
  for (std::size_t local = 0; local < senones_.size(); ++local) {
    const std::size_t senone = senones_[local];
    for (std::uint32_t k = 0; k < n_density_; ++k) {
      const std::size_t dens = local * n_density_ + k;
      const std::size_t global_dens = senone * n_density_ + k;
      add(Block::kMixw, global_dens, mixw_[dens]);
      add(Block::kDnom, global_dens, dnom_[dens]);
      for (std::uint32_t l = 0; l < veclen_; ++l) {
        add(Block::kMean, global_dens * veclen_ + l, mean_[dens * veclen_ + l]);
        add(Block::kVar, global_dens * veclen_ + l, var_[dens * veclen_ + l]);
      }
    }
  }
  for (std::size_t idx = 0; idx < tmat_.size(); ++idx) {
    if (tmat_[idx] != 0.0) add(Block::kTmat, idx, tmat_[idx]);
  }
}

// Only what the utterance touched is converted: a density with no occupancy (dnom 0) had no frame
// added (AddFrame always adds a posterior > 0 to dnom), so its mean and variance sums are zero.
// The order of the additions does not matter (integer sums); zeros are skipped.
void UtteranceStats::AddTo(ExactAccumulators& global) const {
  using Block = ExactAccumulators::Block;
  for (std::size_t local = 0; local < senones_.size(); ++local) {
    const std::size_t senone = senones_[local];
    for (std::uint32_t k = 0; k < n_density_; ++k) {
      const std::size_t dens = local * n_density_ + k;
      const std::size_t global_dens = senone * n_density_ + k;
      if (mixw_[dens] != 0.0) global.AddValue(Block::kMixw, global_dens, mixw_[dens]);
      if (dnom_[dens] == 0.0) continue;
      global.AddValue(Block::kDnom, global_dens, dnom_[dens]);
      global.AddValues(Block::kMean, global_dens * veclen_, mean_.data() + dens * veclen_, veclen_);
      global.AddValues(Block::kVar, global_dens * veclen_, var_.data() + dens * veclen_, veclen_);
    }
  }
  global.AddValues(Block::kTmat, 0, tmat_.data(), tmat_.size());
}

void UtteranceStats::AddTo(Accumulators& global) const {
  using Block = ExactAccumulators::Block;
  const std::uint32_t n_to = n_emit_ + 1;
  ForEachValue([&](Block block, std::size_t index, double value) {
    switch (block) {
      case Block::kMixw: global.mixw(static_cast<std::uint32_t>(index / n_density_), static_cast<std::uint32_t>(index % n_density_)) += value; break;
      case Block::kDnom: global.dnom(static_cast<std::uint32_t>(index / n_density_), static_cast<std::uint32_t>(index % n_density_)) += value; break;
      case Block::kMean: global.mean(static_cast<std::uint32_t>(index / veclen_ / n_density_), static_cast<std::uint32_t>(index / veclen_ % n_density_))[index % veclen_] += value; break;
      case Block::kVar: global.var(static_cast<std::uint32_t>(index / veclen_ / n_density_), static_cast<std::uint32_t>(index / veclen_ % n_density_))[index % veclen_] += value; break;
      case Block::kTmat:
        global.tmat(static_cast<std::uint32_t>(index / (std::size_t(n_emit_) * n_to)), static_cast<std::uint32_t>(index / n_to % n_emit_),
                    static_cast<std::uint32_t>(index % n_to)) += value;
        break;
    }
  });
}

}  // namespace pstrain
