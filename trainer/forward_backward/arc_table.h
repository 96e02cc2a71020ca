// The sentence HMM's arcs laid out for the passes: every state's outgoing arcs and incoming arcs
// (in the order of HmmState::prev), each with what the pass asks of the state at its other end, so
// that a frame reads the arcs and nothing of the HmmStates. A state's outgoing arcs are split in
// two, each part in the order of HmmState::next: into emitting states (the alpha pass's first two
// loops) and into non-emitting ones (its exit-state loop).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "graph/sentence_hmm.h"

namespace pstrain {

class ArcTable {
 public:
  struct Arc {
    std::uint32_t state;  // the target
    float prob;           // HmmArc::prob
    std::int32_t local;   // the target's local senone (local_of_senone[its senone]), -1 if non-emitting
  };
  static constexpr std::size_t kNoTransition = ~std::size_t{0};
  struct PrevArc {
    std::uint32_t state;  // the source
    float prob;           // HmmArc::prob
    bool emitting;        // the source emits
    // The transition-count slot the arc adds to (UtteranceStats::AddTransition: (tmat * n_emit +
    // from's model state) * (n_emit + 1) + to's model state), or kNoTransition for an arc between
    // phone instances or transition matrices.
    std::size_t transition;
  };

  // Before each utterance: `local_of_senone` maps each senone of `hmm` to its local index; n_emit
  // is the model's emitting states per HMM.
  void Build(const SentenceHmm& hmm, const std::vector<std::uint32_t>& local_of_senone, std::uint32_t n_emit);

  // The arcs into emitting states, then those into non-emitting states.
  std::span<const Arc> NextEmitting(std::uint32_t state) const {
    return {next_.data() + next_begin_[state], next_.data() + next_exit_[state]};
  }
  std::span<const Arc> NextExits(std::uint32_t state) const {
    return {next_.data() + next_exit_[state], next_.data() + next_begin_[state + 1]};
  }
  std::span<const PrevArc> Prev(std::uint32_t state) const {
    return {prev_.data() + prev_begin_[state], prev_.data() + prev_begin_[state + 1]};
  }

 private:
  std::vector<std::uint32_t> next_begin_, prev_begin_;  // state -> its first arc (size n_states + 1)
  std::vector<std::uint32_t> next_exit_;                // state -> its first arc into a non-emitting state
  std::vector<Arc> next_;
  std::vector<PrevArc> prev_;
};

}  // namespace pstrain
