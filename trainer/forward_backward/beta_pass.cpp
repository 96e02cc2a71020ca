// ForwardBackward::BetaPass: scaled betas from the last frame back to frame 0 with bw's beta beam
// (relative to the final alpha) and alpha-beta consistency check, gathering the statistics.
#include <algorithm>
#include <cmath>

#include "forward_backward/forward_backward.h"

namespace pstrain {

namespace {
constexpr double kMinCountPosterior = 1.2e-38;  // SphinxTrain's MIN_POS_FLOAT32 count threshold
constexpr double kAlphaBetaEpsilon = 0.01;      // allowed relative alpha/beta disagreement
constexpr double kMaxPosterior = 1.0 + 1e-2;
}  // namespace

void ForwardBackward::PruneBeta(const std::vector<std::uint32_t>& candidates, double threshold,
                                std::vector<std::uint32_t>& kept, double& kept_sum, double& pruned_sum) {
  for (const std::uint32_t i : candidates) {
    const std::int32_t slot = AlphaSlot(i);
    if (slot < 0) continue;
    const double ab = alpha_value_[slot] * beta_[i];
    if (ab > threshold) {
      kept_sum += ab;
      kept.push_back(i);
    } else {
      asf_next_[i] = 0;
      pruned_sum += ab;
    }
  }
}

std::optional<AlignmentFailure> ForwardBackward::BetaPass(const Pass& pass, double final_alpha, UtteranceStats& acc,
                                                          ForwardBackwardStats& stats) {
  const AcousticModel& model = pass.model;
  const SentenceHmm& hmm = pass.hmm;
  const ForwardBackwardOptions& options = pass.options;
  const std::uint32_t n_frames = pass.features.n_frames;
  const std::uint32_t n_states = static_cast<std::uint32_t>(hmm.states.size());
  const std::uint32_t final_state = n_states - 1;
  const std::uint32_t last = n_frames - 1;

  acc.Reset(hmm, model, model.n_tmat());
  gatherer_.Reset(model, hmm, pass.features, local_of_senone_, options.pass2var, kernel_.kernels(), acc);
  // A transition count, for the arcs inside one phone instance and transition matrix.
  auto add_tmat = [&](const ArcTable::PrevArc& arc, double value) {
    if (arc.transition != ArcTable::kNoTransition) acc.AddTransition(arc.transition, value);
  };
  // Frame t's alpha entries by state (AlphaSlot). Nothing is cleared between frames: a state not
  // active at t still holds an entry of a later frame (or -1), which is outside t's range.
  auto set_alpha_slots = [&](std::uint32_t t) {
    for (std::size_t e = alpha_begin_[t]; e < alpha_begin_[t + 1]; ++e) state_slot_[alpha_state_[e]] = static_cast<std::int32_t>(e);
    slot_first_ = static_cast<std::int64_t>(alpha_begin_[t]);
    slot_count_ = static_cast<std::uint64_t>(alpha_begin_[t + 1] - alpha_begin_[t]);
  };
  auto op_of_state = [&](std::uint32_t state) { return densities_.Op(LocalOf(hmm, state)); };

  const double recip_final_alpha = 1.0 / final_alpha;
  const double beta_thresh = options.beams.bbeam * final_alpha;
  beta_.assign(n_states, 0.0);
  prior_beta_.assign(n_states, 0.0);
  // The states whose beta_ / prior_beta_ entry a frame wrote: the next frame that reuses the
  // array zeroes those entries only (not all n_states of them, every frame).
  beta_written_.clear();
  prior_beta_written_.clear();
  asf_.assign(n_states, 0);
  asf_next_.assign(n_states, 0);
  std::vector<std::uint32_t> active, next_active, non_emit, tmp_non_emit;
  active.reserve(n_states);
  std::size_t n_beta_total = 0;
  double pruned_total = 0.0;

  // Last frame: the final exit state has beta 1; propagate to its predecessors.
  set_alpha_slots(last);
  prior_beta_[final_state] = 1.0;
  prior_beta_written_.push_back(final_state);
  non_emit.push_back(final_state);
  for (std::size_t s = 0; s < non_emit.size(); ++s) {
    const std::uint32_t j = non_emit[s];
    for (const ArcTable::PrevArc& arc : arcs_.Prev(j)) {
      const std::uint32_t i = arc.state;
      const std::int32_t slot = AlphaSlot(i);
      if (slot < 0) continue;
      add_tmat(arc, alpha_value_[slot] * arc.prob * prior_beta_[j] * recip_final_alpha);
      prior_beta_[i] += arc.prob * prior_beta_[j];
      prior_beta_written_.push_back(i);
      if (!arc.emitting) {
        non_emit.push_back(i);
      } else if (!asf_[i]) {
        asf_[i] = 1;
        active.push_back(i);
      }
    }
  }
  for (const std::uint32_t i : active) prior_beta_[i] *= scale_[last];
  non_emit.clear();

  for (std::int64_t tt = static_cast<std::int64_t>(n_frames) - 2; tt >= 0; --tt) {
    const std::uint32_t t = static_cast<std::uint32_t>(tt);
    for (const std::uint32_t i : beta_written_) beta_[i] = 0.0;
    beta_written_.clear();
    n_beta_total += active.size();
    set_alpha_slots(t);
    densities_.SetFrame(t + 1);
    for (const std::uint32_t j : active) {
      const double op = op_of_state(j);
      asf_[j] = 0;
      for (const ArcTable::PrevArc& arc : arcs_.Prev(j)) {
        const std::uint32_t i = arc.state;
        const std::int32_t slot = AlphaSlot(i);
        if (slot < 0) continue;  // not active in the forward pass
        const double p_reest = alpha_value_[slot] * double(arc.prob) * prior_beta_[j] * recip_final_alpha;
        const double post = p_reest * op;
        if (post < 0.0 || post > kMaxPosterior) {
          return AlignmentFailure{"posterior-out-of-range", "transition posterior " + std::to_string(post) + " into state " +
                                                                std::to_string(j) + " at frame " + std::to_string(t + 1), true};
        }
        if (post > kMinCountPosterior && post > options.spthresh) {
          add_tmat(arc, post);
          gatherer_.AddTransitionInto(kernel_, densities_, j, p_reest, post, t + 1);
        }
        beta_[i] += arc.prob * op * prior_beta_[j];
        if (!asf_next_[i]) {  // (the frame's first write of beta_[i]: every state written is flagged)
          asf_next_[i] = 1;
          beta_written_.push_back(i);
          if (arc.emitting) next_active.push_back(i);
          else non_emit.push_back(i);
        }
      }
    }
    // Beta pruning (emitting, then non-emitting states) and the alpha-beta consistency check.
    double sum_alpha_beta = 0.0, pruned = 0.0;
    active.clear();
    PruneBeta(next_active, beta_thresh, active, sum_alpha_beta, pruned);
    tmp_non_emit.clear();
    PruneBeta(non_emit, beta_thresh, tmp_non_emit, sum_alpha_beta, pruned);
    non_emit.clear();
    pruned_total += pruned * recip_final_alpha;
    if (std::fabs(sum_alpha_beta - final_alpha) > kAlphaBetaEpsilon * final_alpha) {
      return AlignmentFailure{"alpha-beta-mismatch", "sum of alpha*beta " + std::to_string(sum_alpha_beta) +
                                                         " differs from the final alpha " + std::to_string(final_alpha) +
                                                         " by more than 1% at frame " + std::to_string(t), true};
    }
    // Non-emitting states at t pass their beta to their predecessors in the same frame.
    for (std::size_t s = 0; s < tmp_non_emit.size(); ++s) {
      const std::uint32_t j = tmp_non_emit[s];
      asf_next_[j] = 0;
      for (const ArcTable::PrevArc& arc : arcs_.Prev(j)) {
        const std::uint32_t i = arc.state;
        const std::int32_t slot = AlphaSlot(i);
        if (slot < 0) continue;
        add_tmat(arc, alpha_value_[slot] * arc.prob * beta_[j] * recip_final_alpha);
        beta_[i] += arc.prob * beta_[j];
        if (!asf_next_[i]) {
          asf_next_[i] = 1;
          beta_written_.push_back(i);
          if (!arc.emitting) tmp_non_emit.push_back(i);
          else active.push_back(i);
        }
      }
    }
    next_active.clear();
    for (const std::uint32_t i : active) beta_[i] *= scale_[t];
    gatherer_.FinishFrame(t + 1);
    std::swap(beta_, prior_beta_);
    std::swap(beta_written_, prior_beta_written_);
    std::swap(asf_, asf_next_);
  }

  // Frame 0: the initial state(s). beta0 = sum_i alpha_0(i) beta_0(i), where prior_beta holds beta_0
  // already multiplied by scale_[0]: prior_beta[0] * op for the linear path's one state of
  // probability 1 (computed as bw does), prior * op * prior_beta for a graph's start states.
  densities_.SetFrame(0);
  double beta0 = 0.0;
  if (hmm.initial.empty()) {
    beta0 = prior_beta_[0] * op_of_state(0);
  } else {
    for (const HmmArc& start : hmm.initial) beta0 += double(start.prob) * op_of_state(start.state) * prior_beta_[start.state];
  }
  if (std::fabs(beta0 - final_alpha) > kAlphaBetaEpsilon * final_alpha) {
    return AlignmentFailure{"alpha-beta-mismatch", "beta at frame 0 (" + std::to_string(beta0) + ") differs from the final alpha (" +
                                                       std::to_string(final_alpha) + ") by more than 1%", true};
  }
  if (beta0 == 0.0) {
    return AlignmentFailure{"beta-underflow", "beta underflow at frame 0", true};
  }
  if (hmm.initial.empty()) {
    // bw gives the initial state's CI senone a posterior of exactly 1 (one initial state).
    if (asf_[0]) gatherer_.AddTransitionInto(kernel_, densities_, 0, prior_beta_[0] * recip_final_alpha, 1.0, 0);
  } else {
    // Each start state's posterior: prior * op * beta / final alpha.
    for (const HmmArc& start : hmm.initial) {
      if (!asf_[start.state]) continue;
      const double p_reest = double(start.prob) * prior_beta_[start.state] * recip_final_alpha;
      const double post = p_reest * op_of_state(start.state);
      if (post > kMinCountPosterior && post > options.spthresh) gatherer_.AddTransitionInto(kernel_, densities_, start.state, p_reest, post, 0);
    }
  }
  gatherer_.FinishFrame(0);
  gatherer_.Finish();
  stats.avg_beta_states = double(n_beta_total) / n_frames;
  stats.avg_pruned_posterior = pruned_total / n_frames;
  return std::nullopt;
}

}  // namespace pstrain
