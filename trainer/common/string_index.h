// StringIndex: strings to the small ids of the table that holds them (an mdef's CI phones, a
// dictionary's entries), for the lookups made once per phone or word of every utterance.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace pstrain {

// Open addressing with linear probing over a power of two of slots, at most half full. A slot holds
// an id + 1 (0: empty) and the full hash of its string, so a probe compares strings only when the
// hashes agree. The strings stay with their owner: `text_of(id)` gives the string of an id. Only
// looked up, never iterated, so the slot order reaches no output. A std::unordered_map's lookups
// (string hash, modulo, node walk, compare) were about a quarter of the parse of a tied CD mdef and
// 0.7-1.5 % of a one-Gaussian worker (docs/performance.md, twenty-sixth round).
class StringIndex {
 public:
  // The id whose string equals `text`, or nothing.
  template <typename TextOf>
  std::optional<std::uint32_t> Find(std::string_view text, const TextOf& text_of) const {
    if (slots_.empty()) return std::nullopt;
    const Slot& slot = slots_[Probe(Hash(text), text, text_of)];
    if (slot.id_plus_one == 0) return std::nullopt;
    return slot.id_plus_one - 1;
  }

  // Adds `id` (< 2^32 - 1) under `text`, unless an equal string is there already: then false, and
  // nothing is added.
  template <typename TextOf>
  bool Insert(std::uint32_t id, std::string_view text, const TextOf& text_of) {
    if (2 * (count_ + 1) > slots_.size()) Grow();
    const std::size_t hash = Hash(text);
    Slot& slot = slots_[Probe(hash, text, text_of)];
    if (slot.id_plus_one != 0) return false;
    slot = {hash, id + 1};
    ++count_;
    return true;
  }

  void Clear() noexcept {
    slots_.clear();
    count_ = 0;
  }

 private:
  struct Slot {
    std::size_t hash = 0;
    std::uint32_t id_plus_one = 0;
  };
  static std::size_t Hash(std::string_view text) { return std::hash<std::string_view>{}(text); }
  // The slot holding `text` (whose hash is `hash`), or the empty slot where it would go. Strings
  // are compared only where the stored hashes agree. The slots are never full (at most half).
  template <typename TextOf>
  std::size_t Probe(std::size_t hash, std::string_view text, const TextOf& text_of) const {
    const std::size_t mask = slots_.size() - 1;
    std::size_t at = hash & mask;
    for (; slots_[at].id_plus_one != 0; at = (at + 1) & mask) {
      if (slots_[at].hash == hash && std::string_view(text_of(slots_[at].id_plus_one - 1)) == text) break;
    }
    return at;
  }
  // Doubles the slots (from 64) and puts every id back by its stored hash.
  void Grow() {
    std::vector<Slot> old(std::max<std::size_t>(64, 2 * slots_.size()));
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.id_plus_one == 0) continue;
      std::size_t at = slot.hash & mask;
      while (slots_[at].id_plus_one != 0) at = (at + 1) & mask;
      slots_[at] = slot;
    }
  }

  std::vector<Slot> slots_;
  std::size_t count_ = 0;
};

}  // namespace pstrain
