// Sphinx pronunciation dictionaries (main dictionary and filler dictionary).
//
// One entry per line: `WORD PH1 PH2 ...` separated by spaces or tabs. Lines starting with '#' and
// blank lines are skipped. Lookup is case-sensitive and literal, as in SphinxTrain. Alternate
// pronunciations are separate entries `WORD(2)`, `WORD(3)`, ...; a transcript token `WORD` uses only
// the `WORD` entry (the base form). The first definition of a headword wins, as in SphinxTrain; a
// later duplicate is recorded in `duplicates()` so tools can report it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/string_index.h"

namespace pstrain {

struct Pronunciation {
  std::string word;                 // headword as written, e.g. "OF(2)"
  std::vector<std::string> phones;  // CI phone names
  bool is_filler = false;           // came from the filler dictionary
};

class Dictionary {
 public:
  Dictionary() = default;
  // Copies rebuild the lookup index (it points into the entries); moves take it along with them
  // (the moved-from dictionary is left empty). Assigning a dictionary to itself changes nothing.
  Dictionary(const Dictionary& other);
  Dictionary& operator=(const Dictionary& other);
  Dictionary(Dictionary&& other) noexcept;
  Dictionary& operator=(Dictionary&& other) noexcept;

  // Parses dictionary text; `path` is used in error messages. A line with a headword but no phones
  // is an InputError naming the file and line.
  static Dictionary Parse(const std::string& text, const std::string& path, bool is_filler);
  static Dictionary Load(const std::string& path, bool is_filler);

  // Merges `other` into this one (main dictionary first, then filler): existing headwords win.
  void Merge(const Dictionary& other);

  // Literal, case-sensitive lookup. nullptr when absent.
  const Pronunciation* Find(const std::string& word) const;

  // All pronunciations of a base word in variant order: WORD, WORD(2), WORD(3), ... (for multipron).
  std::vector<const Pronunciation*> Variants(const std::string& base_word) const;

  std::size_t size() const { return entries_.size(); }
  const std::vector<std::string>& duplicates() const { return duplicates_; }
  // Entries in headword order (std::map order: deterministic).
  const std::map<std::string, Pronunciation>& entries() const { return entries_; }

 private:
  // Adds an entry unless its headword is there already (then returns false).
  bool Insert(const std::string& word, Pronunciation pron);
  void Reindex();
  void Clear() noexcept;

  std::map<std::string, Pronunciation> entries_;
  std::vector<std::string> duplicates_;
  // Find's index over entries_ (whose nodes never move): a hash lookup for every transcript word,
  // where the map's search compared strings a dozen times. Its ids number the entries in by_id_.
  StringIndex index_;
  std::vector<const std::pair<const std::string, Pronunciation>*> by_id_;
  std::string_view Headword(std::uint32_t id) const { return by_id_[id]->first; }
  // Adds an entry known not to be there.
  void IndexAdd(const std::pair<const std::string, Pronunciation>& entry);
};

// Splits "WORD(2)" into {"WORD", 2}; a plain "WORD" gives {"WORD", 1}.
std::pair<std::string, int> SplitVariant(const std::string& headword);

}  // namespace pstrain
