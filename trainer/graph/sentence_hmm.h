// The sentence HMM of one utterance, built from its transcript exactly as SphinxTrain's bw builds it:
// the words' pronunciations are concatenated (no optional or automatic silence), each phone is mapped
// to a triphone when the mdef has one (word-position back-off order b, e, s, i; fillers are CI and
// act as SIL context), and each phone instance contributes its emitting states plus one
// non-emitting exit state. The utterance must start in the first emitting state at frame 0 and end
// in the last exit state at the last frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/dictionary.h"
#include "formats/mdef.h"
#include "model/acoustic_model.h"

namespace pstrain {

inline constexpr std::uint32_t kNonEmitting = 0xFFFFFFFFu;

struct HmmArc {
  std::uint32_t state;  // the other end of the arc
  float prob;           // transition probability (from the floored, renormalized tmat)
};

// The arcs into or out of one state, in the order they were added. A state of a linear HMM has at
// most 3 of each (self-loop, next, skip), so up to kInline arcs are held in place: building an
// utterance's HMM then allocates per state only for the wide joins of pronunciation graphs.
class ArcList {
 public:
  static constexpr std::uint32_t kInline = 4;

  void push_back(const HmmArc& arc) {
    if (size_ < kInline) {
      inline_[size_] = arc;
    } else {
      if (size_ == kInline) spill_.assign(inline_, inline_ + kInline);
      spill_.push_back(arc);
    }
    ++size_;
  }
  const HmmArc* begin() const { return size_ <= kInline ? inline_ : spill_.data(); }
  const HmmArc* end() const { return begin() + size_; }
  const HmmArc& operator[](std::size_t i) const { return begin()[i]; }
  std::uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  std::uint32_t size_ = 0;
  HmmArc inline_[kInline] = {};
  std::vector<HmmArc> spill_;  // all arcs, once there are more than kInline
};

struct HmmState {
  std::uint32_t senone = kNonEmitting;  // tied state (= codebook = mixture weights) or kNonEmitting
  std::uint32_t ci_senone = kNonEmitting;
  std::uint32_t tmat = 0;
  std::uint32_t model_state = 0;   // index inside its phone's HMM (exit = n_emit_state)
  std::uint32_t phone_instance = 0;
  ArcList next;
  ArcList prev;
  bool emitting() const { return senone != kNonEmitting; }
};

// One phone of the utterance after context mapping.
struct PhoneInstance {
  std::uint32_t phone_id;  // mdef row (CI or triphone)
  std::uint32_t ci_phone;
  WordPosition posn;
};

struct SentenceHmm {
  std::vector<PhoneInstance> phones;
  // states.back() is the final (non-emitting) state. Without `initial`, state 0 is the one initial
  // state (probability 1, the linear path); otherwise `initial` lists the emitting states an
  // utterance may start in and their prior probabilities (pronunciation graphs).
  std::vector<HmmState> states;
  std::vector<HmmArc> initial;
  // Distinct senones used, in order of first appearance (the utterance's local codebooks): each
  // state's senone followed by its CI senone when that differs (CD states also update their CI
  // senone's statistics, as bw does).
  std::vector<std::uint32_t> senones;
};

// Thrown for transcripts that cannot be turned into an HMM (unknown word, phone missing from the
// mdef, no phones): the utterance is skipped, not retried. `reason` is machine-readable.
struct GraphError {
  std::string reason;   // e.g. "unknown-word"
  std::string message;  // names the word / phone
};

// The phone sequence of a transcript (dictionary lookup, no context mapping). Throws GraphError.
std::vector<const Pronunciation*> LookupWords(const std::vector<std::string>& words, const Dictionary& dictionary);

// Maps CI phone `ci` to its triphone in the context (left, right), both CI phone ids (fillers act
// as SIL), with the linear path's word-position back-off (b, e, s, i) unless `utterance_last`. CI
// models, fillers and phones without any matching triphone give the CI phone itself; `fell_back`
// (may be null) is set when a triphone model had no triphone for a non-filler phone.
std::uint32_t LookupPhoneId(const Mdef& mdef, std::uint32_t ci, std::uint32_t left, std::uint32_t right, WordPosition posn,
                            bool utterance_last, bool* fell_back);

// The context of the utterance edges: SIL in triphone models (GraphError "no-sil-phone" when the
// mdef has triphones but no SIL), 0 (unused) in CI models.
std::uint32_t SilContext(const Mdef& mdef);

// The CI phone id used as context for `ci`: SIL for fillers (the mdef must have SIL when it has
// triphones; GraphError otherwise).
std::uint32_t ContextPhone(const Mdef& mdef, std::uint32_t ci);

// Appends the states of one phone instance (its emitting states, then its exit state) with the
// arcs inside the phone, and records new senones (own, then CI) in hmm.senones. Returns the index
// of its first state. `senone_seen` has one flag per tied state.
std::uint32_t AppendPhoneStates(SentenceHmm& hmm, std::uint32_t phone_instance, const Mdef& mdef, const AcousticModel& model,
                                std::vector<bool>& senone_seen);

// Builds the sentence HMM. Throws GraphError.
SentenceHmm BuildSentenceHmm(const std::vector<std::string>& words, const Dictionary& dictionary, const Mdef& mdef,
                             const AcousticModel& model);

}  // namespace pstrain
