// Tests for the pronunciation graph (trainer/graph/pronunciation_graph.h) on a hand-made triphone
// model: reduction to the linear sentence HMM, context splitting on both sides of word
// boundaries, joins only between matching contexts, priors, every variant able to start and
// finish, CI fallback and its senones. The forward-backward side (the graph is the mixture of its
// variant paths) is in forward_backward_test.cpp.
#include "graph/pronunciation_graph.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "graph_test_model.h"

namespace pstrain {
namespace {

using namespace pstrain::test;  // NOLINT: the shared test model

void ExpectSameHmm(const SentenceHmm& graph, const SentenceHmm& linear) {
  ASSERT_EQ(graph.phones.size(), linear.phones.size());
  for (std::size_t p = 0; p < linear.phones.size(); ++p) {
    EXPECT_EQ(graph.phones[p].phone_id, linear.phones[p].phone_id) << "phone " << p;
    EXPECT_EQ(graph.phones[p].ci_phone, linear.phones[p].ci_phone) << "phone " << p;
    EXPECT_EQ(graph.phones[p].posn, linear.phones[p].posn) << "phone " << p;
  }
  ASSERT_EQ(graph.states.size(), linear.states.size());
  for (std::size_t s = 0; s < linear.states.size(); ++s) {
    const HmmState& a = graph.states[s];
    const HmmState& b = linear.states[s];
    EXPECT_EQ(a.senone, b.senone) << "state " << s;
    EXPECT_EQ(a.ci_senone, b.ci_senone) << "state " << s;
    EXPECT_EQ(a.tmat, b.tmat) << "state " << s;
    EXPECT_EQ(a.model_state, b.model_state) << "state " << s;
    EXPECT_EQ(a.phone_instance, b.phone_instance) << "state " << s;
    for (const auto& [arcs_a, arcs_b] : {std::pair{&a.next, &b.next}, std::pair{&a.prev, &b.prev}}) {
      ASSERT_EQ(arcs_a->size(), arcs_b->size()) << "state " << s;
      for (std::size_t i = 0; i < arcs_b->size(); ++i) {
        EXPECT_EQ((*arcs_a)[i].state, (*arcs_b)[i].state) << "state " << s << " arc " << i;
        EXPECT_EQ((*arcs_a)[i].prob, (*arcs_b)[i].prob) << "state " << s << " arc " << i;  // bit-exact
      }
    }
  }
  EXPECT_EQ(graph.senones, linear.senones);
  EXPECT_TRUE(graph.initial.empty()) << "one start state of probability 1 is the linear path's implicit start";
}

TEST(PronunciationGraphTest, OnePronunciationPerWordIsTheLinearPath) {
  std::vector<TriRow> triphones;
  for (const auto& row : AllPositions("A", "SIL", "B")) triphones.push_back(row);
  for (const auto& row : AllPositions("B", "A", "SIL")) triphones.push_back(row);
  triphones.push_back({"B", "A", "C", 'i'});  // only reachable by back-off from b/e
  triphones.push_back({"C", "B", "SIL", 'e'});
  triphones.push_back({"A", "B", "D", 'b'});
  const TestGraph graph(MdefText(triphones));
  for (const std::vector<std::string>& words : std::vector<std::vector<std::string>>{
           {"A1"}, {"AB"}, {"ABC"}, {"AB", "<sil>", "AD"}, {"++BREATH++", "ABC", "A1", "AD", "<sil>"}, {"B1", "AB", "A1"}}) {
    SCOPED_TRACE(words.front() + "... (" + std::to_string(words.size()) + " words)");
    const SentenceHmm linear = graph.Build(words);
    const PronunciationGraph multi = BuildPronunciationGraph(words, graph.dictionary, graph.mdef, graph.model);
    ExpectSameHmm(multi.hmm, linear);
  }
}

// Words with several pronunciations, around a word Q whose first phone has predecessors ending in
// B and C and whose last phone has successors starting with B and C.
//   P: A B | A C        Q: D A        R: B | C A
// The triphones used exist in every position except C(A,A): the word-initial C of R(2) falls back.
class PronunciationGraphContextTest : public ::testing::Test {
 protected:
  static std::string Mdef() {
    std::vector<TriRow> rows;
    for (const auto& [base, left, right] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"A", "SIL", "B"}, {"A", "SIL", "C"}, {"B", "A", "D"}, {"C", "A", "D"}, {"D", "B", "A"}, {"D", "C", "A"},
             {"A", "D", "B"}, {"A", "D", "C"}, {"B", "A", "SIL"}, {"A", "C", "SIL"}}) {
      for (const TriRow& row : AllPositions(base, left, right)) rows.push_back(row);
    }
    return MdefText(rows);
  }
  static Dictionary Dict() {
    Dictionary dict = Dictionary::Parse("P A B\nP(2) A C\nQ D A\nR B\nR(2) C A\n", "multi.dic", false);
    dict.Merge(Dictionary::Parse("<sil> SIL\n", "multi.filler", true));
    return dict;
  }
  PronunciationGraphContextTest() : graph(Mdef(), Dict()) {}

  PronunciationGraph Build(const std::vector<std::string>& words) const {
    return BuildPronunciationGraph(words, graph.dictionary, graph.mdef, graph.model);
  }
  // The phone (as "A(SIL,B,b)") each state belongs to; "final" for the joined final state.
  std::string PhoneOfState(const SentenceHmm& hmm, std::uint32_t state) const {
    const std::uint32_t instance = hmm.states[state].phone_instance;
    if (instance >= hmm.phones.size()) return "final";
    return graph.Describe(hmm.phones[instance].phone_id);
  }
  // Phone -> the phones whose exits feed its first state, with the arc probabilities.
  std::map<std::string, std::set<std::string>> Joins(const SentenceHmm& hmm) const {
    std::map<std::string, std::set<std::string>> joins;
    for (std::uint32_t s = 0; s < hmm.states.size(); ++s) {
      for (const HmmArc& arc : hmm.states[s].prev) {
        const bool cross = hmm.states[arc.state].phone_instance != hmm.states[s].phone_instance;
        if (cross) joins[PhoneOfState(hmm, s)].insert(PhoneOfState(hmm, arc.state) + " p=" + std::to_string(arc.prob));
      }
    }
    return joins;
  }

  TestGraph graph;
};

TEST_F(PronunciationGraphContextTest, CrossWordContextsAreSplitAndJoinedOnlyWhereTheyMatch) {
  const PronunciationGraph result = Build({"P", "Q", "R"});
  const SentenceHmm& hmm = result.hmm;
  std::vector<std::string> phones = graph.DescribePhones(hmm);
  EXPECT_EQ(phones, (std::vector<std::string>{
                        "A(SIL,B,b)", "B(A,D,e)",                  // P
                        "A(SIL,C,b)", "C(A,D,e)",                  // P(2)
                        "D(B,A,b)", "D(C,A,b)",                    // Q: one copy per left context
                        "A(D,B,e)", "A(D,C,e)",                    // Q: one copy per right context
                        "B(A,SIL,s)",                              // R
                        "C", "A(C,SIL,e)"}));                      // R(2): C(A,A) is missing -> CI C
  const std::map<std::string, std::set<std::string>> joins = Joins(hmm);
  const std::string half = std::to_string(0.5f), one = std::to_string(1.0f);
  EXPECT_EQ(joins.at("D(B,A,b)"), (std::set<std::string>{"B(A,D,e) p=" + one}));  // Q has one variant: prior 1
  EXPECT_EQ(joins.at("D(C,A,b)"), (std::set<std::string>{"C(A,D,e) p=" + one}));
  EXPECT_EQ(joins.at("A(D,B,e)"), (std::set<std::string>{"D(B,A,b) p=" + one, "D(C,A,b) p=" + one}));
  EXPECT_EQ(joins.at("A(D,C,e)"), (std::set<std::string>{"D(B,A,b) p=" + one, "D(C,A,b) p=" + one}));
  EXPECT_EQ(joins.at("B(A,SIL,s)"), (std::set<std::string>{"A(D,B,e) p=" + half}));  // R has two variants
  EXPECT_EQ(joins.at("C"), (std::set<std::string>{"A(D,C,e) p=" + half}));
  EXPECT_EQ(joins.at("A(C,SIL,e)"), (std::set<std::string>{"C p=" + one}));
  EXPECT_EQ(joins.at("final"), (std::set<std::string>{"A(C,SIL,e) p=" + one, "B(A,SIL,s) p=" + one}));

  // Both variants of the first word start the utterance with prior 1/2.
  ASSERT_EQ(hmm.initial.size(), 2u);
  EXPECT_EQ(PhoneOfState(hmm, hmm.initial[0].state), "A(SIL,B,b)");
  EXPECT_EQ(PhoneOfState(hmm, hmm.initial[1].state), "A(SIL,C,b)");
  EXPECT_EQ(hmm.initial[0].prob, 0.5f);
  EXPECT_EQ(hmm.initial[1].prob, 0.5f);
  EXPECT_FALSE(hmm.states.back().emitting());
  EXPECT_EQ(PhoneOfState(hmm, static_cast<std::uint32_t>(hmm.states.size() - 1)), "final");

  // The fallback put CI C's senones (9, 10, 11) into the graph.
  EXPECT_EQ(result.fallback_senones, (std::vector<std::uint32_t>{9, 10, 11}));
}

// Every state lies on a path from a start state to the final state: no variant is a dead end.
TEST_F(PronunciationGraphContextTest, EveryStateIsOnACompletePath) {
  for (const std::vector<std::string>& words :
       std::vector<std::vector<std::string>>{{"P", "Q", "R"}, {"R", "P"}, {"P"}, {"R"}, {"Q", "<sil>", "P", "R", "R"}}) {
    SCOPED_TRACE(words.front() + "... (" + std::to_string(words.size()) + " words)");
    const SentenceHmm hmm = Build(words).hmm;
    const std::size_t n = hmm.states.size();
    std::vector<bool> from_start(n, false), to_final(n, false);
    std::vector<std::uint32_t> stack;
    if (hmm.initial.empty()) stack.push_back(0);
    for (const HmmArc& start : hmm.initial) stack.push_back(start.state);
    while (!stack.empty()) {
      const std::uint32_t s = stack.back();
      stack.pop_back();
      if (from_start[s]) continue;
      from_start[s] = true;
      for (const HmmArc& arc : hmm.states[s].next) stack.push_back(arc.state);
    }
    stack.push_back(static_cast<std::uint32_t>(n - 1));
    while (!stack.empty()) {
      const std::uint32_t s = stack.back();
      stack.pop_back();
      if (to_final[s]) continue;
      to_final[s] = true;
      for (const HmmArc& arc : hmm.states[s].prev) stack.push_back(arc.state);
    }
    for (std::size_t s = 0; s < n; ++s) {
      EXPECT_TRUE(from_start[s]) << "state " << s << " cannot be reached from a start state";
      EXPECT_TRUE(to_final[s]) << "state " << s << " cannot reach the final state";
    }
  }
}

TEST_F(PronunciationGraphContextTest, AnExplicitVariantTokenUsesOnlyThatVariant) {
  const PronunciationGraph result = Build({"P(2)", "R(2)"});
  // C(A,C) and C(C,A) are not in the mdef: both C's fall back to the CI phone.
  EXPECT_EQ(graph.DescribePhones(result.hmm), (std::vector<std::string>{"A(SIL,C,b)", "C", "C", "A(C,SIL,e)"}));
  EXPECT_EQ(result.fallback_senones, (std::vector<std::uint32_t>{9, 10, 11}));
  EXPECT_EQ(result.hmm.phones.size(), 4u);
  EXPECT_TRUE(result.hmm.initial.empty());
}

TEST_F(PronunciationGraphContextTest, UnknownWordsAndPhonesAreGraphErrors) {
  try {
    Build({"P", "NOPE"});
    ADD_FAILURE() << "expected a GraphError";
  } catch (const GraphError& error) {
    EXPECT_EQ(error.reason, "unknown-word");
    EXPECT_NE(error.message.find("NOPE"), std::string::npos);
  }
}

}  // namespace
}  // namespace pstrain
