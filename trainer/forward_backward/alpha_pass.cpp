// ForwardBackward::AlphaPass: scaled alphas with bw's relative beam, frame by frame.
#include <algorithm>

#include "forward_backward/forward_backward.h"

namespace pstrain {

namespace {
constexpr double kMinNormPosFloat32 = 1.17549435e-38;  // FLT_MIN: smallest usable output probability
constexpr double kAlphaFloor = 1e-300;                 // bw's alpha underflow limit and beam floor
}  // namespace

std::optional<AlignmentFailure> ForwardBackward::AlphaPass(const Pass& pass, ForwardBackwardStats& stats) {
  const AcousticModel& model = pass.model;
  const SentenceHmm& hmm = pass.hmm;
  const Features& features = pass.features;
  const std::uint32_t n_frames = features.n_frames;
  const std::uint32_t n_states = static_cast<std::uint32_t>(hmm.states.size());

  alpha_begin_.assign(1, 0);
  alpha_state_.clear();
  alpha_value_.clear();
  scale_.assign(n_frames, 0.0);
  dscale_.assign(n_frames, 0.0);

  std::size_t n_alpha_total = 0;
  if (hmm.initial.empty()) {
    // The linear path: state 0 is the one initial state.
    densities_.Request(LocalOf(hmm, 0), features.frame(0));
    dscale_[0] = densities_.FinishFrame(kernel_, model);
    const double op0 = densities_.FirstOp();
    densities_.ClearFrame(0);
    if (op0 <= kMinNormPosFloat32) {
      return AlignmentFailure{"small-output-prob", "output probability " + std::to_string(op0) + " at frame 0 state 0", false};
    }
    scale_[0] = 1.0 / op0;
    alpha_state_.push_back(0);
    alpha_value_.push_back(1.0);
    alpha_begin_.push_back(1);
    n_alpha_total = 1;
  } else {
    // A pronunciation graph: every initial state starts with its prior times its output probability.
    for (const HmmArc& start : hmm.initial) densities_.Request(LocalOf(hmm, start.state), features.frame(0));
    dscale_[0] = densities_.FinishFrame(kernel_, model);
    double best = 0.0;
    std::vector<double> start_alpha;
    for (const HmmArc& start : hmm.initial) {
      start_alpha.push_back(double(start.prob) * densities_.Op(LocalOf(hmm, start.state)));
      best = std::max(best, start_alpha.back());
    }
    densities_.ClearFrame(0);
    if (best <= kMinNormPosFloat32) {
      return AlignmentFailure{"small-output-prob", "best initial output probability " + std::to_string(best) + " at frame 0", false};
    }
    scale_[0] = 1.0 / best;
    for (std::size_t i = 0; i < hmm.initial.size(); ++i) {
      if (start_alpha[i] > 0.0) {
        alpha_state_.push_back(hmm.initial[i].state);
        alpha_value_.push_back(start_alpha[i] * scale_[0]);
      }
    }
    alpha_begin_.push_back(alpha_state_.size());
    n_alpha_total = alpha_state_.size();
  }

  cand_state_.reserve(n_states);
  cand_alpha_.reserve(n_states);
  for (std::uint32_t t = 1; t < n_frames; ++t) {
    const std::size_t prev_begin = alpha_begin_[t - 1], prev_end = alpha_begin_[t];
    cand_state_.clear();
    cand_alpha_.clear();
    const float* x_t = features.frame(t);
    for (std::size_t s = prev_begin; s < prev_end; ++s) {
      for (const ArcTable::Arc& arc : arcs_.NextEmitting(alpha_state_[s])) {
        if (state_slot_[arc.state] >= 0) continue;
        state_slot_[arc.state] = static_cast<std::int32_t>(cand_state_.size());
        cand_state_.push_back(arc.state);
        cand_alpha_.push_back(0.0);
        densities_.Request(static_cast<std::uint32_t>(arc.local), x_t);
      }
    }
    dscale_[t] = densities_.FinishFrame(kernel_, model);
    for (std::size_t s = prev_begin; s < prev_end; ++s) {
      const double prior_alpha = alpha_value_[s];
      for (const ArcTable::Arc& arc : arcs_.NextEmitting(alpha_state_[s])) {
        const double x = prior_alpha * arc.prob;
        cand_alpha_[state_slot_[arc.state]] += x * densities_.Op(static_cast<std::uint32_t>(arc.local));
      }
    }
    // Emitting states feed their non-emitting successors (exit states) in the same frame.
    for (std::size_t s = 0; s < cand_state_.size(); ++s) {
      for (const ArcTable::Arc& arc : arcs_.NextExits(cand_state_[s])) {
        const double x = cand_alpha_[s] * arc.prob;
        if (state_slot_[arc.state] < 0) {
          state_slot_[arc.state] = static_cast<std::int32_t>(cand_state_.size());
          cand_state_.push_back(arc.state);
          cand_alpha_.push_back(0.0);
        }
        cand_alpha_[state_slot_[arc.state]] += x;
      }
    }
    densities_.ClearFrame(t);
    double best = 0.0;
    for (const double a : cand_alpha_) best = std::max(best, a);
    for (const std::uint32_t state : cand_state_) state_slot_[state] = -1;
    if (cand_state_.empty()) {
      return AlignmentFailure{"no-active-states", "no active states at frame " + std::to_string(t), true};
    }
    if (best == 0.0) {
      return AlignmentFailure{"zero-alpha", "all " + std::to_string(cand_state_.size()) + " active states have zero alpha at frame " + std::to_string(t), true};
    }
    if (best < kAlphaFloor) {
      return AlignmentFailure{"alpha-underflow", "best alpha < 1e-300 at frame " + std::to_string(t), true};
    }
    scale_[t] = 1.0 / best;
    // bw's threshold is best * abeam unless log10(best) + log10(abeam) <= -300, then 1e-300. The
    // product itself is compared here (no logarithm: log10 is a libm function whose last bit depends
    // on the CPU); the two differ only when best * abeam is within a rounding of 1e-300.
    const double beam_product = best * pass.options.beams.abeam;
    const double pthresh = beam_product > kAlphaFloor ? beam_product : kAlphaFloor;
    for (std::size_t s = 0; s < cand_state_.size(); ++s) {
      if (cand_alpha_[s] > pthresh) {
        alpha_state_.push_back(cand_state_[s]);
        alpha_value_.push_back(cand_alpha_[s] * scale_[t]);
      }
    }
    alpha_begin_.push_back(alpha_state_.size());
    n_alpha_total += alpha_begin_[t + 1] - alpha_begin_[t];
  }
  stats.avg_alpha_states = double(n_alpha_total) / n_frames;
  return std::nullopt;
}

}  // namespace pstrain
