// The part of the C preprocessor the scope extractor needs, applied to one file's tokens:
//   - conditional compilation: `#if 0`, `#if 1`, `#if false`, `#ifdef X` for X defined in the
//     file, `!`, `&&`, `||`, comparisons and `defined` over those. A branch that is certainly not
//     compiled is removed (its tokens are kept aside, see `inactive`). A condition that depends on
//     something outside the file (`#ifdef NDEBUG`, `#if SOME_FLAG`) is not evaluated: every branch
//     is kept, and its tokens carry the condition (Token::condition) so reports can say so.
//   - object-like and function-like macros defined in the same file (`#`, `##`, `__VA_ARGS__`),
//     expanded where they are used, after their `#define` and before any `#undef`. Tokens produced
//     by an expansion carry the macro's name (Token::via_macro) and the invocation's line.
//     An invocation that cannot be expanded (wrong argument count, `__VA_OPT__`, an unterminated
//     argument list) is left as written with Token::unexpanded_macro set on all its tokens.
// Macros from included headers are unknown here; `#include` is ignored.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "scope/cpp_lexer.h"

namespace pstrain::audit {

// The limits that keep a hostile source from exhausting the stack, the memory or the time of
// `audit scope` (docs/audit.md, "audit scope: input limits"). Exceeding one is an error (exit 2), never a
// silently truncated report.
inline constexpr std::size_t kMaxNestingDepth = 256;         // brackets ({[ nested, #if expressions
inline constexpr int kMaxMacroExpansionDepth = 64;           // macros expanding macros
inline constexpr std::size_t kMaxExpandedTokens = 200000;    // tokens produced by macro expansion, per file

// A source that exceeds one of the limits above: thrown by Preprocess and the scope extractor,
// which turns it into an InputError naming the file and the line.
struct SourceLimitError : std::runtime_error {
  SourceLimitError(std::size_t line_number, const std::string& what) : std::runtime_error(what), line(line_number) {}
  std::size_t line;
};

struct Macro {
  std::string name;
  bool function_like = false;
  std::vector<std::string> params;
  bool variadic = false;
  std::vector<Token> body;
  std::size_t line = 0;
};

struct PreprocessedSource {
  std::vector<Token> tokens;    // the compiled code, file-local macros expanded
  std::vector<Token> inactive;  // tokens of branches that are certainly not compiled; Token::condition names the #if
  std::map<std::string, Macro> macros;  // every macro the file defines in compiled code (last definition)
  std::vector<std::string> notes;       // "LINE: what" for every construct that was not understood
};

PreprocessedSource Preprocess(const std::vector<Token>& tokens);

}  // namespace pstrain::audit
