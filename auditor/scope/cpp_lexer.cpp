#include "scope/cpp_lexer.h"

#include <array>
#include <cctype>

namespace pstrain::audit {

namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

bool IsStringPrefix(std::string_view word) {
  return word == "u8" || word == "u" || word == "U" || word == "L" || word == "R" || word == "u8R" || word == "uR" ||
         word == "UR" || word == "LR";
}
bool IsCharPrefix(std::string_view word) { return word == "u8" || word == "u" || word == "U" || word == "L"; }

// Longest punctuators first.
constexpr std::array<std::string_view, 27> kMultiCharPuncts = {
    "<=>", "...", "<<=", ">>=", "->*", "::", "->", "##", "++", "--", "<<", ">>", "<=", ">=",
    "==",  "!=",  "&&",  "||",  "+=",  "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*"};

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text) {}

  std::vector<Token> Run() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\n') {
        NewLine(true);
        ++i_;
        continue;
      }
      if (SkipSplice()) continue;
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        space_ = true;
        ++i_;
        continue;
      }
      if (c == '/' && Peek(1) == '/') {
        SkipLineComment();
        continue;
      }
      if (c == '/' && Peek(1) == '*') {
        SkipBlockComment();
        continue;
      }
      LexToken();
    }
    return std::move(tokens_);
  }

 private:
  char Peek(std::size_t k) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }

  void NewLine(bool logical) {
    ++line_;
    if (logical) {
      ++logical_line_;
      bol_ = true;
    }
    space_ = true;
  }

  // A backslash-newline joins two lines into one logical line.
  bool SkipSplice() {
    if (s_[i_] != '\\') return false;
    std::size_t k = i_ + 1;
    if (k < s_.size() && s_[k] == '\r') ++k;
    if (k < s_.size() && s_[k] == '\n') {
      i_ = k + 1;
      NewLine(false);
      return true;
    }
    return false;
  }

  void SkipLineComment() {
    while (i_ < s_.size() && s_[i_] != '\n') {
      if (!SkipSplice()) ++i_;
    }
    space_ = true;
  }

  void SkipBlockComment() {
    i_ += 2;
    while (i_ < s_.size() && !(s_[i_] == '*' && Peek(1) == '/')) {
      if (s_[i_] == '\n') ++line_;  // a comment does not end a logical line
      ++i_;
    }
    i_ = i_ < s_.size() ? i_ + 2 : s_.size();
    space_ = true;
  }

  Token Start() {
    Token t;
    t.line = line_;
    t.logical_line = logical_line_;
    t.bol = bol_;
    t.space_before = space_;
    bol_ = false;
    space_ = false;
    return t;
  }

  void LexToken() {
    Token t = Start();
    const std::size_t begin = i_;
    const char c = s_[i_];
    if (IsIdentStart(c)) {
      std::size_t j = i_;
      while (j < s_.size() && IsIdentChar(s_[j])) ++j;
      const std::string_view word = s_.substr(i_, j - i_);
      if (j < s_.size() && s_[j] == '"' && IsStringPrefix(word)) {
        LexString(t, j, word.back() == 'R');
        return;
      }
      if (j < s_.size() && s_[j] == '\'' && IsCharPrefix(word)) {
        LexQuoted(t, begin, '\'', TokenKind::kChar);
        return;
      }
      i_ = j;
      Finish(t, TokenKind::kIdentifier, begin);
      return;
    }
    if (c == '"') {
      LexString(t, i_, false);
      return;
    }
    if (c == '\'') {
      LexQuoted(t, i_, '\'', TokenKind::kChar);
      return;
    }
    if (IsDigit(c) || (c == '.' && IsDigit(Peek(1)))) {
      ++i_;
      while (i_ < s_.size()) {
        const char d = s_[i_];
        if ((d == '+' || d == '-') && (s_[i_ - 1] == 'e' || s_[i_ - 1] == 'E' || s_[i_ - 1] == 'p' || s_[i_ - 1] == 'P')) {
          ++i_;
        } else if (d == '\'' && i_ + 1 < s_.size() && IsIdentChar(s_[i_ + 1])) {
          i_ += 2;  // digit separator
        } else if (IsIdentChar(d) || d == '.') {
          ++i_;
        } else {
          break;
        }
      }
      Finish(t, TokenKind::kNumber, begin);
      return;
    }
    for (std::string_view punct : kMultiCharPuncts) {
      if (s_.substr(i_, punct.size()) == punct) {
        i_ += punct.size();
        Finish(t, TokenKind::kPunct, begin);
        return;
      }
    }
    ++i_;
    Finish(t, TokenKind::kPunct, begin);
  }

  void Finish(Token& t, TokenKind kind, std::size_t begin) {
    t.kind = kind;
    t.spelling = std::string(s_.substr(begin, i_ - begin));
    if (kind != TokenKind::kString && kind != TokenKind::kChar) t.value = t.spelling;
    tokens_.push_back(std::move(t));
  }

  // A string literal whose opening quote is at `quote` (the prefix, if any, starts at i_).
  void LexString(Token& t, std::size_t quote, bool raw) {
    const std::size_t begin = i_;
    if (!raw) {
      i_ = quote;
      LexQuoted(t, begin, '"', TokenKind::kString);
      return;
    }
    // R"delim( ... )delim"
    std::size_t j = quote + 1;
    while (j < s_.size() && s_[j] != '(' && s_[j] != '\n' && j - quote <= 17) ++j;
    if (j >= s_.size() || s_[j] != '(') {  // malformed: treat as an ordinary literal
      i_ = quote;
      LexQuoted(t, begin, '"', TokenKind::kString);
      return;
    }
    std::string close(1, ')');
    close.append(s_.substr(quote + 1, j - quote - 1));
    close.push_back('"');
    const std::size_t end = s_.find(close, j + 1);
    const std::size_t content_end = end == std::string_view::npos ? s_.size() : end;
    t.value = std::string(s_.substr(j + 1, content_end - j - 1));
    for (char ch : t.value) {
      if (ch == '\n') ++line_;
    }
    i_ = end == std::string_view::npos ? s_.size() : end + close.size();
    Finish(t, TokenKind::kString, begin);
  }

  // A quoted literal from `begin` (prefix included) whose opening quote is at i_ or after the prefix.
  void LexQuoted(Token& t, std::size_t begin, char quote, TokenKind kind) {
    std::size_t j = begin;
    while (j < s_.size() && s_[j] != quote) ++j;
    ++j;  // past the opening quote
    std::string value;
    while (j < s_.size() && s_[j] != quote && s_[j] != '\n') {
      if (s_[j] != '\\' || j + 1 >= s_.size()) {
        value += s_[j++];
        continue;
      }
      const char e = s_[j + 1];
      j += 2;
      switch (e) {
        case 'n': value += '\n'; break;
        case 't': value += '\t'; break;
        case 'r': value += '\r'; break;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
          int v = e - '0';
          for (int k = 0; k < 2 && j < s_.size() && s_[j] >= '0' && s_[j] <= '7'; ++k) v = v * 8 + (s_[j++] - '0');
          value += static_cast<char>(v);
          break;
        }
        case 'x': {
          int v = 0;
          while (j < s_.size() && HexValue(s_[j]) >= 0) v = v * 16 + HexValue(s_[j++]);
          value += static_cast<char>(v);
          break;
        }
        case '\n': ++line_; break;  // a splice inside a literal
        case 'a': value += '\a'; break;
        case 'b': value += '\b'; break;
        case 'f': value += '\f'; break;
        case 'v': value += '\v'; break;
        default: value += e; break;  // \\ \" \' \?
      }
    }
    if (j < s_.size() && s_[j] == quote) ++j;
    t.value = std::move(value);
    i_ = j;
    Finish(t, kind, begin);
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::size_t line_ = 1;
  std::size_t logical_line_ = 1;
  bool bol_ = true;
  bool space_ = false;
  std::vector<Token> tokens_;
};

bool Wordy(const Token& t) {
  return t.kind == TokenKind::kIdentifier || t.kind == TokenKind::kNumber || t.kind == TokenKind::kString ||
         t.kind == TokenKind::kChar;
}

}  // namespace

std::vector<Token> Lex(std::string_view text) { return Lexer(text).Run(); }

std::string JoinSpellings(const std::vector<Token>& tokens, std::size_t begin, std::size_t end) {
  std::string out;
  for (std::size_t k = begin; k < end && k < tokens.size(); ++k) {
    const Token& t = tokens[k];
    if (k > begin) {
      const Token& prev = tokens[k - 1];
      const bool tight = t.Is(",") || t.Is(")") || t.Is("]") || t.Is(".") || t.Is("->") || t.Is("::") ||
                         t.Is(";") || prev.Is("(") || prev.Is("[") || prev.Is(".") || prev.Is("->") ||
                         prev.Is("::") || prev.Is("!") || (t.Is("(") && Wordy(prev));
      if (!tight && (t.space_before || (Wordy(t) && Wordy(prev)) || prev.Is(","))) out += ' ';
    }
    out += t.spelling;
  }
  return out;
}

}  // namespace pstrain::audit
