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
  // Not zeroed here: at a density's first frame AddFrames has the kernel write its mean and variance
  // sums fresh (dnom 0 until then, and > 0 after: every frame adds a posterior > 0), and only
  // densities with dnom != 0 are read. Zeroing all of them cost a pass of the whole array per
  // utterance (about 1.5 MB for an utterance of a tied CD model).
  mean_.resize(n_dens * veclen_);
  var_.resize(n_dens * veclen_);
  tmat_.assign(std::size_t(n_tmat) * n_emit_ * (n_emit_ + 1), 0.0);
}

// Only what the utterance touched is visited: a density with no occupancy (dnom 0) had no frame
// added (AddFrames always adds a posterior > 0 to dnom), so its mean and variance sums are zero (and
// not even zeroed: they are not read). A senone's densities are adjacent both here and in the
// global accumulators, so its mixture-weight and occupancy counts go as one run each (Reset zeroes
// them, and a count can be nonzero below the occupancy floor), and each stretch of adjacent
// occupied densities as one run of mean and one of variance sums. Each element still gets exactly
// one addition per utterance, and both sinks skip zero values, so the runs change no sum: they only
// make fewer, longer calls (a tied CD utterance has about 70 senones of 8 densities).
template <typename AddFn>
void UtteranceStats::ForEachTouched(AddFn&& add) const {
  using Block = ExactAccumulators::Block;
  for (std::size_t local = 0; local < senones_.size(); ++local) {
    const std::size_t first_dens = local * n_density_;
    const std::size_t global_first_dens = std::size_t(senones_[local]) * n_density_;
    add(Block::kMixw, global_first_dens, &mixw_[first_dens], n_density_);
    add(Block::kDnom, global_first_dens, &dnom_[first_dens], n_density_);
    for (std::uint32_t k = 0; k < n_density_;) {
      if (dnom_[first_dens + k] == 0.0) {
        ++k;
        continue;
      }
      std::uint32_t end = k + 1;
      while (end < n_density_ && dnom_[first_dens + end] != 0.0) ++end;
      const std::size_t n = std::size_t(end - k) * veclen_;
      add(Block::kMean, (global_first_dens + k) * veclen_, mean_.data() + (first_dens + k) * veclen_, n);
      add(Block::kVar, (global_first_dens + k) * veclen_, var_.data() + (first_dens + k) * veclen_, n);
      k = end;
    }
  }
  add(Block::kTmat, 0, tmat_.data(), tmat_.size());
}

// The exact form: integer sums, so the order does not matter; AddValues skips zeros.
void UtteranceStats::AddTo(ExactAccumulators& global) const {
  ForEachTouched([&](ExactAccumulators::Block block, std::size_t first, const double* values, std::size_t n) {
    global.AddValues(block, first, values, n);
  });
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
