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
  // Not zeroed here: AddFrame zeroes a density's mean and variance sums at its first frame (dnom 0
  // until then, and > 0 after: every frame adds a posterior > 0), and only densities with dnom != 0
  // are read. Zeroing all of them cost a pass of the whole array per utterance (about 1.5 MB for an
  // utterance of a tied CD model).
  mean_.resize(n_dens * veclen_);
  var_.resize(n_dens * veclen_);
  tmat_.assign(std::size_t(n_tmat) * n_emit_ * (n_emit_ + 1), 0.0);
}

// Only what the utterance touched is visited: a density with no occupancy (dnom 0) had no frame
// added (AddFrame always adds a posterior > 0 to dnom), so its mean and variance sums are zero;
// its mixture-weight count is visited on its own (a posterior can be below the occupancy floor).
// Both sinks skip zero values, so skipping them here changes no sum.
template <typename AddFn>
void UtteranceStats::ForEachTouched(AddFn&& add) const {
  using Block = ExactAccumulators::Block;
  for (std::size_t local = 0; local < senones_.size(); ++local) {
    const std::size_t senone = senones_[local];
    for (std::uint32_t k = 0; k < n_density_; ++k) {
      const std::size_t dens = local * n_density_ + k;
      const std::size_t global_dens = senone * n_density_ + k;
      if (mixw_[dens] != 0.0) add(Block::kMixw, global_dens, &mixw_[dens], 1);
      if (dnom_[dens] == 0.0) continue;
      add(Block::kDnom, global_dens, &dnom_[dens], 1);
      add(Block::kMean, global_dens * veclen_, mean_.data() + dens * veclen_, veclen_);
      add(Block::kVar, global_dens * veclen_, var_.data() + dens * veclen_, veclen_);
    }
  }
  add(Block::kTmat, 0, tmat_.data(), tmat_.size());
}

// The exact form: integer sums, so the order does not matter; AddValues skips zeros.
// The accumulators of a run are prefetched kAhead runs (about one density) before they are added
// to: with many senones (a tied CD model) they do not fit in the cache, and each density's runs
// start at an unpredictable address. The additions keep the traversal order.
void UtteranceStats::AddTo(ExactAccumulators& global) const {
  using Block = ExactAccumulators::Block;
  struct Run {
    Block block;
    std::size_t first;
    const double* values;
    std::size_t n;
  };
  constexpr std::size_t kAhead = 4;
  Run ring[kAhead];
  std::size_t queued = 0;
  ForEachTouched([&](Block block, std::size_t first, const double* values, std::size_t n) {
    global.Prefetch(block, first, n);
    Run& slot = ring[queued % kAhead];
    if (queued >= kAhead) global.AddValues(slot.block, slot.first, slot.values, slot.n);
    slot = Run{block, first, values, n};
    ++queued;
  });
  for (std::size_t i = queued > kAhead ? queued - kAhead : 0; i < queued; ++i) {
    const Run& run = ring[i % kAhead];
    global.AddValues(run.block, run.first, run.values, run.n);
  }
}

void UtteranceStats::AddTo(Accumulators& global) const {
  using Block = ExactAccumulators::Block;
  ForEachTouched([&](Block block, std::size_t first, const double* values, std::size_t n) {
    if (n == 0) return;  // e.g. no transition matrices: no element to address
    double* into = nullptr;
    switch (block) {
      case Block::kMixw: into = &global.mixw(0, 0) + first; break;
      case Block::kDnom: into = &global.dnom(0, 0) + first; break;
      case Block::kMean: into = global.mean(0, 0) + first; break;
      case Block::kVar: into = global.var(0, 0) + first; break;
      case Block::kTmat: into = &global.tmat(0, 0, 0) + first; break;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (values[i] != 0.0) into[i] += values[i];
    }
  });
}

}  // namespace pstrain
