// Text model definition files (mdef format "0.3").
//
// Reading then writing a file produced by SphinxTrain's mk_mdef_gen gives the same bytes: the
// comment lines before "0.3" are kept, the rest is written in mk_mdef_gen's fixed column layout.
// Binary mdefs (magic BMDF, as pocketsphinx's en-us model ships) are rejected with a clear error.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/string_index.h"

namespace pstrain {

// Word position of a triphone: begin, end, single-phone word, internal. CI phones have kNone.
enum class WordPosition : std::uint8_t { kBegin, kEnd, kSingle, kInternal, kNone };
char WordPositionLetter(WordPosition posn);

// One phone row, in ids: the names, the attribute text and the senones are held once by the Mdef
// (Mdef::Name, Attributes, Senones). A 15,323-triphone mdef takes about 0.7 MB parsed, where rows
// of strings took 3.2 MB (docs/performance.md, "Peak memory").
struct MdefPhone {
  static constexpr std::uint32_t kNoContext = 0xffffffffu;  // a CI row's "-" left and right
  std::uint32_t base = 0;             // CI phone id of the base phone (a CI row's own id)
  std::uint32_t left = kNoContext;    // CI phone ids of the contexts; kNoContext for CI rows
  std::uint32_t right = kNoContext;
  std::uint32_t tmat = 0;
  std::uint32_t attributes = 0;       // index of the row's attribute text (Mdef::Attributes)
  std::uint32_t first_senone = 0;     // offset of the row's senones (Mdef::Senones)
  WordPosition posn = WordPosition::kNone;
  bool is_filler = false;
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

  // The name of CI phone `ci`, or "-" for MdefPhone::kNoContext (as the file writes it).
  std::string_view Name(std::uint32_t ci) const {
    return ci == MdefPhone::kNoContext ? std::string_view("-") : std::string_view(ci_names_[ci]);
  }
  // A row's attribute column as written: "n/a", "filler", or a comma-separated list.
  std::string_view Attributes(const MdefPhone& phone) const { return attribute_texts_[phone.attributes]; }
  // A row's senones, one per emitting state.
  std::span<const std::uint32_t> Senones(const MdefPhone& phone) const {
    return {senones_.data() + phone.first_senone, n_emit_state_};
  }
  std::span<const std::uint32_t> Senones(std::uint32_t phone_id) const { return Senones(phones_[phone_id]); }

  // CI phone id by name.
  std::optional<std::uint32_t> CiPhone(std::string_view name) const;
  // Triphone id for (base, left, right, posn); all names are CI phone names.
  std::optional<std::uint32_t> Triphone(std::string_view base, std::string_view left, std::string_view right,
                                        WordPosition posn) const;
  // The same by CI phone ids (the graph builder's lookup, once per phone of every utterance).
  std::optional<std::uint32_t> Triphone(std::uint32_t base, std::uint32_t left, std::uint32_t right, WordPosition posn) const {
    if (base >= kMaxCiPhones || left >= kMaxCiPhones || right >= kMaxCiPhones || tri_keys_.empty()) return std::nullopt;
    const std::uint64_t key = TriphoneKey(base, left, right, posn);
    for (std::size_t slot = TriphoneSlot(key);; slot = (slot + 1) & (tri_keys_.size() - 1)) {
      if (tri_keys_[slot] == key) return tri_ids_[slot];
      if (tri_keys_[slot] == kNoKey) return std::nullopt;
    }
  }
  // The CI senone of emitting state `state` of CI phone `ci_phone`.
  std::uint32_t CiSenone(std::uint32_t ci_phone, std::uint32_t state) const { return Senones(ci_phone)[state]; }
  // Senone -> CI phone it belongs to (via the base phone of the first row using it).
  std::uint32_t SenoneCiPhone(std::uint32_t senone) const { return senone_ci_phone_[senone]; }

  const std::vector<std::string>& leading_comments() const { return leading_comments_; }

 private:
  std::vector<std::string> leading_comments_;
  std::uint32_t n_base_ = 0, n_tri_ = 0, n_state_map_ = 0, n_tied_state_ = 0, n_tied_ci_state_ = 0,
                n_tied_tmat_ = 0, n_emit_state_ = 0;
  std::vector<MdefPhone> phones_;
  std::vector<std::uint32_t> senones_;          // n_emit_state_ per row, in row order
  std::vector<std::string> ci_names_;           // by CI phone id
  std::vector<std::string> attribute_texts_;    // distinct attribute columns, in order of first use
  // CI phone name -> id (common/string_index.h), over ci_names_: looked up by the parser three times
  // a triphone row, and by the graph builder once per phone of every utterance.
  StringIndex ci_index_;
  std::string_view CiName(std::uint32_t ci) const { return ci_names_[ci]; }
  // (base, left, right, posn) CI ids packed by TriphoneKey -> phone id, in an open-addressing table
  // (linear probing, a power of two of slots, at most half full: about 26 bytes a triphone, where
  // std::unordered_map took about 40). Only looked up, never iterated (files are written from
  // phones_), so the slot order reaches no output.
  static constexpr std::uint32_t kMaxCiPhones = 1u << 20;
  static constexpr std::uint64_t kNoKey = ~std::uint64_t(0);  // posn < 8 keeps real keys below it
  static std::uint64_t TriphoneKey(std::uint32_t base, std::uint32_t left, std::uint32_t right, WordPosition posn) {
    return std::uint64_t(base) | std::uint64_t(left) << 20 | std::uint64_t(right) << 40 | std::uint64_t(posn) << 60;
  }
  std::size_t TriphoneSlot(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ull) >> tri_shift_);
  }
  std::vector<std::uint64_t> tri_keys_;
  std::vector<std::uint32_t> tri_ids_;
  unsigned tri_shift_ = 64;
  std::size_t tri_count_ = 0;
  // While parsing: sizes the table for `expected` triphones (2^bits slots, the least with 2^bits >=
  // 2 expected), refilled with the rows read so far; then adds row `phone_id`'s key, growing the
  // table if it would be more than half full (only a file with more triphones than its header
  // declares, which Parse refuses). False if the key is there already (a triphone defined twice).
  void SizeTriphoneTable(std::size_t expected);
  bool InsertTriphone(std::uint64_t key, std::uint32_t phone_id);
  std::vector<std::uint32_t> senone_ci_phone_;
};

}  // namespace pstrain
