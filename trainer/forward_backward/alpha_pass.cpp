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

  // Each state is a candidate at most once per frame: the candidate arrays are sized for all of
  // them once, and the frame loop works through plain pointers (a push_back's capacity check, and
  // the reloads of every vector's data pointer after each store to a member, were a good part of
  // this loop). The additions into each candidate happen in the same order as always.
  cand_state_.resize(n_states);
  cand_alpha_.resize(n_states);
  cand_local_.resize(n_states);
  // The alphas kept so far: alpha_state_ and alpha_value_ are only grown in the frame loop (never
  // shrunk back to what a frame kept, which made every frame's growth a library call), and cut to
  // this size at the end.
  std::size_t n_alpha = alpha_state_.size();
  std::int32_t* const slot_of = state_slot_.data();
  std::uint32_t* const cand_state = cand_state_.data();
  double* const cand_alpha = cand_alpha_.data();
  std::uint32_t* const cand_local = cand_local_.data();  // an emitting candidate's local senone
  for (std::uint32_t t = 1; t < n_frames; ++t) {
    const std::size_t prev_begin = alpha_begin_[t - 1], prev_end = alpha_begin_[t];
    const std::uint32_t* const prev_state = alpha_state_.data();
    const double* const prev_alpha = alpha_value_.data();
    std::uint32_t n_cand = 0;
    const float* x_t = features.frame(t);
    for (std::size_t s = prev_begin; s < prev_end; ++s) {
      for (const ArcTable::Arc& arc : arcs_.NextEmitting(prev_state[s])) {
        if (slot_of[arc.state] >= 0) continue;
        slot_of[arc.state] = static_cast<std::int32_t>(n_cand);
        cand_state[n_cand] = arc.state;
        cand_local[n_cand] = static_cast<std::uint32_t>(arc.local);
        cand_alpha[n_cand] = 0.0;
        ++n_cand;
      }
    }
    densities_.RequestMany(cand_local, n_cand, x_t);
    dscale_[t] = densities_.FinishFrame(kernel_, model);
    for (std::size_t s = prev_begin; s < prev_end; ++s) {
      const double prior_alpha = prev_alpha[s];
      for (const ArcTable::Arc& arc : arcs_.NextEmitting(prev_state[s])) {
        const double x = prior_alpha * arc.prob;
        cand_alpha[slot_of[arc.state]] += x * densities_.Op(static_cast<std::uint32_t>(arc.local));
      }
    }
    // Emitting states feed their non-emitting successors (exit states) in the same frame; an exit
    // state added here is visited too (n_cand grows).
    for (std::uint32_t s = 0; s < n_cand; ++s) {
      for (const ArcTable::Arc& arc : arcs_.NextExits(cand_state[s])) {
        const double x = cand_alpha[s] * arc.prob;
        if (slot_of[arc.state] < 0) {
          slot_of[arc.state] = static_cast<std::int32_t>(n_cand);
          cand_state[n_cand] = arc.state;
          cand_alpha[n_cand] = 0.0;
          ++n_cand;
        }
        cand_alpha[slot_of[arc.state]] += x;
      }
    }
    double best = 0.0;
    for (std::uint32_t s = 0; s < n_cand; ++s) best = std::max(best, cand_alpha[s]);
    for (std::uint32_t s = 0; s < n_cand; ++s) slot_of[cand_state[s]] = -1;
    if (n_cand == 0) {
      return AlignmentFailure{"no-active-states", "no active states at frame " + std::to_string(t), true};
    }
    if (best == 0.0) {
      return AlignmentFailure{"zero-alpha", "all " + std::to_string(n_cand) + " active states have zero alpha at frame " + std::to_string(t), true};
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
    // The candidates above the threshold, in order, kept without a branch on each (which one is
    // kept is not predictable): every candidate is written at the next free place, which only a
    // kept one takes.
    if (alpha_state_.size() < n_alpha + n_cand) {
      const std::size_t size = std::max(2 * alpha_state_.size(), n_alpha + n_cand);
      alpha_state_.resize(size);
      alpha_value_.resize(size);
    }
    std::uint32_t* const kept_state = alpha_state_.data() + n_alpha;
    double* const kept_alpha = alpha_value_.data() + n_alpha;
    const double frame_scale = scale_[t];
    std::size_t n_kept = 0;
    for (std::uint32_t s = 0; s < n_cand; ++s) {
      kept_state[n_kept] = cand_state[s];
      kept_alpha[n_kept] = cand_alpha[s] * frame_scale;
      n_kept += cand_alpha[s] > pthresh ? 1 : 0;
    }
    n_alpha += n_kept;
    alpha_begin_.push_back(n_alpha);
    n_alpha_total += alpha_begin_[t + 1] - alpha_begin_[t];
  }
  alpha_state_.resize(n_alpha);
  alpha_value_.resize(n_alpha);
  stats.avg_alpha_states = double(n_alpha_total) / n_frames;
  return std::nullopt;
}

}  // namespace pstrain
