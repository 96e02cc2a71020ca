// The sentence HMM's outgoing arcs laid out for the alpha pass: every state's arcs (in the order of
// HmmState::next) in one array, each with what the pass asks of its target (emitting or not, and
// its local senone), so that a frame reads the arcs and nothing of the HmmStates they lead to.
#pragma once

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

  // Before each utterance: `local_of_senone` maps each senone of `hmm` to its local index.
  void Build(const SentenceHmm& hmm, const std::vector<std::uint32_t>& local_of_senone);

  std::span<const Arc> Next(std::uint32_t state) const {
    return {arcs_.data() + begin_[state], arcs_.data() + begin_[state + 1]};
  }

 private:
  std::vector<std::uint32_t> begin_;  // state -> its first arc (size n_states + 1)
  std::vector<Arc> arcs_;
};

}  // namespace pstrain
