// The sentence HMM of an utterance over every pronunciation of its words (`--multipron`).
//
// Each transcript word expands to its dictionary variants (WORD, WORD(2), ...; a token written as
// WORD(2) keeps only that variant), laid side by side; every variant of a word joins every variant
// of the next, and entering variant v of a word costs its prior 1/k (k variants). No silence is
// inserted. Cross-word contexts are right on every path: a word-initial phone is split into one
// copy per distinct left context (the last phones of the previous word's variants, SIL at the
// start) and a word-final phone into one copy per distinct right context (the first phones of the
// next word's variants, SIL at the end), before triphone lookup; a copy is joined only to the
// neighbours whose phones are its contexts. Lookup uses the linear path's word-position back-off;
// where a triphone model has no triphone, the phone falls back to its CI phone, and the CI
// phone's senones are reported as fallback senones.
//
// Every variant of the first word can start the utterance (SentenceHmm::initial) and every variant
// of the last word can finish it: when more than one phone copy ends the utterance, their exit
// states join one final non-emitting state. With one pronunciation per word the graph is the
// linear sentence HMM of BuildSentenceHmm, state for state and arc for arc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/sentence_hmm.h"

namespace pstrain {

struct PronunciationGraph {
  SentenceHmm hmm;
  // Tied states (senones) of the CI phones that stood in for missing triphones, ascending.
  std::vector<std::uint32_t> fallback_senones;
};

// Throws GraphError (unknown word, phone missing from the mdef, no phones).
PronunciationGraph BuildPronunciationGraph(const std::vector<std::string>& words, const Dictionary& dictionary,
                                           const Mdef& mdef, const AcousticModel& model);

}  // namespace pstrain
