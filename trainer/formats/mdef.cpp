// Parsing text model definition files (mdef "0.3").
#include "formats/mdef.h"

#include <cstdio>
#include <sstream>

#include "common/error.h"
#include "common/file_io.h"

namespace pstrain {

namespace {

std::vector<std::string> SplitWhitespace(const std::string& line) {
  std::vector<std::string> tokens;
  std::istringstream in(line);
  std::string token;
  while (in >> token) tokens.push_back(token);
  return tokens;
}

bool ParseUnsigned(const std::string& token, std::uint32_t& out) {
  if (token.empty() || token.size() > 9) return false;
  std::uint32_t value = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<std::uint32_t>(c - '0');
  }
  out = value;
  return true;
}

WordPosition ParsePosition(const std::string& token, const std::string& path, std::size_t line_no) {
  if (token == "b") return WordPosition::kBegin;
  if (token == "e") return WordPosition::kEnd;
  if (token == "s") return WordPosition::kSingle;
  if (token == "i") return WordPosition::kInternal;
  if (token == "-") return WordPosition::kNone;
  throw RecordError(path, line_no, "unknown word position " + Quoted(token) + " (expected b, e, s, i or -)");
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
  std::istringstream in(text);
  std::string line;
  std::size_t line_no = 0;
  bool seen_version = false;
  // Count lines: "<value> <key>".
  const char* const kCountKeys[] = {"n_base", "n_tri", "n_state_map", "n_tied_state", "n_tied_ci_state", "n_tied_tmat"};
  std::uint32_t* const count_fields[] = {&mdef.n_base_, &mdef.n_tri_, &mdef.n_state_map_, &mdef.n_tied_state_,
                                         &mdef.n_tied_ci_state_, &mdef.n_tied_tmat_};
  std::size_t counts_read = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') throw RecordError(path, line_no, "CRLF line ending (mdef must use LF)");
    std::vector<std::string> tokens = SplitWhitespace(line);
    if (tokens.empty()) continue;
    if (tokens[0][0] == '#') {
      if (!seen_version) mdef.leading_comments_.push_back(line);
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
      continue;
    }
    // A phone row: base left right posn attrib tmat senone... N
    if (tokens.size() < 8) throw RecordError(path, line_no, "phone row has too few columns");
    MdefPhone phone;
    phone.base = tokens[0];
    phone.left = tokens[1];
    phone.right = tokens[2];
    phone.posn = ParsePosition(tokens[3], path, line_no);
    phone.attributes = tokens[4];
    phone.is_filler = (("," + tokens[4] + ",").find(",filler,") != std::string::npos);
    if (!ParseUnsigned(tokens[5], phone.tmat)) throw RecordError(path, line_no, "bad tmat id " + Quoted(tokens[5]));
    std::size_t col = 6;
    for (; col < tokens.size() && tokens[col][0] != 'N'; ++col) {
      std::uint32_t senone;
      if (!ParseUnsigned(tokens[col], senone)) throw RecordError(path, line_no, "bad senone id " + Quoted(tokens[col]));
      phone.senones.push_back(senone);
    }
    if (col != tokens.size() - 1) throw RecordError(path, line_no, "a phone row must end with exactly one non-emitting state \"N\"");
    if (phone.senones.empty()) throw RecordError(path, line_no, "phone has no emitting states");
    if (mdef.phones_.empty()) mdef.n_emit_state_ = static_cast<std::uint32_t>(phone.senones.size());
    if (phone.senones.size() != mdef.n_emit_state_) {
      throw RecordError(path, line_no, "phone has " + std::to_string(phone.senones.size()) +
                                           " emitting states but earlier phones have " + std::to_string(mdef.n_emit_state_));
    }
    const bool is_ci = mdef.phones_.size() < mdef.n_base_;
    if (is_ci) {
      if (phone.left != "-" || phone.right != "-" || phone.posn != WordPosition::kNone) {
        throw RecordError(path, line_no, "CI phone " + Quoted(phone.base) + " must have '-' contexts and position (CI phones come first)");
      }
      if (mdef.phones_.size() >= kMaxCiPhones) {
        throw RecordError(path, line_no, "more than " + std::to_string(kMaxCiPhones) + " CI phones");
      }
      if (!mdef.ci_index_.emplace(phone.base, static_cast<std::uint32_t>(mdef.phones_.size())).second) {
        throw RecordError(path, line_no, "CI phone " + Quoted(phone.base) + " is defined twice");
      }
    } else {
      for (const std::string* name : {&phone.base, &phone.left, &phone.right}) {
        if (!mdef.ci_index_.count(*name)) {
          throw RecordError(path, line_no, "triphone uses phone " + Quoted(*name) + " which is not a defined CI phone");
        }
      }
      if (phone.posn == WordPosition::kNone) throw RecordError(path, line_no, "triphone has no word position");
      const auto key = TriphoneKey(mdef.ci_index_.at(phone.base), mdef.ci_index_.at(phone.left), mdef.ci_index_.at(phone.right), phone.posn);
      if (!mdef.tri_index_.emplace(key, static_cast<std::uint32_t>(mdef.phones_.size())).second) {
        throw RecordError(path, line_no, "triphone is defined twice");
      }
    }
    for (std::uint32_t senone : phone.senones) {
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
    mdef.phones_.push_back(std::move(phone));
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
    std::uint32_t ci = mdef.ci_index_.at(phone.base);
    for (std::uint32_t senone : phone.senones) {
      if (!seen[senone]) {
        seen[senone] = true;
        mdef.senone_ci_phone_[senone] = ci;
      }
    }
  }
  return mdef;
}

Mdef Mdef::Load(const std::string& path) { return Parse(ReadFileText(path), path); }

std::optional<std::uint32_t> Mdef::CiPhone(const std::string& name) const {
  auto it = ci_index_.find(name);
  if (it == ci_index_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::uint32_t> Mdef::Triphone(const std::string& base, const std::string& left, const std::string& right,
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
  char buffer[64];
  for (const MdefPhone& phone : phones_) {
    std::snprintf(buffer, sizeof(buffer), "%5s %3s %3s %1c %6s %4u", phone.base.c_str(), phone.left.c_str(),
                  phone.right.c_str(), WordPositionLetter(phone.posn), phone.attributes.c_str(), phone.tmat);
    out += buffer;
    for (std::uint32_t senone : phone.senones) {
      std::snprintf(buffer, sizeof(buffer), " %4u", senone);
      out += buffer;
    }
    out += "    N\n";
  }
  return out;
}

}  // namespace pstrain
