#include "forward_backward/forward_backward.h"

#include "forward_backward/gaussian_eval.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pstrain {

namespace {

constexpr double kMaxLogDensity = 10.0;            // densities are scaled so the best is exp(10)
constexpr double kMinNormPosFloat32 = 1.17549435e-38;  // FLT_MIN: smallest usable output probability
constexpr double kMinCountPosterior = 1.2e-38;         // SphinxTrain's MIN_POS_FLOAT32 count threshold
constexpr double kAlphaBetaEpsilon = 0.01;         // allowed relative alpha/beta disagreement
constexpr double kMaxPosterior = 1.0 + 1e-2;
constexpr double kMinusLogInfinity = -708.407751281802;  // log of the smallest normal double
constexpr std::uint32_t kMinFrames = 9;

}  // namespace

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

void UtteranceStats::AddTo(ExactAccumulators& global) const {
  ForEachValue([&](ExactAccumulators::Block block, std::size_t index, double value) {
    if (value != 0.0) global.AddValue(block, index, value);
  });
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

void ForwardBackward::EvaluateLogDensities(const AcousticModel& model, std::uint32_t senone, const float* x) {
  const std::uint32_t n_density = model.n_density();
  log_dens_.resize(n_density);
  EvaluateSenoneLogDensities(model, senone, x, log_dens_.data());
  order_.resize(n_density);
  for (std::uint32_t k = 0; k < n_density; ++k) order_[k] = k;
  const std::uint32_t topn = model.topn();
  if (topn < n_density) {
    // Best `topn` by log density; ties keep the lower index (stable).
    std::stable_sort(order_.begin(), order_.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return log_dens_[a] > log_dens_[b]; });
  }
}

std::optional<AlignmentFailure> ForwardBackward::Run(const AcousticModel& model, const SentenceHmm& hmm,
                                                      const Features& features, const ForwardBackwardOptions& options,
                                                      UtteranceStats& acc, ForwardBackwardStats& stats) {
  const std::uint32_t n_frames = features.n_frames;
  const std::uint32_t n_states = static_cast<std::uint32_t>(hmm.states.size());
  const std::uint32_t topn = model.topn();
  const std::uint32_t n_density = model.n_density();
  const std::uint32_t veclen = model.veclen();
  const std::uint32_t n_local = static_cast<std::uint32_t>(hmm.senones.size());
  const std::uint32_t final_state = n_states - 1;
  stats = ForwardBackwardStats{};
  stats.n_frames = n_frames;

  if (features.dim != veclen) {
    return AlignmentFailure{"feature-dimension", "features have " + std::to_string(features.dim) +
                                                     " dimensions but the model expects " + std::to_string(veclen), false};
  }
  if (n_frames < kMinFrames) {
    return AlignmentFailure{"too-short", "utterance has " + std::to_string(n_frames) + " frames (at least " +
                                             std::to_string(kMinFrames) + " needed)", false};
  }

  local_of_senone_.resize(model.n_senones());
  for (std::uint32_t local = 0; local < n_local; ++local) local_of_senone_[hmm.senones[local]] = local;
  state_slot_.assign(n_states, -1);
  local_entry_.assign(n_local, -1);

  alpha_begin_.assign(1, 0);
  alpha_state_.clear();
  alpha_value_.clear();
  scale_.assign(n_frames, 0.0);
  dscale_.assign(n_frames, 0.0);
  dens_begin_.assign(1, 0);
  dens_local_.clear();
  dens_op_.clear();
  dens_value_.clear();
  dens_index_.clear();

  // Log densities of `senone` at x into log_dens_, and the top-n order into order_: either
  // EvaluateLogDensities, or (all densities evaluated, >= 4 per senone) the same values from the
  // grouped layout, with order_ the identity (what EvaluateLogDensities leaves when topn = all).
  // The layout is rebuilt for every utterance; thread_local keeps its memory between calls.
  thread_local GroupedDensities grouped_densities;
  const bool grouped = GroupedDensities::Applies(model);
  if (grouped) {
    grouped_densities.Build(model, hmm.senones);
    log_dens_.resize(n_density);
    order_.resize(n_density);
    for (std::uint32_t k = 0; k < n_density; ++k) order_[k] = k;
  }
  auto evaluate_senone = [&](std::uint32_t senone, const float* x) {
    if (grouped) {
      grouped_densities.Evaluate(model, local_of_senone_[senone], senone, x, log_dens_.data());
    } else {
      EvaluateLogDensities(model, senone, x);
    }
  };

  // Evaluates (if not yet done this frame) the densities of local senone `local` at frame t; the
  // log values wait in dens_log_ until the frame's scale is known.
  auto request_senone = [&](std::uint32_t local, std::uint32_t t) {
    if (local_entry_[local] >= 0) return;
    const std::uint32_t senone = hmm.senones[local];
    evaluate_senone(senone, features.frame(t));
    local_entry_[local] = static_cast<std::int32_t>(dens_local_.size());
    dens_local_.push_back(local);
    for (std::uint32_t kk = 0; kk < topn; ++kk) {
      dens_index_.push_back(order_[kk]);
      dens_log_.push_back(log_dens_[order_[kk]]);
    }
  };
  // Scales the densities requested this frame by (max log density - 10) and computes each output
  // probability. Returns the frame's dscale.
  auto finish_frame_densities = [&](std::size_t first_entry) {
    double max_log = -std::numeric_limits<double>::max();
    for (double v : dens_log_) max_log = std::max(max_log, v);
    double dscale = max_log - kMaxLogDensity;
    if (dscale <= kMinusLogInfinity) dscale = kMinusLogInfinity + kMaxLogDensity;
    for (std::size_t e = first_entry; e < dens_local_.size(); ++e) {
      const std::uint32_t senone = hmm.senones[dens_local_[e]];
      double op = 0.0;
      for (std::uint32_t kk = 0; kk < topn; ++kk) {
        const std::size_t v = e * topn + kk;
        const double den = std::exp(dens_log_[(e - first_entry) * topn + kk] - dscale);
        dens_value_.push_back(den);
        op += model.MixtureWeight(senone, dens_index_[v]) * den;
      }
      dens_op_.push_back(op);
    }
    dens_log_.clear();
    return dscale;
  };
  auto clear_local_entries = [&](std::uint32_t t) {
    for (std::size_t e = dens_begin_[t]; e < dens_begin_[t + 1]; ++e) local_entry_[dens_local_[e]] = -1;
  };
  auto set_local_entries = [&](std::uint32_t t) {
    for (std::size_t e = dens_begin_[t]; e < dens_begin_[t + 1]; ++e) local_entry_[dens_local_[e]] = static_cast<std::int32_t>(e);
  };
  auto op_of_state = [&](std::uint32_t state) { return dens_op_[local_entry_[local_of_senone_[hmm.states[state].senone]]]; };

  // ---- Forward pass ----
  dens_log_.clear();
  std::size_t n_alpha_total = 0;
  if (hmm.initial.empty()) {
    // The linear path: state 0 is the one initial state.
    request_senone(local_of_senone_[hmm.states[0].senone], 0);
    dscale_[0] = finish_frame_densities(0);
    dens_begin_.push_back(dens_local_.size());
    const double op0 = dens_op_[0];
    clear_local_entries(0);
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
    for (const HmmArc& start : hmm.initial) request_senone(local_of_senone_[hmm.states[start.state].senone], 0);
    dscale_[0] = finish_frame_densities(0);
    dens_begin_.push_back(dens_local_.size());
    double best = 0.0;
    std::vector<double> start_alpha;
    for (const HmmArc& start : hmm.initial) {
      start_alpha.push_back(double(start.prob) * op_of_state(start.state));
      best = std::max(best, start_alpha.back());
    }
    clear_local_entries(0);
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

  std::vector<std::uint32_t> cand_state;
  std::vector<double> cand_alpha;
  cand_state.reserve(n_states);
  cand_alpha.reserve(n_states);
  for (std::uint32_t t = 1; t < n_frames; ++t) {
    const std::size_t prev_begin = alpha_begin_[t - 1], prev_end = alpha_begin_[t];
    const std::size_t first_entry = dens_local_.size();
    cand_state.clear();
    cand_alpha.clear();
    for (std::size_t s = prev_begin; s < prev_end; ++s) {
      for (const HmmArc& arc : hmm.states[alpha_state_[s]].next) {
        const HmmState& next = hmm.states[arc.state];
        if (!next.emitting() || state_slot_[arc.state] >= 0) continue;
        state_slot_[arc.state] = static_cast<std::int32_t>(cand_state.size());
        cand_state.push_back(arc.state);
        cand_alpha.push_back(0.0);
        request_senone(local_of_senone_[next.senone], t);
      }
    }
    dscale_[t] = finish_frame_densities(first_entry);
    dens_begin_.push_back(dens_local_.size());
    for (std::size_t s = prev_begin; s < prev_end; ++s) {
      const double prior_alpha = alpha_value_[s];
      for (const HmmArc& arc : hmm.states[alpha_state_[s]].next) {
        if (!hmm.states[arc.state].emitting()) continue;
        const double x = prior_alpha * arc.prob;
        cand_alpha[state_slot_[arc.state]] += x * op_of_state(arc.state);
      }
    }
    // Emitting states feed their non-emitting successors (exit states) in the same frame.
    for (std::size_t s = 0; s < cand_state.size(); ++s) {
      for (const HmmArc& arc : hmm.states[cand_state[s]].next) {
        if (hmm.states[arc.state].emitting()) continue;
        const double x = cand_alpha[s] * arc.prob;
        if (state_slot_[arc.state] < 0) {
          state_slot_[arc.state] = static_cast<std::int32_t>(cand_state.size());
          cand_state.push_back(arc.state);
          cand_alpha.push_back(0.0);
        }
        cand_alpha[state_slot_[arc.state]] += x;
      }
    }
    clear_local_entries(t);
    double best = 0.0;
    for (double a : cand_alpha) best = std::max(best, a);
    for (std::uint32_t state : cand_state) state_slot_[state] = -1;
    if (cand_state.empty()) {
      return AlignmentFailure{"no-active-states", "no active states at frame " + std::to_string(t), true};
    }
    if (best == 0.0) {
      return AlignmentFailure{"zero-alpha", "all " + std::to_string(cand_state.size()) + " active states have zero alpha at frame " + std::to_string(t), true};
    }
    if (best < 1e-300) {
      return AlignmentFailure{"alpha-underflow", "best alpha < 1e-300 at frame " + std::to_string(t), true};
    }
    scale_[t] = 1.0 / best;
    const double pthresh = (std::log10(best) + std::log10(options.beams.abeam) > -300) ? best * options.beams.abeam : 1e-300;
    for (std::size_t s = 0; s < cand_state.size(); ++s) {
      if (cand_alpha[s] > pthresh) {
        alpha_state_.push_back(cand_state[s]);
        alpha_value_.push_back(cand_alpha[s] * scale_[t]);
      }
    }
    alpha_begin_.push_back(alpha_state_.size());
    n_alpha_total += alpha_begin_[t + 1] - alpha_begin_[t];
  }
  stats.avg_alpha_states = double(n_alpha_total) / n_frames;

  // The final (exit) state must be active at the last frame.
  const std::uint32_t last = n_frames - 1;
  double final_alpha = 0.0;
  bool final_reached = false;
  for (std::size_t e = alpha_begin_[last]; e < alpha_begin_[last + 1]; ++e) {
    if (alpha_state_[e] == final_state) {
      final_alpha = alpha_value_[e];
      final_reached = true;
    }
  }
  if (!final_reached) {
    return AlignmentFailure{"final-state-not-reached", "final state of the sentence HMM is not active at the last frame (" +
                                                           std::to_string(n_frames) + " frames, " + std::to_string(n_states) + " states)", true};
  }
  double log_scale_sum = 0.0, dscale_sum = 0.0;
  for (std::uint32_t t = 0; t < n_frames; ++t) {
    log_scale_sum += std::log(scale_[t]);
    dscale_sum += dscale_[t];
  }
  stats.log_likelihood = std::log(final_alpha) - log_scale_sum + dscale_sum;

  // ---- Backward pass with accumulation ----
  acc.Reset(hmm, model, model.n_tmat());
  const std::uint32_t n_emit = model.n_emit_state();
  const std::uint32_t n_to = n_emit + 1;
  auto add_tmat = [&](std::uint32_t from_state, std::uint32_t to_state, double value) {
    const HmmState& from = hmm.states[from_state];
    const HmmState& to = hmm.states[to_state];
    if (from.tmat == to.tmat && from.model_state <= to.model_state && from.phone_instance == to.phone_instance) {
      acc.tmat_[(std::size_t(from.tmat) * n_emit + from.model_state) * n_to + to.model_state] += value;
    }
  };

  const double recip_final_alpha = 1.0 / final_alpha;
  const double beta_thresh = options.beams.bbeam * final_alpha;
  std::vector<double> beta(n_states, 0.0), prior_beta(n_states, 0.0);
  std::vector<char> asf(n_states, 0), asf_next(n_states, 0);
  std::vector<std::uint32_t> active, next_active, non_emit, tmp_non_emit;
  active.reserve(n_states);
  std::vector<double> frame_gamma(std::size_t(n_local) * n_density, 0.0);
  std::vector<char> local_touched(n_local, 0);
  std::vector<std::uint32_t> touched_locals;
  std::size_t n_beta_total = 0;
  double pruned_total = 0.0;

  auto set_alpha_slots = [&](std::uint32_t t) {
    for (std::size_t e = alpha_begin_[t]; e < alpha_begin_[t + 1]; ++e) state_slot_[alpha_state_[e]] = static_cast<std::int32_t>(e);
  };
  auto clear_alpha_slots = [&](std::uint32_t t) {
    for (std::size_t e = alpha_begin_[t]; e < alpha_begin_[t + 1]; ++e) state_slot_[alpha_state_[e]] = -1;
  };
  auto touch_local = [&](std::uint32_t local) {
    if (!local_touched[local]) {
      local_touched[local] = 1;
      touched_locals.push_back(local);
    }
  };
  // CI-senone densities of CD states at the frame being accumulated. Only their ratios matter
  // (w_k den_k / sum w den), so each CI senone is scaled by its own best log density: the forward
  // pass's frame scale (which bw uses here) can be hundreds of nats away from a CI senone the
  // forward pass never evaluated, and exp() would overflow to inf (NaN counts) or underflow to 0.
  std::vector<std::int32_t> ci_entry(n_local, -1);
  std::vector<std::uint32_t> ci_entry_locals;
  std::vector<double> ci_dens_value;
  std::vector<std::uint32_t> ci_dens_index;
  std::vector<double> ci_dens_op;
  auto ci_densities = [&](std::uint32_t ci_senone, std::uint32_t frame) -> std::size_t {
    const std::uint32_t local = local_of_senone_[ci_senone];
    if (ci_entry[local] >= 0) return static_cast<std::size_t>(ci_entry[local]);
    evaluate_senone(ci_senone, features.frame(frame));
    const std::size_t entry = ci_dens_op.size();
    double best_log = -std::numeric_limits<double>::max();
    for (std::uint32_t kk = 0; kk < topn; ++kk) best_log = std::max(best_log, log_dens_[order_[kk]]);
    double op = 0.0;
    for (std::uint32_t kk = 0; kk < topn; ++kk) {
      const double den = std::exp(log_dens_[order_[kk]] - best_log);
      ci_dens_index.push_back(order_[kk]);
      ci_dens_value.push_back(den);
      op += model.MixtureWeight(ci_senone, order_[kk]) * den;
    }
    ci_dens_op.push_back(op);
    ci_entry[local] = static_cast<std::int32_t>(entry);
    ci_entry_locals.push_back(local);
    return entry;
  };
  auto clear_ci_densities = [&]() {
    for (std::uint32_t local : ci_entry_locals) ci_entry[local] = -1;
    ci_entry_locals.clear();
    ci_dens_value.clear();
    ci_dens_index.clear();
    ci_dens_op.clear();
  };
  // Density posteriors of a transition into emitting state j: w_jk * den_k * p_reest. A CD state
  // also gives its CI senone w_ci_k * den_ci_k / sum_k'(w_ci_k' * den_ci_k') * ci_post.
  auto accumulate_densities = [&](std::uint32_t state, double p_reest, double ci_post, std::uint32_t frame) {
    const std::uint32_t senone = hmm.states[state].senone;
    const std::uint32_t local = local_of_senone_[senone];
    const std::size_t entry = static_cast<std::size_t>(local_entry_[local]);
    touch_local(local);
    for (std::uint32_t kk = 0; kk < topn; ++kk) {
      const std::uint32_t k = dens_index_[entry * topn + kk];
      const double d_term = model.MixtureWeight(senone, k) * dens_value_[entry * topn + kk] * p_reest;
      acc.mixw_[std::size_t(local) * n_density + k] += d_term;
      frame_gamma[std::size_t(local) * n_density + k] += d_term;
    }
    const std::uint32_t ci_senone = hmm.states[state].ci_senone;
    if (ci_senone == senone) return;
    const std::size_t ci = ci_densities(ci_senone, frame);
    if (ci_dens_op[ci] == 0.0) return;
    const std::uint32_t ci_local = local_of_senone_[ci_senone];
    touch_local(ci_local);
    const double inv_ci_op = 1.0 / ci_dens_op[ci];
    for (std::uint32_t kk = 0; kk < topn; ++kk) {
      const std::uint32_t k = ci_dens_index[ci * topn + kk];
      const double d_term = model.MixtureWeight(ci_senone, k) * ci_dens_value[ci * topn + kk] * inv_ci_op * ci_post;
      acc.mixw_[std::size_t(ci_local) * n_density + k] += d_term;
      frame_gamma[std::size_t(ci_local) * n_density + k] += d_term;
    }
  };
  // Adds the frame's density posteriors to the Gaussian statistics (x = features at `frame`).
  auto accumulate_gaussians = [&](std::uint32_t frame) {
    const float* x = features.frame(frame);
    for (std::uint32_t local : touched_locals) {
      const std::uint32_t senone = hmm.senones[local];
      for (std::uint32_t k = 0; k < n_density; ++k) {
        double& gamma = frame_gamma[std::size_t(local) * n_density + k];
        if (gamma > kMinCountPosterior) {
          const std::size_t base = (std::size_t(local) * n_density + k) * veclen;
          if (options.pass2var) {
            const float* mu = model.InputMean(senone, k);
            for (std::uint32_t l = 0; l < veclen; ++l) {
              acc.mean_[base + l] += gamma * x[l];
              const double diff = double(x[l]) - double(mu[l]);
              acc.var_[base + l] += gamma * diff * diff;
            }
          } else {
            for (std::uint32_t l = 0; l < veclen; ++l) {
              const double xl = x[l];
              acc.mean_[base + l] += gamma * xl;
              acc.var_[base + l] += gamma * xl * xl;
            }
          }
          acc.dnom_[std::size_t(local) * n_density + k] += gamma;
        }
        gamma = 0.0;
      }
      local_touched[local] = 0;
    }
    touched_locals.clear();
  };

  // Last frame: the final exit state has beta 1; propagate to its predecessors.
  set_alpha_slots(last);
  prior_beta[final_state] = 1.0;
  non_emit.push_back(final_state);
  for (std::size_t s = 0; s < non_emit.size(); ++s) {
    const std::uint32_t j = non_emit[s];
    for (const HmmArc& arc : hmm.states[j].prev) {
      const std::uint32_t i = arc.state;
      const std::int32_t slot = state_slot_[i];
      if (slot < 0) continue;
      add_tmat(i, j, alpha_value_[slot] * arc.prob * prior_beta[j] * recip_final_alpha);
      prior_beta[i] += arc.prob * prior_beta[j];
      if (!hmm.states[i].emitting()) {
        non_emit.push_back(i);
      } else if (!asf[i]) {
        asf[i] = 1;
        active.push_back(i);
      }
    }
  }
  clear_alpha_slots(last);
  for (std::uint32_t i : active) prior_beta[i] *= scale_[last];
  non_emit.clear();

  for (std::int64_t tt = static_cast<std::int64_t>(n_frames) - 2; tt >= 0; --tt) {
    const std::uint32_t t = static_cast<std::uint32_t>(tt);
    std::fill(beta.begin(), beta.end(), 0.0);
    n_beta_total += active.size();
    set_alpha_slots(t);
    set_local_entries(t + 1);
    for (std::uint32_t j : active) {
      const double op = op_of_state(j);
      asf[j] = 0;
      for (const HmmArc& arc : hmm.states[j].prev) {
        const std::uint32_t i = arc.state;
        const std::int32_t slot = state_slot_[i];
        if (slot < 0) continue;  // not active in the forward pass
        const double p_reest = alpha_value_[slot] * double(arc.prob) * prior_beta[j] * recip_final_alpha;
        const double post = p_reest * op;
        if (post < 0.0 || post > kMaxPosterior) {
          return AlignmentFailure{"posterior-out-of-range", "transition posterior " + std::to_string(post) + " into state " +
                                                                std::to_string(j) + " at frame " + std::to_string(t + 1), true};
        }
        if (post > kMinCountPosterior && post > options.spthresh) {
          add_tmat(i, j, post);
          accumulate_densities(j, p_reest, post, t + 1);
        }
        beta[i] += arc.prob * op * prior_beta[j];
        if (!asf_next[i]) {
          asf_next[i] = 1;
          if (hmm.states[i].emitting()) next_active.push_back(i);
          else non_emit.push_back(i);
        }
      }
    }
    clear_local_entries(t + 1);
    // Beta pruning and the alpha-beta consistency check.
    double sum_alpha_beta = 0.0, pruned = 0.0;
    active.clear();
    for (std::uint32_t i : next_active) {
      const std::int32_t slot = state_slot_[i];
      if (slot < 0) continue;
      const double ab = alpha_value_[slot] * beta[i];
      if (ab > beta_thresh) {
        sum_alpha_beta += ab;
        active.push_back(i);
      } else {
        asf_next[i] = 0;
        pruned += ab;
      }
    }
    tmp_non_emit.clear();
    for (std::uint32_t i : non_emit) {
      const std::int32_t slot = state_slot_[i];
      if (slot < 0) continue;
      const double ab = alpha_value_[slot] * beta[i];
      if (ab > beta_thresh) {
        sum_alpha_beta += ab;
        tmp_non_emit.push_back(i);
      } else {
        asf_next[i] = 0;
        pruned += ab;
      }
    }
    non_emit.clear();
    pruned_total += pruned * recip_final_alpha;
    if (std::fabs(sum_alpha_beta - final_alpha) > kAlphaBetaEpsilon * final_alpha) {
      clear_alpha_slots(t);
      return AlignmentFailure{"alpha-beta-mismatch", "sum of alpha*beta " + std::to_string(sum_alpha_beta) +
                                                         " differs from the final alpha " + std::to_string(final_alpha) +
                                                         " by more than 1% at frame " + std::to_string(t), true};
    }
    // Non-emitting states at t pass their beta to their predecessors in the same frame.
    for (std::size_t s = 0; s < tmp_non_emit.size(); ++s) {
      const std::uint32_t j = tmp_non_emit[s];
      asf_next[j] = 0;
      for (const HmmArc& arc : hmm.states[j].prev) {
        const std::uint32_t i = arc.state;
        const std::int32_t slot = state_slot_[i];
        if (slot < 0) continue;
        add_tmat(i, j, alpha_value_[slot] * arc.prob * beta[j] * recip_final_alpha);
        beta[i] += arc.prob * beta[j];
        if (!asf_next[i]) {
          asf_next[i] = 1;
          if (!hmm.states[i].emitting()) tmp_non_emit.push_back(i);
          else active.push_back(i);
        }
      }
    }
    next_active.clear();
    clear_alpha_slots(t);
    for (std::uint32_t i : active) beta[i] *= scale_[t];
    accumulate_gaussians(t + 1);
    clear_ci_densities();
    std::swap(beta, prior_beta);
    std::swap(asf, asf_next);
  }

  // Frame 0: the initial state(s). beta0 = sum_i alpha_0(i) beta_0(i), where prior_beta holds beta_0
  // already multiplied by scale_[0]: prior_beta[0] * op for the linear path's one state of
  // probability 1 (computed as bw does), prior * op * prior_beta for a graph's start states.
  set_local_entries(0);
  double beta0 = 0.0;
  if (hmm.initial.empty()) {
    beta0 = prior_beta[0] * op_of_state(0);
  } else {
    for (const HmmArc& start : hmm.initial) beta0 += double(start.prob) * op_of_state(start.state) * prior_beta[start.state];
  }
  if (std::fabs(beta0 - final_alpha) > kAlphaBetaEpsilon * final_alpha) {
    clear_local_entries(0);
    return AlignmentFailure{"alpha-beta-mismatch", "beta at frame 0 (" + std::to_string(beta0) + ") differs from the final alpha (" +
                                                       std::to_string(final_alpha) + ") by more than 1%", true};
  }
  if (beta0 == 0.0) {
    clear_local_entries(0);
    return AlignmentFailure{"beta-underflow", "beta underflow at frame 0", true};
  }
  if (hmm.initial.empty()) {
    // bw gives the initial state's CI senone a posterior of exactly 1 (one initial state).
    if (asf[0]) accumulate_densities(0, prior_beta[0] * recip_final_alpha, 1.0, 0);
  } else {
    // Each start state's posterior: prior * op * beta / final alpha.
    for (const HmmArc& start : hmm.initial) {
      if (!asf[start.state]) continue;
      const double p_reest = double(start.prob) * prior_beta[start.state] * recip_final_alpha;
      const double post = p_reest * op_of_state(start.state);
      if (post > kMinCountPosterior && post > options.spthresh) accumulate_densities(start.state, p_reest, post, 0);
    }
  }
  clear_local_entries(0);
  accumulate_gaussians(0);
  stats.avg_beta_states = double(n_beta_total) / n_frames;
  stats.avg_pruned_posterior = pruned_total / n_frames;
  return std::nullopt;
}

}  // namespace pstrain
