// Building an utterance's sentence HMM from its transcript as SphinxTrain's bw does.
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

std::uint32_t SilContext(const Mdef& mdef) {
  if (mdef.n_triphones() == 0) return 0;
  auto sil = mdef.CiPhone("SIL");
  if (!sil) throw GraphError{"no-sil-phone", "the mdef has triphones but no SIL phone"};
  return *sil;
}

std::uint32_t ContextPhone(const Mdef& mdef, std::uint32_t ci) {
  if (mdef.n_triphones() == 0 || !mdef.phones()[ci].is_filler) return ci;
  return SilContext(mdef);
}

std::uint32_t LookupPhoneId(const Mdef& mdef, std::uint32_t ci, std::uint32_t left, std::uint32_t right, WordPosition posn,
                            bool utterance_last, bool* fell_back) {
  if (fell_back) *fell_back = false;
  const MdefPhone& ci_row = mdef.phones()[ci];
  if (mdef.n_triphones() == 0 || ci_row.is_filler) return ci;
  auto tri = mdef.Triphone(ci, left, right, posn);
  if (!tri && !utterance_last) {
    for (WordPosition fallback : {WordPosition::kBegin, WordPosition::kEnd, WordPosition::kSingle, WordPosition::kInternal}) {
      tri = mdef.Triphone(ci, left, right, fallback);
      if (tri) break;
    }
  }
  if (tri) return *tri;
  if (fell_back) *fell_back = true;
  return ci;
}

std::uint32_t AppendPhoneStates(SentenceHmm& hmm, std::uint32_t phone_instance, const Mdef& mdef, const AcousticModel& model,
                                std::vector<bool>& senone_seen) {
  const PhoneInstance& phone = hmm.phones[phone_instance];
  const MdefPhone& row = mdef.phones()[phone.phone_id];
  const std::uint32_t n_emit = mdef.n_emit_state();
  const std::uint32_t first = static_cast<std::uint32_t>(hmm.states.size());
  for (std::uint32_t m = 0; m <= n_emit; ++m) {
    HmmState state;
    if (m < n_emit) {
      state.senone = mdef.Senones(row)[m];
      state.ci_senone = mdef.CiSenone(phone.ci_phone, m);
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
    state.phone_instance = phone_instance;
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
  return first;
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
  const std::uint32_t sil = SilContext(mdef);
  for (std::size_t p = 0; p < raw.size(); ++p) {
    const std::uint32_t left = p == 0 ? sil : ContextPhone(mdef, raw[p - 1].ci_phone);
    const std::uint32_t right = p + 1 == raw.size() ? sil : ContextPhone(mdef, raw[p + 1].ci_phone);
    const std::uint32_t phone_id = LookupPhoneId(mdef, raw[p].ci_phone, left, right, raw[p].posn, p + 1 == raw.size(), nullptr);
    hmm.phones.push_back({phone_id, raw[p].ci_phone, raw[p].posn});
  }

  // The phones' mdef rows, then their senone lists, asked of the cache ahead of the states' loop
  // (hints only). A tied CD mdef's rows and senone lists (about 0.6 MB) are read at random, one
  // phone at a time, and the loop waited on each (the load of a row's first senone held most of
  // AppendPhoneStates' samples): with them, it and this function went from 2.7-3.2 % to 1.6-1.9 %
  // of a CD worker's samples (docs/performance.md, twenty-sixth round).
  for (const PhoneInstance& phone : hmm.phones) __builtin_prefetch(&mdef.phones()[phone.phone_id]);
  for (const PhoneInstance& phone : hmm.phones) __builtin_prefetch(mdef.Senones(phone.phone_id).data());
  // States: for each phone instance its emitting states then its exit state (room for all of them
  // first: a reallocation moves every state built so far).
  hmm.states.reserve(hmm.phones.size() * (std::size_t(mdef.n_emit_state()) + 1));
  std::vector<bool> senone_seen(mdef.n_tied_state(), false);
  for (std::uint32_t p = 0; p < hmm.phones.size(); ++p) {
    const std::uint32_t first = AppendPhoneStates(hmm, p, mdef, model, senone_seen);
    // Previous phone's exit -> this phone's first emitting state, probability 1.
    if (p > 0) {
      hmm.states[first - 1].next.push_back({first, 1.0f});
      hmm.states[first].prev.push_back({first - 1, 1.0f});
    }
  }
  return hmm;
}

}  // namespace pstrain
