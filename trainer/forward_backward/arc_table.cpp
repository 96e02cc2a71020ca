// ArcTable: flattening a sentence HMM's arcs.
#include "forward_backward/arc_table.h"

namespace pstrain {

void ArcTable::Build(const SentenceHmm& hmm, const std::vector<std::uint32_t>& local_of_senone, std::uint32_t n_emit) {
  next_begin_.clear();
  next_exit_.clear();
  prev_begin_.clear();
  next_.clear();
  prev_.clear();
  next_begin_.reserve(hmm.states.size() + 1);
  next_exit_.reserve(hmm.states.size());
  prev_begin_.reserve(hmm.states.size() + 1);
  const std::size_t n_to = std::size_t(n_emit) + 1;
  for (const HmmState& state : hmm.states) {
    next_begin_.push_back(static_cast<std::uint32_t>(next_.size()));
    for (const HmmArc& arc : state.next) {
      const HmmState& target = hmm.states[arc.state];
      if (target.emitting()) next_.push_back(Arc{arc.state, arc.prob, static_cast<std::int32_t>(local_of_senone[target.senone])});
    }
    next_exit_.push_back(static_cast<std::uint32_t>(next_.size()));
    for (const HmmArc& arc : state.next) {
      if (!hmm.states[arc.state].emitting()) next_.push_back(Arc{arc.state, arc.prob, -1});
    }
    prev_begin_.push_back(static_cast<std::uint32_t>(prev_.size()));
    for (const HmmArc& arc : state.prev) {
      const HmmState& from = hmm.states[arc.state];
      const bool counted = from.tmat == state.tmat && from.model_state <= state.model_state &&
                           from.phone_instance == state.phone_instance;
      const std::size_t transition =
          counted ? (std::size_t(from.tmat) * n_emit + from.model_state) * n_to + state.model_state : kNoTransition;
      prev_.push_back(PrevArc{arc.state, arc.prob, from.emitting(), transition});
    }
  }
  next_begin_.push_back(static_cast<std::uint32_t>(next_.size()));
  prev_begin_.push_back(static_cast<std::uint32_t>(prev_.size()));
}

}  // namespace pstrain
