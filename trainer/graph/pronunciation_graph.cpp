// Building the sentence HMM over every pronunciation of an utterance's words (`--multipron`).
#include "graph/pronunciation_graph.h"

#include <algorithm>
#include <set>

namespace pstrain {

namespace {

constexpr std::uint32_t kNoPhoneInstance = 0xFFFFFFFFu;

struct Variant {
  const Pronunciation* pron = nullptr;
  std::vector<std::uint32_t> ci;  // CI phone ids
};

// One copy of one phone of one variant, for one (left, right) context pair.
struct PhoneCopy {
  std::uint32_t left = 0, right = 0;   // context CI phones
  bool any_left = false, any_right = false;  // not split: joins every neighbour
  std::uint32_t first_state = 0;       // first emitting state; exit = first_state + n_emit
};

std::vector<Variant> VariantsOf(const std::string& word, const Dictionary& dictionary, const Mdef& mdef) {
  std::vector<const Pronunciation*> prons;
  if (SplitVariant(word).second >= 2) {
    if (const Pronunciation* pron = dictionary.Find(word)) prons.push_back(pron);
  } else {
    prons = dictionary.Variants(word);
  }
  if (prons.empty()) throw GraphError{"unknown-word", "word \"" + word + "\" is not in the dictionary"};
  std::vector<Variant> variants;
  for (const Pronunciation* pron : prons) {
    Variant variant{pron, {}};
    for (const std::string& name : pron->phones) {
      auto ci = mdef.CiPhone(name);
      if (!ci) {
        throw GraphError{"phone-not-in-mdef",
                         "word \"" + pron->word + "\" uses phone \"" + name + "\" which the mdef does not define"};
      }
      variant.ci.push_back(*ci);
    }
    if (!variant.ci.empty()) variants.push_back(std::move(variant));
  }
  return variants;
}

WordPosition PositionOf(std::size_t i, std::size_t n) {
  if (n == 1) return WordPosition::kSingle;
  if (i == 0) return WordPosition::kBegin;
  if (i + 1 == n) return WordPosition::kEnd;
  return WordPosition::kInternal;
}

}  // namespace

PronunciationGraph BuildPronunciationGraph(const std::vector<std::string>& words, const Dictionary& dictionary,
                                           const Mdef& mdef, const AcousticModel& model) {
  // Words with no phones are ignored, as on the linear path.
  std::vector<std::vector<Variant>> slots;
  for (const std::string& word : words) {
    std::vector<Variant> variants = VariantsOf(word, dictionary, mdef);
    if (!variants.empty()) slots.push_back(std::move(variants));
  }
  if (slots.empty()) throw GraphError{"empty-transcript", "the transcript has no phones"};

  const bool triphones = mdef.n_triphones() > 0;
  const std::uint32_t sil = SilContext(mdef);
  const std::uint32_t n_emit = mdef.n_emit_state();
  auto context = [&](std::uint32_t ci) { return ContextPhone(mdef, ci); };
  // Distinct contexts of the boundary phones of a slot's variants, ascending.
  auto boundary_contexts = [&](const std::vector<Variant>& variants, bool last_phone) {
    std::set<std::uint32_t> contexts;
    for (const Variant& v : variants) contexts.insert(context(last_phone ? v.ci.back() : v.ci.front()));
    return std::vector<std::uint32_t>(contexts.begin(), contexts.end());
  };

  PronunciationGraph graph;
  SentenceHmm& hmm = graph.hmm;
  std::set<std::uint32_t> fallback;
  std::vector<bool> senone_seen(mdef.n_tied_state(), false);
  // copies[w][v][i]: the copies of phone i of variant v of word w, in creation order.
  std::vector<std::vector<std::vector<std::vector<PhoneCopy>>>> copies(slots.size());

  for (std::size_t w = 0; w < slots.size(); ++w) {
    const float prior = 1.0f / static_cast<float>(slots[w].size());
    copies[w].resize(slots[w].size());
    for (std::size_t v = 0; v < slots[w].size(); ++v) {
      const Variant& variant = slots[w][v];
      const std::size_t n = variant.ci.size();
      copies[w][v].resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t ci = variant.ci[i];
        const bool split = triphones && !mdef.phones()[ci].is_filler;
        std::vector<std::uint32_t> lefts, rights;
        if (i > 0) lefts = {context(variant.ci[i - 1])};
        else if (w == 0) lefts = {sil};
        else lefts = boundary_contexts(slots[w - 1], true);
        if (i + 1 < n) rights = {context(variant.ci[i + 1])};
        else if (w + 1 == slots.size()) rights = {sil};
        else rights = boundary_contexts(slots[w + 1], false);
        const bool utterance_last = w + 1 == slots.size() && i + 1 == n;

        std::vector<PhoneCopy> phone_copies;
        if (!split) {
          phone_copies.push_back({lefts.front(), rights.front(), i == 0, i + 1 == n, 0});
        } else {
          for (std::uint32_t left : lefts) {
            for (std::uint32_t right : rights) phone_copies.push_back({left, right, false, false, 0});
          }
        }
        for (PhoneCopy& copy : phone_copies) {
          bool fell_back = false;
          const std::uint32_t phone_id =
              LookupPhoneId(mdef, ci, copy.left, copy.right, PositionOf(i, n), utterance_last, &fell_back);
          if (fell_back) {
            for (std::uint32_t senone : mdef.Senones(ci)) fallback.insert(senone);
          }
          const std::uint32_t instance = static_cast<std::uint32_t>(hmm.phones.size());
          hmm.phones.push_back({phone_id, ci, PositionOf(i, n)});
          copy.first_state = AppendPhoneStates(hmm, instance, mdef, model, senone_seen);
          auto join = [&](std::uint32_t from_exit, float prob) {
            hmm.states[from_exit].next.push_back({copy.first_state, prob});
            hmm.states[copy.first_state].prev.push_back({from_exit, prob});
          };
          if (i > 0) {
            // Inside a word: the previous phone's copies differ at most in their left context.
            for (const PhoneCopy& before : copies[w][v][i - 1]) join(before.first_state + n_emit, 1.0f);
          } else if (w > 0) {
            for (std::size_t u = 0; u < slots[w - 1].size(); ++u) {
              const std::uint32_t their_last = context(slots[w - 1][u].ci.back());
              for (const PhoneCopy& before : copies[w - 1][u].back()) {
                const bool they_fit = before.any_right || before.right == context(ci);
                const bool we_fit = copy.any_left || copy.left == their_last;
                if (they_fit && we_fit) join(before.first_state + n_emit, prior);
              }
            }
          } else {
            hmm.initial.push_back({copy.first_state, prior});
          }
        }
        copies[w][v][i] = std::move(phone_copies);
      }
    }
  }

  // The utterance ends in the exit state of any copy of the last word's last phones.
  std::vector<std::uint32_t> final_exits;
  for (const auto& variant_copies : copies.back()) {
    for (const PhoneCopy& copy : variant_copies.back()) final_exits.push_back(copy.first_state + n_emit);
  }
  if (final_exits.size() > 1) {
    HmmState final_state;
    final_state.model_state = n_emit;
    final_state.phone_instance = kNoPhoneInstance;  // no transition into it is a tmat count
    const std::uint32_t final_index = static_cast<std::uint32_t>(hmm.states.size());
    hmm.states.push_back(std::move(final_state));
    for (std::uint32_t exit : final_exits) {
      hmm.states[exit].next.push_back({final_index, 1.0f});
      hmm.states[final_index].prev.push_back({exit, 1.0f});
    }
  }
  // One initial state of probability 1 is the linear path's implicit start (state 0).
  if (hmm.initial.size() == 1 && hmm.initial[0].state == 0 && hmm.initial[0].prob == 1.0f) hmm.initial.clear();
  graph.fallback_senones.assign(fallback.begin(), fallback.end());
  return graph;
}

}  // namespace pstrain
