// ArcTable: each state's outgoing arcs in HmmState::next order, with the target's local senone or
// -1 for a non-emitting target.
#include "forward_backward/arc_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "graph/sentence_hmm.h"

namespace pstrain {
namespace {

HmmState State(std::uint32_t senone, const std::vector<HmmArc>& next) {
  HmmState state;
  state.senone = senone;
  for (const HmmArc& arc : next) state.next.push_back(arc);
  return state;
}

TEST(ArcTable, HoldsEveryStatesArcsInOrderWithTheTargetsLocalSenone) {
  // 0 -> {0, 1, 2}, 1 -> {1, 3}, 2 -> {2, 3}, 3 (exit, non-emitting) -> {4, 5, 6, 7, 8} (more arcs
  // than ArcList holds in place), 4..8 emitting, no arcs.
  SentenceHmm hmm;
  hmm.states.push_back(State(40, {{0, 0.5f}, {1, 0.25f}, {2, 0.25f}}));
  hmm.states.push_back(State(41, {{1, 0.75f}, {3, 0.25f}}));
  hmm.states.push_back(State(40, {{2, 0.125f}, {3, 0.875f}}));
  hmm.states.push_back(State(kNonEmitting, {{4, 0.2f}, {5, 0.2f}, {6, 0.2f}, {7, 0.2f}, {8, 0.2f}}));
  for (const std::uint32_t senone : {42u, 41u, 43u, 40u, 44u}) hmm.states.push_back(State(senone, {}));
  std::vector<std::uint32_t> local_of_senone(50, 999);
  const std::uint32_t locals[] = {3, 1, 0, 4, 2};  // senones 40..44
  for (std::uint32_t s = 0; s < 5; ++s) local_of_senone[40 + s] = locals[s];

  ArcTable table;
  table.Build(hmm, local_of_senone);
  for (std::uint32_t s = 0; s < hmm.states.size(); ++s) {
    SCOPED_TRACE(s);
    const auto arcs = table.Next(s);
    ASSERT_EQ(arcs.size(), hmm.states[s].next.size());
    for (std::size_t a = 0; a < arcs.size(); ++a) {
      const HmmArc& want = hmm.states[s].next[a];
      EXPECT_EQ(arcs[a].state, want.state);
      EXPECT_EQ(arcs[a].prob, want.prob);
      const HmmState& target = hmm.states[want.state];
      EXPECT_EQ(arcs[a].local, target.emitting() ? std::int32_t(local_of_senone[target.senone]) : -1);
    }
  }
  EXPECT_EQ(table.Next(1)[1].local, -1);  // into the exit state
  EXPECT_EQ(table.Next(3)[4].local, 2);   // the spilled fifth arc: state 8, senone 44

  // Rebuilt for another utterance, nothing of the first remains.
  SentenceHmm small;
  small.states.push_back(State(44, {{0, 1.0f}}));
  table.Build(small, local_of_senone);
  ASSERT_EQ(table.Next(0).size(), 1u);
  EXPECT_EQ(table.Next(0)[0].local, 2);
}

}  // namespace
}  // namespace pstrain
