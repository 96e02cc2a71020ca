// ArcTable: flattening a sentence HMM's outgoing arcs.
#include "forward_backward/arc_table.h"

namespace pstrain {

void ArcTable::Build(const SentenceHmm& hmm, const std::vector<std::uint32_t>& local_of_senone) {
  begin_.clear();
  arcs_.clear();
  begin_.reserve(hmm.states.size() + 1);
  for (const HmmState& state : hmm.states) {
    begin_.push_back(static_cast<std::uint32_t>(arcs_.size()));
    for (const HmmArc& arc : state.next) {
      const HmmState& target = hmm.states[arc.state];
      const std::int32_t local = target.emitting() ? static_cast<std::int32_t>(local_of_senone[target.senone]) : -1;
      arcs_.push_back(Arc{arc.state, arc.prob, local});
    }
  }
  begin_.push_back(static_cast<std::uint32_t>(arcs_.size()));
}

}  // namespace pstrain
