// Parsing text model definition files (mdef "0.3").
#include "formats/mdef.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <unordered_map>

#include "common/error.h"
#include "common/file_io.h"
#include "formats/whitespace_tokens.h"

namespace pstrain {

namespace {

bool ParseUnsigned(std::string_view token, std::uint32_t& out) {
  if (token.empty() || token.size() > 9) return false;
  std::uint32_t value = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<std::uint32_t>(c - '0');
  }
  out = value;
  return true;
}

WordPosition ParsePosition(std::string_view token, const std::string& path, std::size_t line_no) {
  if (token == "b") return WordPosition::kBegin;
  if (token == "e") return WordPosition::kEnd;
  if (token == "s") return WordPosition::kSingle;
  if (token == "i") return WordPosition::kInternal;
  if (token == "-") return WordPosition::kNone;
  throw RecordError(path, line_no, "unknown word position " + Quoted(token) + " (expected b, e, s, i or -)");
}

// Whether one of the comma-separated attributes is exactly "filler".
bool HasFillerAttribute(std::string_view attributes) {
  for (;;) {
    const std::size_t comma = attributes.find(',');
    if (attributes.substr(0, comma) == "filler") return true;
    if (comma == std::string_view::npos) return false;
    attributes.remove_prefix(comma + 1);
  }
}

// `text` right-aligned in `width` columns (printf's %Ns): longer text is written whole.
void AppendRightAligned(std::string& out, std::string_view text, std::size_t width) {
  if (text.size() < width) out.append(width - text.size(), ' ');
  out += text;
}

void AppendRightAligned(std::string& out, std::uint32_t value, std::size_t width) {
  char digits[16];
  const auto result = std::to_chars(digits, digits + sizeof(digits), value);
  AppendRightAligned(out, std::string_view(digits, static_cast<std::size_t>(result.ptr - digits)), width);
}

}  // namespace

char WordPositionLetter(WordPosition posn) {
  switch (posn) {
    case WordPosition::kBegin: return 'b';
    case WordPosition::kEnd: return 'e';
    case WordPosition::kSingle: return 's';
    case WordPosition::kInternal: return 'i';
    case WordPosition::kNone: return '-';
  }
  return '-';
}

Mdef Mdef::Parse(const std::string& text, const std::string& path) {
  if (text.size() >= 4 && text.compare(0, 4, "BMDF") == 0) {
    throw FileError(path, "binary mdef (BMDF) is not supported; convert it to text with pocketsphinx_mdef_convert -text");
  }
  Mdef mdef;
  std::size_t line_no = 0;
  bool seen_version = false;
  // Count lines: "<value> <key>".
  const char* const kCountKeys[] = {"n_base", "n_tri", "n_state_map", "n_tied_state", "n_tied_ci_state", "n_tied_tmat"};
  std::uint32_t* const count_fields[] = {&mdef.n_base_, &mdef.n_tri_, &mdef.n_state_map_, &mdef.n_tied_state_,
                                         &mdef.n_tied_ci_state_, &mdef.n_tied_tmat_};
  std::size_t counts_read = 0;
  // While parsing only: the distinct attribute columns (views into `text`). A row defined twice is
  // found where it is by the triphone table itself, filled row by row.
  std::unordered_map<std::string_view, std::uint32_t> attribute_ids;
  std::string_view last_attribute;  // the last row's attribute column, its id and filler flag
  std::uint32_t last_attribute_id = 0;
  bool last_attribute_filler = false;
  std::size_t reserved_rows = 0;
  std::vector<std::string_view> tokens;
  // Lines as std::getline reads them: split at '\n'; a last line without one still counts.
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t newline = std::min(text.find('\n', pos), text.size());
    const std::string_view line(text.data() + pos, newline - pos);
    pos = newline + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') throw RecordError(path, line_no, "CRLF line ending (mdef must use LF)");
    SplitWhitespace(line, tokens);
    if (tokens.empty()) continue;
    if (tokens[0][0] == '#') {
      if (!seen_version) mdef.leading_comments_.emplace_back(line);
      continue;
    }
    if (!seen_version) {
      if (tokens.size() != 1 || tokens[0] != "0.3") {
        throw RecordError(path, line_no, "expected mdef format version \"0.3\", found " + Quoted(line));
      }
      seen_version = true;
      continue;
    }
    if (counts_read < 6) {
      std::uint32_t value;
      if (tokens.size() != 2 || tokens[1] != kCountKeys[counts_read] || !ParseUnsigned(tokens[0], value)) {
        throw RecordError(path, line_no, std::string("expected \"<number> ") + kCountKeys[counts_read] + "\"");
      }
      *count_fields[counts_read] = value;
      ++counts_read;
      if (counts_read == 6) {
        // A phone row takes at least 15 bytes, so the file bounds what the header may reserve.
        const std::size_t rows = std::min<std::size_t>(std::size_t(mdef.n_base_) + mdef.n_tri_, text.size() / 15);
        mdef.phones_.reserve(rows);
        reserved_rows = rows;
        mdef.SizeTriphoneTable(std::min<std::size_t>(mdef.n_tri_, rows));
      }
      continue;
    }
    // A phone row: base left right posn attrib tmat senone... N
    if (tokens.size() < 8) throw RecordError(path, line_no, "phone row has too few columns");
    const std::string_view base = tokens[0], left = tokens[1], right = tokens[2];
    MdefPhone phone;
    phone.posn = ParsePosition(tokens[3], path, line_no);
    if (tokens[4] != last_attribute) {
      // (Rows come in runs of one attribute column, "n/a" for every triphone.)
      const auto attribute = attribute_ids.try_emplace(tokens[4], static_cast<std::uint32_t>(attribute_ids.size()));
      if (attribute.second) mdef.attribute_texts_.emplace_back(tokens[4]);
      last_attribute = tokens[4];
      last_attribute_id = attribute.first->second;
      last_attribute_filler = HasFillerAttribute(tokens[4]);
    }
    phone.attributes = last_attribute_id;
    phone.is_filler = last_attribute_filler;
    if (!ParseUnsigned(tokens[5], phone.tmat)) throw RecordError(path, line_no, "bad tmat id " + Quoted(tokens[5]));
    phone.first_senone = static_cast<std::uint32_t>(mdef.senones_.size());
    std::size_t col = 6;
    for (; col < tokens.size() && tokens[col][0] != 'N'; ++col) {
      std::uint32_t senone;
      if (!ParseUnsigned(tokens[col], senone)) throw RecordError(path, line_no, "bad senone id " + Quoted(tokens[col]));
      mdef.senones_.push_back(senone);
    }
    const std::size_t n_senones = mdef.senones_.size() - phone.first_senone;
    if (col != tokens.size() - 1) throw RecordError(path, line_no, "a phone row must end with exactly one non-emitting state \"N\"");
    if (n_senones == 0) throw RecordError(path, line_no, "phone has no emitting states");
    if (mdef.phones_.empty()) {
      mdef.n_emit_state_ = static_cast<std::uint32_t>(n_senones);
      // Every senone id takes at least two bytes of the file, which bounds the reservation.
      mdef.senones_.reserve(std::min(std::max(reserved_rows, std::size_t(1)) * n_senones, text.size() / 2));
    }
    if (n_senones != mdef.n_emit_state_) {
      throw RecordError(path, line_no, "phone has " + std::to_string(n_senones) +
                                           " emitting states but earlier phones have " + std::to_string(mdef.n_emit_state_));
    }
    const std::uint32_t phone_id = static_cast<std::uint32_t>(mdef.phones_.size());
    const bool is_ci = phone_id < mdef.n_base_;
    if (is_ci) {
      if (left != "-" || right != "-" || phone.posn != WordPosition::kNone) {
        throw RecordError(path, line_no, "CI phone " + Quoted(base) + " must have '-' contexts and position (CI phones come first)");
      }
      if (phone_id >= kMaxCiPhones) {
        throw RecordError(path, line_no, "more than " + std::to_string(kMaxCiPhones) + " CI phones");
      }
      mdef.ci_names_.emplace_back(base);
      if (!mdef.ci_index_.Insert(phone_id, base, [&mdef](std::uint32_t ci) { return mdef.CiName(ci); })) {
        throw RecordError(path, line_no, "CI phone " + Quoted(base) + " is defined twice");
      }
      phone.base = phone_id;
    } else {
      std::uint32_t ci_ids[3];
      for (int k = 0; k < 3; ++k) {
        const std::optional<std::uint32_t> id = mdef.CiPhone(tokens[k]);
        if (!id) throw RecordError(path, line_no, "triphone uses phone " + Quoted(tokens[k]) + " which is not a defined CI phone");
        ci_ids[k] = *id;
      }
      if (phone.posn == WordPosition::kNone) throw RecordError(path, line_no, "triphone has no word position");
      if (!mdef.InsertTriphone(TriphoneKey(ci_ids[0], ci_ids[1], ci_ids[2], phone.posn), phone_id)) {
        throw RecordError(path, line_no, "triphone is defined twice");
      }
      phone.base = ci_ids[0];
      phone.left = ci_ids[1];
      phone.right = ci_ids[2];
    }
    for (std::uint32_t senone : mdef.Senones(phone)) {
      if (senone >= mdef.n_tied_state_) {
        throw RecordError(path, line_no, "senone id " + std::to_string(senone) + " is out of range (n_tied_state = " +
                                             std::to_string(mdef.n_tied_state_) + ")");
      }
      if (is_ci && senone >= mdef.n_tied_ci_state_) {
        throw RecordError(path, line_no, "CI phone uses senone " + std::to_string(senone) + " beyond n_tied_ci_state");
      }
    }
    if (phone.tmat >= mdef.n_tied_tmat_) {
      throw RecordError(path, line_no, "tmat id " + std::to_string(phone.tmat) + " is out of range (n_tied_tmat = " +
                                           std::to_string(mdef.n_tied_tmat_) + ")");
    }
    mdef.phones_.push_back(phone);
  }
  if (!seen_version) throw FileError(path, "empty mdef (no \"0.3\" version line)");
  if (counts_read < 6) throw FileError(path, "truncated mdef header (missing count lines)");
  const std::size_t expected = std::size_t(mdef.n_base_) + mdef.n_tri_;
  if (mdef.phones_.size() != expected) {
    throw FileError(path, "header declares " + std::to_string(mdef.n_base_) + " CI phones and " + std::to_string(mdef.n_tri_) +
                              " triphones, but " + std::to_string(mdef.phones_.size()) + " phone rows follow (missing phone?)");
  }
  if (mdef.n_state_map_ != expected * (mdef.n_emit_state_ + 1)) {
    throw FileError(path, "n_state_map " + std::to_string(mdef.n_state_map_) + " does not equal phones x (emitting states + 1) = " +
                              std::to_string(expected * (mdef.n_emit_state_ + 1)));
  }
  // Every tied state belongs to a phone's state: more tied states than the rows' state slots cannot
  // be, and bounds what n_tied_state sizes by the file (a 2 KB mdef declaring 400,000,000 tied
  // states took 1.6 GB and 17 s here).
  const std::uint64_t slots = std::uint64_t(expected) * mdef.n_emit_state_;
  if (mdef.n_tied_state_ > slots) {
    throw FileError(path, "n_tied_state " + std::to_string(mdef.n_tied_state_) + " is more than the " + std::to_string(slots) +
                              " emitting states of the phone rows (every tied state belongs to a phone)");
  }
  mdef.senone_ci_phone_.assign(mdef.n_tied_state_, 0);
  std::vector<bool> seen(mdef.n_tied_state_, false);
  for (const MdefPhone& phone : mdef.phones_) {
    for (std::uint32_t senone : mdef.Senones(phone)) {
      if (!seen[senone]) {
        seen[senone] = true;
        mdef.senone_ci_phone_[senone] = phone.base;
      }
    }
  }
  return mdef;
}

Mdef Mdef::Load(const std::string& path) { return Parse(ReadFileText(path), path); }

// The table's layout depends on the file alone: its size on the triphone count (the header's, which
// Parse requires to be the rows'), its filling on the row order.
void Mdef::SizeTriphoneTable(std::size_t expected) {
  if (expected == 0) {
    tri_keys_.clear();
    tri_ids_.clear();
    tri_shift_ = 64;
    return;
  }
  unsigned bits = 1;
  while ((std::size_t(1) << bits) < 2 * expected) ++bits;
  tri_shift_ = 64 - bits;
  tri_keys_.assign(std::size_t(1) << bits, kNoKey);
  tri_ids_.assign(std::size_t(1) << bits, 0);
  tri_count_ = 0;
  for (std::uint32_t phone_id = n_base_; phone_id < phones_.size(); ++phone_id) {
    const MdefPhone& row = phones_[phone_id];
    InsertTriphone(TriphoneKey(row.base, row.left, row.right, row.posn), phone_id);
  }
}

bool Mdef::InsertTriphone(std::uint64_t key, std::uint32_t phone_id) {
  if (2 * (tri_count_ + 1) > tri_keys_.size()) SizeTriphoneTable(tri_count_ + 1);
  std::size_t slot = TriphoneSlot(key);
  for (; tri_keys_[slot] != kNoKey; slot = (slot + 1) & (tri_keys_.size() - 1)) {
    if (tri_keys_[slot] == key) return false;
  }
  tri_keys_[slot] = key;
  tri_ids_[slot] = phone_id;
  ++tri_count_;
  return true;
}

std::optional<std::uint32_t> Mdef::CiPhone(std::string_view name) const {
  return ci_index_.Find(name, [this](std::uint32_t ci) { return CiName(ci); });
}

std::optional<std::uint32_t> Mdef::Triphone(std::string_view base, std::string_view left, std::string_view right,
                                            WordPosition posn) const {
  const auto b = CiPhone(base), l = CiPhone(left), r = CiPhone(right);
  if (!b || !l || !r) return std::nullopt;
  return Triphone(*b, *l, *r, posn);
}

std::string Mdef::Serialize() const {
  std::string out;
  for (const std::string& comment : leading_comments_) out += comment + "\n";
  out += "0.3\n";
  out += std::to_string(n_base_) + " n_base\n";
  out += std::to_string(n_tri_) + " n_tri\n";
  out += std::to_string(n_state_map_) + " n_state_map\n";
  out += std::to_string(n_tied_state_) + " n_tied_state\n";
  out += std::to_string(n_tied_ci_state_) + " n_tied_ci_state\n";
  out += std::to_string(n_tied_tmat_) + " n_tied_tmat\n";
  out += "#\n# Columns definitions\n#base lft  rt p attrib tmat      ... state id's ...\n";
  // mk_mdef_gen's row: "%5s %3s %3s %1c %6s %4u", then " %4u" per state and "    N".
  out.reserve(out.size() + phones_.size() * (40 + 5 * std::size_t(n_emit_state_)));
  for (const MdefPhone& phone : phones_) {
    AppendRightAligned(out, Name(phone.base), 5);
    out += ' ';
    AppendRightAligned(out, Name(phone.left), 3);
    out += ' ';
    AppendRightAligned(out, Name(phone.right), 3);
    out += ' ';
    out += WordPositionLetter(phone.posn);
    out += ' ';
    AppendRightAligned(out, Attributes(phone), 6);
    out += ' ';
    AppendRightAligned(out, phone.tmat, 4);
    for (std::uint32_t senone : Senones(phone)) {
      out += ' ';
      AppendRightAligned(out, senone, 4);
    }
    out += "    N\n";
  }
  return out;
}

}  // namespace pstrain
