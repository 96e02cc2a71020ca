// A C++ tokenizer for the auditor: enough of the language to read gate sources mechanically,
// without a compiler. Comments are dropped; string and character literals (with encoding prefixes,
// escapes and raw strings) and numbers (with digit separators) are single tokens, so nothing
// inside them is ever mistaken for code or for a brace.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pstrain::audit {

enum class TokenKind {
  kIdentifier,  // identifiers and keywords
  kNumber,      // a preprocessing number (1, 0x1F, 1'000, 1e-5, 2.0f)
  kString,      // a string literal ("..", u8"..", R"d(..)d")
  kChar,        // a character literal ('a', L'\n')
  kPunct,       // an operator or punctuator (`::`, `->`, `##`, `...` are single tokens)
  kPaste,       // internal: a `##` in a macro body, resolved during expansion
};

struct Token {
  TokenKind kind = TokenKind::kPunct;
  std::string spelling;  // as written (string literals with prefix and quotes)
  std::string value;     // string literals: the decoded contents; other tokens: the spelling
  std::size_t line = 0;  // 1-based physical line where the token starts
  std::size_t logical_line = 0;  // lines joined by backslash-newline count as one
  bool bol = false;              // first token of its logical line (where `#` starts a directive)
  bool space_before = false;     // whitespace or a comment precedes it (function-like #define)
  // Set by the preprocessor (cpp_preprocessor.h):
  std::string via_macro;  // the outermost file-local macro whose expansion produced the token
  std::string condition;  // an #if around the token that the auditor could not evaluate
  std::string unexpanded_macro;  // a file-local macro invocation that could not be expanded

  bool Is(std::string_view punct_or_word) const {
    return (kind == TokenKind::kPunct || kind == TokenKind::kIdentifier) && spelling == punct_or_word;
  }
  bool IsIdentifier() const { return kind == TokenKind::kIdentifier; }
};

// Tokenizes a whole source file. Never throws: an unterminated literal or comment ends at the end
// of its line or of the text.
std::vector<Token> Lex(std::string_view text);

// The source text of tokens[begin, end), single-spaced where the tokens were separated.
std::string JoinSpellings(const std::vector<Token>& tokens, std::size_t begin, std::size_t end);
inline std::string JoinSpellings(const std::vector<Token>& tokens) { return JoinSpellings(tokens, 0, tokens.size()); }

}  // namespace pstrain::audit
