// ArcTable: each state's outgoing arcs into emitting states with the target's local senone, then
// those into non-emitting states, each part in HmmState::next order, and its incoming arcs in HmmState::prev order with whether the source
// emits and the transition-count slot (none between phone instances or transition matrices).
#include "forward_backward/arc_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "graph/sentence_hmm.h"

namespace pstrain {
namespace {

HmmState State(std::uint32_t senone, std::uint32_t tmat, std::uint32_t model_state, std::uint32_t phone_instance) {
  HmmState state;
  state.senone = senone;
  state.tmat = tmat;
  state.model_state = model_state;
  state.phone_instance = phone_instance;
  return state;
}

void Connect(SentenceHmm& hmm, std::uint32_t from, std::uint32_t to, float prob) {
  hmm.states[from].next.push_back(HmmArc{to, prob});
  hmm.states[to].prev.push_back(HmmArc{from, prob});
}

TEST(ArcTable, HoldsEveryStatesArcsInOrderWithWhatThePassesAskOfTheOtherEnd) {
  // Phone instance 0 (tmat 2): emitting 0, 1, 2 and exit 3. Phone instance 1 (tmat 5): emitting
  // 4..8 (model states 0..4), all entered from the exit 3 (more arcs than ArcList holds in place),
  // and state 5 also entered from 4 with a lower model state (not counted: 5 -> 4 would be).
  SentenceHmm hmm;
  hmm.states = {State(40, 2, 0, 0), State(41, 2, 1, 0), State(40, 2, 2, 0), State(kNonEmitting, 2, 3, 0)};
  for (std::uint32_t k = 0; k < 5; ++k) hmm.states.push_back(State(std::vector<std::uint32_t>{42, 41, 43, 40, 44}[k], 5, k, 1));
  Connect(hmm, 0, 0, 0.5f);
  Connect(hmm, 0, 1, 0.25f);
  Connect(hmm, 0, 2, 0.25f);
  Connect(hmm, 1, 1, 0.75f);
  Connect(hmm, 1, 3, 0.25f);
  Connect(hmm, 2, 2, 0.125f);
  Connect(hmm, 2, 3, 0.875f);
  for (std::uint32_t s = 4; s <= 8; ++s) Connect(hmm, 3, s, 0.2f);
  Connect(hmm, 5, 4, 0.5f);
  std::vector<std::uint32_t> local_of_senone(50, 999);
  const std::uint32_t locals[] = {3, 1, 0, 4, 2};  // senones 40..44
  for (std::uint32_t s = 0; s < 5; ++s) local_of_senone[40 + s] = locals[s];
  const std::uint32_t n_emit = 3, n_to = 4;

  ArcTable table;
  table.Build(hmm, local_of_senone, n_emit);
  for (std::uint32_t s = 0; s < hmm.states.size(); ++s) {
    SCOPED_TRACE(s);
    // The arcs into emitting states, then the others, each part in HmmState::next order.
    std::vector<HmmArc> want_emitting, want_exits;
    for (const HmmArc& arc : hmm.states[s].next) (hmm.states[arc.state].emitting() ? want_emitting : want_exits).push_back(arc);
    const auto emitting = table.NextEmitting(s);
    ASSERT_EQ(emitting.size(), want_emitting.size());
    for (std::size_t a = 0; a < emitting.size(); ++a) {
      EXPECT_EQ(emitting[a].state, want_emitting[a].state);
      EXPECT_EQ(emitting[a].prob, want_emitting[a].prob);
      EXPECT_EQ(emitting[a].local, std::int32_t(local_of_senone[hmm.states[want_emitting[a].state].senone]));
    }
    const auto exits = table.NextExits(s);
    ASSERT_EQ(exits.size(), want_exits.size());
    for (std::size_t a = 0; a < exits.size(); ++a) {
      EXPECT_EQ(exits[a].state, want_exits[a].state);
      EXPECT_EQ(exits[a].prob, want_exits[a].prob);
      EXPECT_EQ(exits[a].local, -1);
    }
    const auto prev = table.Prev(s);
    ASSERT_EQ(prev.size(), hmm.states[s].prev.size());
    for (std::size_t a = 0; a < prev.size(); ++a) {
      EXPECT_EQ(prev[a].state, hmm.states[s].prev[a].state);
      EXPECT_EQ(prev[a].prob, hmm.states[s].prev[a].prob);
      EXPECT_EQ(prev[a].emitting, hmm.states[prev[a].state].emitting());
    }
  }
  ASSERT_EQ(table.NextExits(1).size(), 1u);  // 1 -> the exit state 3
  EXPECT_EQ(table.NextExits(1)[0].state, 3u);
  EXPECT_EQ(table.NextEmitting(3)[4].local, 2);  // the spilled fifth arc: state 8, senone 44
  // Transition slots (tmat * n_emit + from) * n_to + to inside a phone instance.
  EXPECT_EQ(table.Prev(0)[0].transition, (2u * n_emit + 0) * n_to + 0);  // 0 -> 0
  EXPECT_EQ(table.Prev(2)[0].transition, (2u * n_emit + 0) * n_to + 2);  // 0 -> 2 (skip)
  EXPECT_EQ(table.Prev(3)[1].transition, (2u * n_emit + 2) * n_to + 3);  // 2 -> exit
  EXPECT_EQ(table.Prev(4)[0].transition, ArcTable::kNoTransition);       // exit 3 -> the next phone
  EXPECT_EQ(table.Prev(4)[1].transition, ArcTable::kNoTransition);       // 5 -> 4: backwards
  EXPECT_FALSE(table.Prev(4)[0].emitting);
  EXPECT_TRUE(table.Prev(4)[1].emitting);

  // Rebuilt for another utterance, nothing of the first remains.
  SentenceHmm small;
  small.states = {State(44, 0, 0, 0)};
  Connect(small, 0, 0, 1.0f);
  table.Build(small, local_of_senone, n_emit);
  ASSERT_EQ(table.NextEmitting(0).size(), 1u);
  EXPECT_EQ(table.NextEmitting(0)[0].local, 2);
  EXPECT_TRUE(table.NextExits(0).empty());
  ASSERT_EQ(table.Prev(0).size(), 1u);
  EXPECT_EQ(table.Prev(0)[0].transition, 0u);
}

}  // namespace
}  // namespace pstrain
