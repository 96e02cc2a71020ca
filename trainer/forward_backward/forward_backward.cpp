// ForwardBackward::Run: the utterance checks, the alpha pass, the likelihood, the beta pass.
#include "forward_backward/forward_backward.h"

#include "numerics/elementary.h"

namespace pstrain {

namespace {
constexpr std::uint32_t kMinFrames = 9;
}  // namespace

ForwardBackward::ForwardBackward() : ForwardBackward(numerics::ActiveKernels()) {}

ForwardBackward::ForwardBackward(const numerics::VectorKernels& kernels) : kernel_(kernels) {}

std::optional<AlignmentFailure> ForwardBackward::Run(const AcousticModel& model, const SentenceHmm& hmm,
                                                      const Features& features, const ForwardBackwardOptions& options,
                                                      UtteranceStats& acc, ForwardBackwardStats& stats,
                                                      const std::function<void()>& before_statistics) {
  const std::uint32_t n_frames = features.n_frames;
  const std::uint32_t n_states = static_cast<std::uint32_t>(hmm.states.size());
  stats = ForwardBackwardStats{};
  stats.n_frames = n_frames;

  if (features.dim != model.veclen()) {
    return AlignmentFailure{"feature-dimension", "features have " + std::to_string(features.dim) +
                                                     " dimensions but the model expects " + std::to_string(model.veclen()), false};
  }
  if (n_frames < kMinFrames) {
    return AlignmentFailure{"too-short", "utterance has " + std::to_string(n_frames) + " frames (at least " +
                                             std::to_string(kMinFrames) + " needed)", false};
  }

  local_of_senone_.resize(model.n_senones());
  for (std::uint32_t local = 0; local < hmm.senones.size(); ++local) local_of_senone_[hmm.senones[local]] = local;
  state_slot_.assign(n_states, -1);
  arcs_.Build(hmm, local_of_senone_, model.n_emit_state());
  kernel_.Prepare(model);
  densities_.Reset(hmm.senones, model);

  const Pass pass{model, hmm, features, options};
  if (auto failure = AlphaPass(pass, stats)) return failure;

  // The final (exit) state must be active at the last frame.
  const std::uint32_t last = n_frames - 1;
  const std::uint32_t final_state = n_states - 1;
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
  log_scale_.resize(n_frames);
  kernel_.LogArray(scale_.data(), log_scale_.data(), n_frames);
  for (std::uint32_t t = 0; t < n_frames; ++t) {
    log_scale_sum += log_scale_[t];
    dscale_sum += dscale_[t];
  }
  stats.log_likelihood = numerics::Log(final_alpha) - log_scale_sum + dscale_sum;

  if (before_statistics) before_statistics();
  return BetaPass(pass, final_alpha, acc, stats);
}

}  // namespace pstrain
