#include "graph/sentence_hmm.h"

namespace pstrain {

namespace {

struct RawPhone {
  std::uint32_t ci_phone;
  WordPosition posn;
};

}  // namespace

std::vector<const Pronunciation*> LookupWords(const std::vector<std::string>& words, const Dictionary& dictionary) {
  std::vector<const Pronunciation*> prons;
  for (const std::string& word : words) {
    const Pronunciation* pron = dictionary.Find(word);
    if (pron == nullptr) throw GraphError{"unknown-word", "word \"" + word + "\" is not in the dictionary"};
    prons.push_back(pron);
  }
  return prons;
}

SentenceHmm BuildSentenceHmm(const std::vector<std::string>& words, const Dictionary& dictionary, const Mdef& mdef,
                             const AcousticModel& model) {
  std::vector<const Pronunciation*> prons = LookupWords(words, dictionary);

  // Phone string with word positions. A word's last phone is `s` when it is also the word's first
  // phone, `e` otherwise; a first phone is `b`; the rest `i`. Words with no phones are ignored.
  std::vector<RawPhone> raw;
  for (const Pronunciation* pron : prons) {
    const std::size_t n = pron->phones.size();
    for (std::size_t i = 0; i < n; ++i) {
      auto ci = mdef.CiPhone(pron->phones[i]);
      if (!ci) {
        throw GraphError{"phone-not-in-mdef", "word \"" + pron->word + "\" uses phone \"" + pron->phones[i] +
                                                  "\" which the mdef does not define"};
      }
      WordPosition posn = WordPosition::kInternal;
      if (n == 1) posn = WordPosition::kSingle;
      else if (i == 0) posn = WordPosition::kBegin;
      else if (i + 1 == n) posn = WordPosition::kEnd;
      raw.push_back({*ci, posn});
    }
  }
  if (raw.empty()) throw GraphError{"empty-transcript", "the transcript has no phones"};

  SentenceHmm hmm;
  const bool has_triphones = mdef.n_triphones() > 0;
  auto sil = mdef.CiPhone("SIL");
  if (has_triphones && !sil) throw GraphError{"no-sil-phone", "the mdef has triphones but no SIL phone"};
  auto context_name = [&](std::uint32_t ci) -> const std::string& {
    const MdefPhone& phone = mdef.phones()[ci];
    return phone.is_filler ? mdef.phones()[*sil].base : phone.base;
  };
  for (std::size_t p = 0; p < raw.size(); ++p) {
    std::uint32_t phone_id = raw[p].ci_phone;
    const MdefPhone& ci_row = mdef.phones()[raw[p].ci_phone];
    if (has_triphones && !ci_row.is_filler) {
      const std::string& left = p == 0 ? mdef.phones()[*sil].base : context_name(raw[p - 1].ci_phone);
      const std::string& right = p + 1 == raw.size() ? mdef.phones()[*sil].base : context_name(raw[p + 1].ci_phone);
      auto tri = mdef.Triphone(ci_row.base, left, right, raw[p].posn);
      if (!tri && p + 1 != raw.size()) {
        for (WordPosition fallback : {WordPosition::kBegin, WordPosition::kEnd, WordPosition::kSingle, WordPosition::kInternal}) {
          tri = mdef.Triphone(ci_row.base, left, right, fallback);
          if (tri) break;
        }
      }
      if (tri) phone_id = *tri;
    }
    hmm.phones.push_back({phone_id, raw[p].ci_phone, raw[p].posn});
  }

  // States: for each phone instance its emitting states then its exit state.
  const std::uint32_t n_emit = mdef.n_emit_state();
  std::vector<bool> senone_seen(mdef.n_tied_state(), false);
  for (std::uint32_t p = 0; p < hmm.phones.size(); ++p) {
    const MdefPhone& row = mdef.phones()[hmm.phones[p].phone_id];
    const std::uint32_t first = static_cast<std::uint32_t>(hmm.states.size());
    for (std::uint32_t m = 0; m <= n_emit; ++m) {
      HmmState state;
      if (m < n_emit) {
        state.senone = row.senones[m];
        state.ci_senone = mdef.CiSenone(hmm.phones[p].ci_phone, m);
        // Local senones: the state's own, then its CI senone (a CD state also feeds its CI
        // senone's statistics, as bw does).
        for (std::uint32_t senone : {state.senone, state.ci_senone}) {
          if (!senone_seen[senone]) {
            senone_seen[senone] = true;
            hmm.senones.push_back(senone);
          }
        }
      }
      state.tmat = row.tmat;
      state.model_state = m;
      state.phone_instance = p;
      hmm.states.push_back(std::move(state));
    }
    // Arcs inside the phone: every non-zero entry of the (floored) tmat.
    for (std::uint32_t from = 0; from < n_emit; ++from) {
      for (std::uint32_t to = 0; to <= n_emit; ++to) {
        float prob = model.Transition(row.tmat, from, to);
        if (prob > 0.0f) {
          hmm.states[first + from].next.push_back({first + to, prob});
          hmm.states[first + to].prev.push_back({first + from, prob});
        }
      }
    }
    // Previous phone's exit -> this phone's first emitting state, probability 1.
    if (p > 0) {
      hmm.states[first - 1].next.push_back({first, 1.0f});
      hmm.states[first].prev.push_back({first - 1, 1.0f});
    }
  }
  return hmm;
}

}  // namespace pstrain
