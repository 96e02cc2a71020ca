// Text model definition files (mdef format "0.3").
//
// Reading then writing a file produced by SphinxTrain's mk_mdef_gen gives the same bytes: the
// comment lines before "0.3" are kept, the rest is written in mk_mdef_gen's fixed column layout.
// Binary mdefs (magic BMDF, as pocketsphinx's en-us model ships) are rejected with a clear error.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace pstrain {

// Word position of a triphone: begin, end, single-phone word, internal. CI phones have kNone.
enum class WordPosition { kBegin, kEnd, kSingle, kInternal, kNone };
char WordPositionLetter(WordPosition posn);

struct MdefPhone {
  std::string base;
  std::string left;   // "-" for CI phones
  std::string right;  // "-" for CI phones
  WordPosition posn = WordPosition::kNone;
  std::string attributes;  // as written: "n/a", "filler", or a comma-separated list
  bool is_filler = false;
  std::uint32_t tmat = 0;
  std::vector<std::uint32_t> senones;  // one per emitting state
};

class Mdef {
 public:
  static Mdef Parse(const std::string& text, const std::string& path);
  static Mdef Load(const std::string& path);
  std::string Serialize() const;

  std::uint32_t n_ci_phones() const { return n_base_; }
  std::uint32_t n_triphones() const { return n_tri_; }
  std::uint32_t n_tied_state() const { return n_tied_state_; }
  std::uint32_t n_tied_ci_state() const { return n_tied_ci_state_; }
  std::uint32_t n_tied_tmat() const { return n_tied_tmat_; }
  // Emitting states per phone (the same for every phone; checked on parse).
  std::uint32_t n_emit_state() const { return n_emit_state_; }
  const std::vector<MdefPhone>& phones() const { return phones_; }

  // CI phone id by name.
  std::optional<std::uint32_t> CiPhone(const std::string& name) const;
  // Triphone id for (base, left, right, posn); all names are CI phone names.
  std::optional<std::uint32_t> Triphone(const std::string& base, const std::string& left,
                                        const std::string& right, WordPosition posn) const;
  // The same by CI phone ids (the graph builder's lookup, once per phone of every utterance).
  std::optional<std::uint32_t> Triphone(std::uint32_t base, std::uint32_t left, std::uint32_t right, WordPosition posn) const {
    auto it = tri_index_.find(TriphoneKey(base, left, right, posn));
    if (it == tri_index_.end()) return std::nullopt;
    return it->second;
  }
  // The CI senone of emitting state `state` of CI phone `ci_phone`.
  std::uint32_t CiSenone(std::uint32_t ci_phone, std::uint32_t state) const { return phones_[ci_phone].senones[state]; }
  // Senone -> CI phone it belongs to (via the base phone of the first row using it).
  std::uint32_t SenoneCiPhone(std::uint32_t senone) const { return senone_ci_phone_[senone]; }

  const std::vector<std::string>& leading_comments() const { return leading_comments_; }

 private:
  std::vector<std::string> leading_comments_;
  std::uint32_t n_base_ = 0, n_tri_ = 0, n_state_map_ = 0, n_tied_state_ = 0, n_tied_ci_state_ = 0,
                n_tied_tmat_ = 0, n_emit_state_ = 0;
  std::vector<MdefPhone> phones_;
  std::map<std::string, std::uint32_t, std::less<>> ci_index_;  // transparent: looked up by string_view
  // (base, left, right, posn) CI ids packed by TriphoneKey -> phone id. Only looked up, never
  // iterated (files are written from phones_), so the hash order reaches no output.
  static constexpr std::uint32_t kMaxCiPhones = 1u << 20;
  static std::uint64_t TriphoneKey(std::uint32_t base, std::uint32_t left, std::uint32_t right, WordPosition posn) {
    return std::uint64_t(base) | std::uint64_t(left) << 20 | std::uint64_t(right) << 40 | std::uint64_t(posn) << 60;
  }
  std::unordered_map<std::uint64_t, std::uint32_t> tri_index_;
  std::vector<std::uint32_t> senone_ci_phone_;
};

}  // namespace pstrain
