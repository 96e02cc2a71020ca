// Tests for the sentence HMM builder (trainer/graph/sentence_hmm.h): word positions, triphone
// contexts and back-off, fillers, graph errors, the state/arc layout and the utterance's senone list.
// Every mdef here is hand-made text; the model around it has one 2-dim Gaussian per senone.
#include "graph/sentence_hmm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "formats/dictionary.h"
#include "formats/mdef.h"
#include "model/acoustic_model.h"
#include "graph_test_model.h"

namespace pstrain {
namespace {

using namespace pstrain::test;  // NOLINT: the shared test model

std::string Positions(const SentenceHmm& hmm) {
  std::string out;
  for (const PhoneInstance& phone : hmm.phones) out += WordPositionLetter(phone.posn);
  return out;
}

std::optional<GraphError> BuildError(const TestGraph& graph, const std::vector<std::string>& words) {
  try {
    graph.Build(words);
  } catch (const GraphError& error) {
    return error;
  }
  return std::nullopt;
}

// Triphones for the word-position and context table: every context it uses exists in all four
// positions (so the chosen row shows the assigned position), plus decoys that only a wrong context
// (a filler's own name, a filler mapped to a triphone) would pick.
std::vector<TriRow> PositionTableTriphones() {
  std::vector<TriRow> rows;
  for (const auto& [base, left, right] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"A", "SIL", "SIL"}, {"A", "SIL", "B"}, {"B", "A", "SIL"}, {"B", "A", "C"}, {"C", "B", "SIL"},
           {"B", "A", "A"}, {"A", "B", "SIL"}, {"B", "SIL", "SIL"}}) {
    for (const TriRow& row : AllPositions(base, left, right)) rows.push_back(row);
  }
  const std::vector<TriRow> decoys = {
      {"A", "+BR+", "B", 'b'}, {"B", "A", "+BR+", 'e'},   {"+BR+", "SIL", "A", 's'}, {"+BR+", "B", "SIL", 's'},
      {"SIL", "SIL", "A", 's'}, {"SIL", "B", "SIL", 's'}, {"A", "SIL", "+BR+", 's'}, {"B", "+BR+", "SIL", 's'},
  };
  rows.insert(rows.end(), decoys.begin(), decoys.end());
  return rows;
}

TEST(SentenceHmmTest, WordPositionsAndContexts) {
  struct Case {
    std::string name;
    std::vector<std::string> words;
    std::vector<std::string> phones;
    std::string positions;
  };
  const Case cases[] = {
      {"single-phone word is s, edges are SIL", {"A1"}, {"A(SIL,SIL,s)"}, "s"},
      {"two-phone word is b e", {"AB"}, {"A(SIL,B,b)", "B(A,SIL,e)"}, "be"},
      {"inner phone is i", {"ABC"}, {"A(SIL,B,b)", "B(A,C,i)", "C(B,SIL,e)"}, "bie"},
      {"two single-phone words are s s", {"A1", "B1"}, {"A(SIL,B,s)", "B(A,SIL,s)"}, "ss"},
      {"context crosses word boundaries", {"AB", "A1"}, {"A(SIL,B,b)", "B(A,A,e)", "A(B,SIL,s)"}, "bes"},
      {"SIL filler stays CI", {"<sil>", "AB", "<sil>"}, {"SIL", "A(SIL,B,b)", "B(A,SIL,e)", "SIL"}, "sbes"},
      {"other filler stays CI and is SIL context",
       {"++BREATH++", "AB", "++BREATH++"},
       {"+BR+", "A(SIL,B,b)", "B(A,SIL,e)", "+BR+"},
       "sbes"},
      {"filler between words is SIL context", {"A1", "++BREATH++", "B1"}, {"A(SIL,SIL,s)", "+BR+", "B(SIL,SIL,s)"}, "sss"},
  };
  const TestGraph graph(MdefText(PositionTableTriphones()));
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const SentenceHmm hmm = graph.Build(c.words);
    EXPECT_EQ(graph.DescribePhones(hmm), c.phones);
    EXPECT_EQ(Positions(hmm), c.positions);
    for (const PhoneInstance& phone : hmm.phones) {
      EXPECT_EQ(graph.mdef.phones()[phone.ci_phone].base, graph.mdef.phones()[phone.phone_id].base);
      EXPECT_EQ(graph.mdef.phones()[phone.ci_phone].base, phone.ci_phone);
      EXPECT_EQ(graph.mdef.Name(graph.mdef.phones()[phone.ci_phone].left), "-");
    }
  }
}

TEST(SentenceHmmTest, WordPositionBackOff) {
  struct Case {
    std::string name;
    std::vector<std::string> words;
    std::vector<TriRow> triphones;
    std::vector<std::string> phones;
  };
  const Case cases[] = {
      // Exact position e absent (D ends the word AD; SIL follows so D is not the final phone).
      {"e absent: b first", {"AD", "<sil>"}, {{"D", "A", "SIL", 'i'}, {"D", "A", "SIL", 's'}, {"D", "A", "SIL", 'b'}},
       {"A", "D(A,SIL,b)", "SIL"}},
      {"e absent: s before i", {"AD", "<sil>"}, {{"D", "A", "SIL", 'i'}, {"D", "A", "SIL", 's'}}, {"A", "D(A,SIL,s)", "SIL"}},
      {"e absent: i last", {"AD", "<sil>"}, {{"D", "A", "SIL", 'i'}}, {"A", "D(A,SIL,i)", "SIL"}},
      // Exact position s absent (single-phone word).
      {"s absent: b first", {"A1", "<sil>"}, {{"A", "SIL", "SIL", 'i'}, {"A", "SIL", "SIL", 'e'}, {"A", "SIL", "SIL", 'b'}},
       {"A(SIL,SIL,b)", "SIL"}},
      {"s absent: e before i", {"A1", "<sil>"}, {{"A", "SIL", "SIL", 'i'}, {"A", "SIL", "SIL", 'e'}}, {"A(SIL,SIL,e)", "SIL"}},
      {"s absent: i last", {"A1", "<sil>"}, {{"A", "SIL", "SIL", 'i'}}, {"A(SIL,SIL,i)", "SIL"}},
      // Exact position i absent (inner phone).
      {"i absent: b first", {"ABC", "<sil>"}, {{"B", "A", "C", 's'}, {"B", "A", "C", 'e'}, {"B", "A", "C", 'b'}},
       {"A", "B(A,C,b)", "C", "SIL"}},
      {"i absent: e before s", {"ABC", "<sil>"}, {{"B", "A", "C", 's'}, {"B", "A", "C", 'e'}}, {"A", "B(A,C,e)", "C", "SIL"}},
      {"i absent: s", {"ABC", "<sil>"}, {{"B", "A", "C", 's'}}, {"A", "B(A,C,s)", "C", "SIL"}},
      // Exact position b absent (first phone).
      {"b absent: e first", {"AB", "<sil>"}, {{"A", "SIL", "B", 'i'}, {"A", "SIL", "B", 's'}, {"A", "SIL", "B", 'e'}},
       {"A(SIL,B,e)", "B", "SIL"}},
      // The final phone tries only its exact position.
      {"final phone: no back-off", {"AD"}, {{"D", "A", "SIL", 'b'}, {"D", "A", "SIL", 's'}, {"D", "A", "SIL", 'i'}},
       {"A", "D"}},
      {"final single phone: no back-off", {"A1"}, {{"A", "SIL", "SIL", 'b'}, {"A", "SIL", "SIL", 'e'}}, {"A"}},
      {"final phone: exact position used", {"AD"}, {{"D", "A", "SIL", 'b'}, {"D", "A", "SIL", 'e'}}, {"A", "D(A,SIL,e)"}},
      // CI fallback.
      {"no triphone for the context: CI", {"AD", "<sil>"}, {{"D", "B", "SIL", 'e'}, {"D", "A", "B", 'e'}}, {"A", "D", "SIL"}},
      {"mdef without triphones: all CI", {"ABC", "<sil>"}, {}, {"A", "B", "C", "SIL"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const TestGraph graph(MdefText(c.triphones));
    EXPECT_EQ(graph.DescribePhones(graph.Build(c.words)), c.phones);
  }
}

TEST(SentenceHmmTest, GraphErrors) {
  struct Case {
    std::string name;
    std::vector<std::string> words;
    std::string reason;
    std::string named;  // must appear in the message
  };
  const Case cases[] = {
      {"unknown word", {"A1", "NOPE", "B1"}, "unknown-word", "NOPE"},
      {"lookup is case-sensitive", {"a1"}, "unknown-word", "a1"},
      {"phone missing from the mdef", {"A1", "AXB"}, "phone-not-in-mdef", "X"},
      {"empty transcript", {}, "empty-transcript", ""},
  };
  const TestGraph graph(MdefText(PositionTableTriphones()));
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::optional<GraphError> error = BuildError(graph, c.words);
    ASSERT_TRUE(error.has_value());
    EXPECT_EQ(error->reason, c.reason);
    EXPECT_NE(error->message.find(c.named), std::string::npos) << error->message;
  }
}

struct Arc {
  std::uint32_t from, to;
  float prob;
  bool operator==(const Arc&) const = default;
  bool operator<(const Arc& other) const { return std::tie(from, to, prob) < std::tie(other.from, other.to, other.prob); }
};

TEST(SentenceHmmTest, StatesAndArcsFollowTheMdefRowsAndTmats) {
  // A's triphone uses tmat 2 (skip arcs) although CI A has tmat 1 (linear): the row's tmat counts.
  const TestGraph graph(MdefText({{"A", "SIL", "B", 'b', 2}, {"B", "A", "SIL", 'e'}}));
  const SentenceHmm hmm = graph.Build({"AB", "<sil>"});
  ASSERT_EQ(graph.DescribePhones(hmm), (std::vector<std::string>{"A(SIL,B,b)", "B(A,SIL,e)", "SIL"}));
  ASSERT_EQ(hmm.states.size(), hmm.phones.size() * (kEmit + 1));

  std::vector<Arc> expected_arcs;
  for (std::uint32_t phone_idx = 0; phone_idx < hmm.phones.size(); ++phone_idx) {
    SCOPED_TRACE("phone " + std::to_string(phone_idx));
    const PhoneInstance& phone = hmm.phones[phone_idx];
    const MdefPhone& row = graph.mdef.phones()[phone.phone_id];
    const std::uint32_t first = phone_idx * (kEmit + 1);
    for (std::uint32_t state_idx = 0; state_idx <= kEmit; ++state_idx) {
      const HmmState& state = hmm.states[first + state_idx];
      EXPECT_EQ(state.model_state, state_idx);
      EXPECT_EQ(state.phone_instance, phone_idx);
      EXPECT_EQ(state.tmat, row.tmat);
      if (state_idx < kEmit) {
        EXPECT_TRUE(state.emitting());
        EXPECT_EQ(state.senone, graph.mdef.Senones(row)[state_idx]);
        EXPECT_EQ(state.ci_senone, graph.mdef.Senones(phone.ci_phone)[state_idx]);
      } else {
        EXPECT_FALSE(state.emitting());
        EXPECT_EQ(state.senone, kNonEmitting);
      }
    }
    for (std::uint32_t from = 0; from < kEmit; ++from) {
      for (std::uint32_t to = 0; to <= kEmit; ++to) {
        const float prob = graph.model.Transition(row.tmat, from, to);
        if (prob > 0.0f) expected_arcs.push_back({first + from, first + to, prob});
      }
    }
    if (phone_idx > 0) expected_arcs.push_back({first - 1, first, 1.0f});
  }
  // Skip topology: 3 + 3 + 2 arcs, linear: 2 + 2 + 2, plus two exit -> next-first arcs.
  EXPECT_EQ(expected_arcs.size(), 8u + 8u + 6u + 2u);

  std::vector<Arc> next_arcs, prev_arcs;
  for (std::uint32_t state_idx = 0; state_idx < hmm.states.size(); ++state_idx) {
    for (const HmmArc& arc : hmm.states[state_idx].next) next_arcs.push_back({state_idx, arc.state, arc.prob});
    for (const HmmArc& arc : hmm.states[state_idx].prev) prev_arcs.push_back({arc.state, state_idx, arc.prob});
  }
  std::sort(expected_arcs.begin(), expected_arcs.end());
  std::sort(next_arcs.begin(), next_arcs.end());
  std::sort(prev_arcs.begin(), prev_arcs.end());
  EXPECT_EQ(next_arcs, expected_arcs);
  EXPECT_EQ(prev_arcs, expected_arcs);

  // Spot checks of the layout: A's skip arc 0 -> 2, A's exit feeds B's first state, the final exit
  // state is last and has no successors, and the linear SIL has no skip arc.
  EXPECT_TRUE(std::count(next_arcs.begin(), next_arcs.end(), Arc{0, 2, 0.25f}) == 1);
  EXPECT_TRUE(std::count(next_arcs.begin(), next_arcs.end(), Arc{3, 4, 1.0f}) == 1);
  EXPECT_TRUE(hmm.states.back().next.empty());
  EXPECT_FALSE(hmm.states.back().emitting());
  EXPECT_TRUE(std::none_of(next_arcs.begin(), next_arcs.end(), [](const Arc& arc) { return arc.from == 8 && arc.to == 10; }));
}

TEST(SentenceHmmTest, SenonesAreDistinctInFirstAppearanceOrder) {
  {
    SCOPED_TRACE("CI phones: SIL first, repeated words add nothing");
    const TestGraph graph(MdefText({}));
    const SentenceHmm hmm = graph.Build({"<sil>", "AB", "AB", "<sil>"});
    // SIL is CI phone 5 (senones 15-17), A is 1 (3-5), B is 2 (6-8).
    EXPECT_EQ(hmm.senones, (std::vector<std::uint32_t>{15, 16, 17, 3, 4, 5, 6, 7, 8}));
    EXPECT_EQ(hmm.states.size(), 6u * (kEmit + 1));
  }
  {
    SCOPED_TRACE("triphones sharing a senone");
    const std::string mdef_text =
        "0.3\n3 n_base\n2 n_tri\n20 n_state_map\n14 n_tied_state\n9 n_tied_ci_state\n3 n_tied_tmat\n"
        "A - - - n/a 0 0 1 2 N\n"
        "B - - - n/a 1 3 4 5 N\n"
        "SIL - - - filler 2 6 7 8 N\n"
        "A SIL B b n/a 0 12 10 11 N\n"
        "B A SIL e n/a 1 13 10 9 N\n";
    const Mdef mdef = Mdef::Parse(mdef_text, "shared.mdef");
    const ModelFiles files = MakeModelFiles(mdef);
    const AcousticModel model(files, ModelOptions{});
    const Dictionary dict = Dictionary::Parse("AB A B\n", "shared.dic", false);
    const SentenceHmm hmm = BuildSentenceHmm({"AB", "AB"}, dict, mdef, model);
    // A(SIL,B,b) B(A,A,e)->CI B, A(B,B,b)->CI A, B(A,SIL,e).
    ASSERT_EQ(hmm.phones.size(), 4u);
    EXPECT_EQ(hmm.phones[0].phone_id, 3u);
    EXPECT_EQ(hmm.phones[1].phone_id, 1u);
    EXPECT_EQ(hmm.phones[2].phone_id, 0u);
    EXPECT_EQ(hmm.phones[3].phone_id, 4u);
    // Each state's senone, then its CI senone when different (CD states also feed their CI
    // senone): A(SIL,B,b) gives 12 0 10 1 11 2; CI B 3 4 5; CI A nothing new; B(A,SIL,e) 13 and 9
    // (10 and B's CI senones were seen).
    EXPECT_EQ(hmm.senones, (std::vector<std::uint32_t>{12, 0, 10, 1, 11, 2, 3, 4, 5, 13, 9}));
    // B(A,SIL,e)'s states keep B's CI senones.
    EXPECT_EQ(hmm.states[12].senone, 13u);
    EXPECT_EQ(hmm.states[12].ci_senone, 3u);
    EXPECT_EQ(hmm.states[13].senone, 10u);
    EXPECT_EQ(hmm.states[13].ci_senone, 4u);
  }
}

// Arcs held in place up to ArcList::kInline and on the heap beyond: the same arcs in the order added.
TEST(ArcListTest, KeepsEveryArcInOrderAcrossTheInlineLimit) {
  ArcList arcs;
  EXPECT_TRUE(arcs.empty());
  std::vector<HmmArc> added;
  for (std::uint32_t i = 0; i < 3 * ArcList::kInline; ++i) {
    const HmmArc arc{100 + i, 0.5f / float(i + 1)};
    arcs.push_back(arc);
    added.push_back(arc);
    ASSERT_EQ(arcs.size(), added.size());
    std::size_t at = 0;
    for (const HmmArc& got : arcs) {
      EXPECT_EQ(got.state, added[at].state) << "after " << added.size() << " arcs, arc " << at;
      EXPECT_EQ(got.prob, added[at].prob) << "after " << added.size() << " arcs, arc " << at;
      EXPECT_EQ(arcs[at].state, added[at].state);
      ++at;
    }
    EXPECT_EQ(at, added.size());
  }
  const ArcList copy = arcs;
  ASSERT_EQ(copy.size(), arcs.size());
  for (std::size_t i = 0; i < copy.size(); ++i) EXPECT_EQ(copy[i].state, arcs[i].state);
}

}  // namespace
}  // namespace pstrain
