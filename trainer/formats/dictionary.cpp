// Sphinx pronunciation dictionaries: parsing, merging and variant lookup.
//
// Details beyond the header:
//   * Line endings: LF or CRLF. Trailing spaces, tabs and a CR are trimmed before a line is parsed
//     (SphinxTrain trims all trailing whitespace, so CRLF dictionaries work there too). Any other
//     control character on a line is an InputError naming the file and line.
//   * Duplicates: `duplicates()` lists each later (ignored) headword as written, in file order; after
//     Merge it also lists the merged dictionary's own duplicates and then every headword of the merged
//     dictionary that this one already had (in headword order).
//   * Variant names: `WORD(N)` is a variant only when WORD is non-empty and N is a decimal number >= 2
//     without leading zeros (at most 9 digits). Anything else, e.g. `WORD(1)`, `WORD(02)`, `(2)`, is a
//     plain headword of its own.
#include "formats/dictionary.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "common/error.h"
#include "common/file_io.h"

namespace pstrain {

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// Splits `line` at runs of spaces/tabs. Returns an error text (empty when fine).
std::string SplitFields(const std::string& line, std::vector<std::string>* fields) {
  fields->clear();
  std::size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && IsBlank(line[pos])) ++pos;
    const std::size_t start = pos;
    while (pos < line.size() && !IsBlank(line[pos])) {
      const auto byte = static_cast<unsigned char>(line[pos]);
      if (byte < 0x20 || byte == 0x7f) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(byte));
        return std::string("control character ") + hex + " in line " + Quoted(line);
      }
      ++pos;
    }
    if (pos > start) fields->push_back(line.substr(start, pos - start));
  }
  return {};
}

}  // namespace

std::pair<std::string, int> SplitVariant(const std::string& headword) {
  constexpr std::size_t kMaxDigits = 9;  // keeps the number within int
  const std::size_t open = headword.rfind('(');
  if (open == std::string::npos || open == 0 || headword.back() != ')') return {headword, 1};
  const std::size_t digits_begin = open + 1;
  const std::size_t digits_end = headword.size() - 1;
  const std::size_t n_digits = digits_end - digits_begin;
  if (n_digits == 0 || n_digits > kMaxDigits || headword[digits_begin] == '0') return {headword, 1};
  int number = 0;
  for (std::size_t pos = digits_begin; pos < digits_end; ++pos) {
    const char c = headword[pos];
    if (c < '0' || c > '9') return {headword, 1};
    number = number * 10 + (c - '0');
  }
  if (number < 2) return {headword, 1};
  return {headword.substr(0, open), number};
}

Dictionary Dictionary::Parse(const std::string& text, const std::string& path, bool is_filler) {
  Dictionary dict;
  std::vector<std::string> fields;
  std::size_t line_number = 0;
  std::size_t line_begin = 0;
  while (line_begin < text.size()) {
    std::size_t line_end = text.find('\n', line_begin);
    if (line_end == std::string::npos) line_end = text.size();
    ++line_number;
    std::string line = text.substr(line_begin, line_end - line_begin);
    line_begin = line_end + 1;

    while (!line.empty() && (IsBlank(line.back()) || line.back() == '\r')) line.pop_back();
    std::size_t first = 0;
    while (first < line.size() && IsBlank(line[first])) ++first;
    if (first == line.size() || line[first] == '#') continue;  // blank line or comment

    const std::string problem = SplitFields(line, &fields);
    if (!problem.empty()) throw RecordError(path, line_number, problem);
    if (fields.size() < 2) {
      throw RecordError(path, line_number, "headword " + Quoted(fields[0]) + " has no phones");
    }
    Pronunciation pron;
    pron.word = fields[0];
    pron.phones.assign(fields.begin() + 1, fields.end());
    pron.is_filler = is_filler;
    const std::string word = pron.word;
    if (!dict.Insert(word, std::move(pron))) dict.duplicates_.push_back(word);  // the first definition wins
  }
  return dict;
}

Dictionary Dictionary::Load(const std::string& path, bool is_filler) {
  return Parse(ReadFileText(path), path, is_filler);
}

Dictionary::Dictionary(const Dictionary& other) : entries_(other.entries_), duplicates_(other.duplicates_) { Reindex(); }

Dictionary& Dictionary::operator=(const Dictionary& other) {
  if (this != &other) *this = Dictionary(other);  // a failed copy leaves this one as it was
  return *this;
}

Dictionary::Dictionary(Dictionary&& other) noexcept
    : entries_(std::move(other.entries_)),
      duplicates_(std::move(other.duplicates_)),
      index_(std::move(other.index_)),
      by_id_(std::move(other.by_id_)) {
  other.Clear();
}

Dictionary& Dictionary::operator=(Dictionary&& other) noexcept {
  if (this != &other) {
    entries_ = std::move(other.entries_);
    duplicates_ = std::move(other.duplicates_);
    index_ = std::move(other.index_);
    by_id_ = std::move(other.by_id_);
    other.Clear();
  }
  return *this;
}

void Dictionary::Clear() noexcept {
  entries_.clear();
  duplicates_.clear();
  index_.Clear();
  by_id_.clear();
}

bool Dictionary::Insert(const std::string& word, Pronunciation pron) {
  const auto [it, inserted] = entries_.try_emplace(word, std::move(pron));
  if (inserted) IndexAdd(*it);
  return inserted;
}

void Dictionary::Reindex() {
  index_.Clear();
  by_id_.clear();
  for (const auto& entry : entries_) IndexAdd(entry);
}

void Dictionary::IndexAdd(const std::pair<const std::string, Pronunciation>& entry) {
  const auto id = static_cast<std::uint32_t>(by_id_.size());
  by_id_.push_back(&entry);
  index_.Insert(id, entry.first, [this](std::uint32_t i) { return Headword(i); });
}

void Dictionary::Merge(const Dictionary& other) {
  duplicates_.insert(duplicates_.end(), other.duplicates_.begin(), other.duplicates_.end());
  for (const auto& [word, pron] : other.entries_) {
    if (!Insert(word, pron)) duplicates_.push_back(word);
  }
}

const Pronunciation* Dictionary::Find(const std::string& word) const {
  const std::optional<std::uint32_t> id = index_.Find(word, [this](std::uint32_t i) { return Headword(i); });
  return id ? &by_id_[*id]->second : nullptr;
}

std::vector<const Pronunciation*> Dictionary::Variants(const std::string& base_word) const {
  std::vector<std::pair<int, const Pronunciation*>> numbered;
  if (const Pronunciation* base = Find(base_word); base != nullptr && SplitVariant(base_word).second == 1) {
    numbered.emplace_back(1, base);
  }
  // Variant headwords "base_word(N)" sort contiguously after the prefix "base_word(".
  const std::string prefix = base_word + "(";
  for (auto it = entries_.lower_bound(prefix); it != entries_.end() && it->first.starts_with(prefix); ++it) {
    const auto [split_base, number] = SplitVariant(it->first);
    if (number >= 2 && split_base == base_word) numbered.emplace_back(number, &it->second);
  }
  // std::map order puts WORD(10) before WORD(2); variant order is numeric.
  std::sort(numbered.begin(), numbered.end(),
            [](const auto& lhs, const auto& rhs) { return lhs.first < rhs.first; });
  std::vector<const Pronunciation*> variants;
  variants.reserve(numbered.size());
  for (const auto& [number, pron] : numbered) variants.push_back(pron);
  return variants;
}

}  // namespace pstrain
