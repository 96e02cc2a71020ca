#include "scope/cpp_preprocessor.h"

#include <cstdlib>
#include <optional>

namespace pstrain::audit {

namespace {

constexpr int kMaxExpansionDepth = kMaxMacroExpansionDepth;

using Value = std::optional<long long>;

// Evaluates an #if expression. Anything that depends on something outside the file (an identifier
// the file does not define, `__has_include`, a function-like macro) is unknown (nullopt).
class ConditionEvaluator {
 public:
  ConditionEvaluator(const std::vector<Token>& tokens, const std::map<std::string, Macro>& macros, int depth)
      : t_(tokens), macros_(macros), depth_(depth) {}

  Value Evaluate() {
    if (t_.empty()) return std::nullopt;
    const Value v = Or();
    return pos_ == t_.size() ? v : std::nullopt;
  }

 private:
  bool Accept(const char* punct) {
    if (pos_ < t_.size() && t_[pos_].Is(punct)) {
      ++pos_;
      return true;
    }
    return false;
  }

  Value Or() {
    Value l = And();
    while (Accept("||")) {
      const Value r = And();
      if ((l && *l != 0) || (r && *r != 0)) l = 1;
      else if (l && r) l = 0;
      else l = std::nullopt;
    }
    return l;
  }

  Value And() {
    Value l = Comparison();
    while (Accept("&&")) {
      const Value r = Comparison();
      if ((l && *l == 0) || (r && *r == 0)) l = 0;
      else if (l && r) l = 1;
      else l = std::nullopt;
    }
    return l;
  }

  Value Comparison() {
    Value l = Unary();
    for (;;) {
      const char* ops[] = {"==", "!=", "<=", ">=", "<", ">"};
      const char* matched = nullptr;
      for (const char* op : ops) {
        if (Accept(op)) {
          matched = op;
          break;
        }
      }
      if (matched == nullptr) return l;
      const Value r = Unary();
      if (!l || !r) {
        l = std::nullopt;
        continue;
      }
      const std::string op = matched;
      const bool result = op == "==" ? *l == *r : op == "!=" ? *l != *r : op == "<=" ? *l <= *r
                        : op == ">=" ? *l >= *r : op == "<"  ? *l < *r  : *l > *r;
      l = result ? 1 : 0;
    }
  }

  Value Unary() {
    // `!`, `-` and `(` recurse: bound the depth (`#if ((((...` or `#if !!!!...`).
    struct Guard {
      explicit Guard(ConditionEvaluator& e) : e_(e) {
        if (++e_.nesting_ > kMaxNestingDepth) {
          throw SourceLimitError(e_.t_.empty() ? 0 : e_.t_[0].line,
                                 "#if expression nested more than " + std::to_string(kMaxNestingDepth) + " deep");
        }
      }
      ~Guard() { --e_.nesting_; }
      ConditionEvaluator& e_;
    } guard(*this);
    if (Accept("!")) {
      const Value v = Unary();
      return v ? Value(*v == 0 ? 1 : 0) : std::nullopt;
    }
    if (Accept("-")) {
      const Value v = Unary();
      return v ? Value(-*v) : std::nullopt;
    }
    if (Accept("(")) {
      const Value v = Or();
      if (!Accept(")")) pos_ = t_.size() + 1;  // malformed: Evaluate() returns unknown
      return v;
    }
    if (pos_ >= t_.size()) return std::nullopt;
    const Token& t = t_[pos_++];
    if (t.kind == TokenKind::kNumber) {
      char* end = nullptr;
      const long long v = std::strtoll(t.spelling.c_str(), &end, 0);
      const std::string suffix = end ? std::string(end) : "";
      if (suffix.find_first_not_of("uUlL") != std::string::npos) return std::nullopt;
      return v;
    }
    if (!t.IsIdentifier()) return std::nullopt;
    if (t.spelling == "true") return 1;
    if (t.spelling == "false") return 0;
    if (t.spelling == "defined") {
      const bool paren = Accept("(");
      if (pos_ >= t_.size() || !t_[pos_].IsIdentifier()) return std::nullopt;
      const std::string name = t_[pos_++].spelling;
      if (paren && !Accept(")")) return std::nullopt;
      // Not defined in this file: it may still come from a header or the command line.
      return macros_.count(name) ? Value(1) : std::nullopt;
    }
    if (pos_ < t_.size() && t_[pos_].Is("(")) {  // a function-like macro or __has_include: skip it
      int depth = 0;
      for (; pos_ < t_.size(); ++pos_) {
        if (t_[pos_].Is("(")) ++depth;
        if (t_[pos_].Is(")") && --depth == 0) {
          ++pos_;
          break;
        }
      }
      return std::nullopt;
    }
    const auto it = macros_.find(t.spelling);
    if (it == macros_.end() || it->second.function_like || depth_ > kMaxExpansionDepth) return std::nullopt;
    return ConditionEvaluator(it->second.body, macros_, depth_ + 1).Evaluate();
  }

  const std::vector<Token>& t_;
  const std::map<std::string, Macro>& macros_;
  int depth_;
  std::size_t pos_ = 0;
  std::size_t nesting_ = 0;
};

// One #if/#elif/#else chain.
struct Branch {
  bool active = true;         // this branch is (or may be) compiled
  bool unknown = false;       // whether this branch is compiled was not determined
  bool taken = false;         // an earlier or this branch is certainly compiled
  bool chain_unknown = false;  // an earlier branch of the chain was not determined
  std::string head;           // "#if X", for messages
  std::string text;           // the current branch's directive, for messages
};

std::string EscapeForStringLiteral(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

class Preprocessor {
 public:
  explicit Preprocessor(const std::vector<Token>& in) : in_(in) {}

  PreprocessedSource Run() {
    for (std::size_t k = 0; k < in_.size();) {
      if (in_[k].Is("#") && in_[k].bol) {
        std::size_t end = k + 1;
        while (end < in_.size() && in_[end].logical_line == in_[k].logical_line && !in_[end].bol) ++end;
        Flush();
        Directive(k, end);
        k = end;
        continue;
      }
      Token t = in_[k++];
      if (Active()) {
        t.condition = UnknownLabel();
        run_.push_back(std::move(t));
      } else {
        t.condition = InactiveReason();
        out_.inactive.push_back(std::move(t));
      }
    }
    Flush();
    if (!stack_.empty()) Note(in_.empty() ? 0 : in_.back().line, "unterminated " + stack_.back().head);
    return std::move(out_);
  }

 private:
  void Note(std::size_t line, const std::string& what) { out_.notes.push_back(std::to_string(line) + ": " + what); }

  bool Active() const {
    for (const Branch& b : stack_) {
      if (!b.active) return false;
    }
    return true;
  }

  std::string UnknownLabel() const {
    std::string label;
    for (const Branch& b : stack_) {
      if (b.unknown) label += (label.empty() ? "" : " and ") + b.text;
    }
    return label;
  }

  std::string InactiveReason() const {
    for (const Branch& b : stack_) {
      if (!b.active) return b.text;
    }
    return "";
  }

  void Flush() {
    if (run_.empty()) return;
    std::set<std::string> disabled;
    std::vector<Token> expanded = Expand(run_, disabled, 0);
    for (Token& t : expanded) out_.tokens.push_back(std::move(t));
    run_.clear();
  }

  Value Evaluate(const std::vector<Token>& expr) const { return ConditionEvaluator(expr, out_.macros, 0).Evaluate(); }

  void Directive(std::size_t hash, std::size_t end) {
    if (hash + 1 >= end || !in_[hash + 1].IsIdentifier()) return;  // the null directive
    const std::string name = in_[hash + 1].spelling;
    const std::size_t line = in_[hash].line;
    const std::vector<Token> args(in_.begin() + static_cast<std::ptrdiff_t>(hash + 2),
                                  in_.begin() + static_cast<std::ptrdiff_t>(end));
    const std::string text = "#" + name + (args.empty() ? "" : " " + JoinSpellings(args));
    if (name == "if") {
      Push(Evaluate(args), text);
    } else if (name == "ifdef" || name == "ifndef") {
      Value v = std::nullopt;
      if (!args.empty() && out_.macros.count(args[0].spelling)) v = name == "ifdef" ? 1 : 0;
      Push(v, text);
    } else if (name == "elif" || name == "elifdef" || name == "elifndef" || name == "else") {
      if (stack_.empty()) {
        Note(line, text + " without #if");
        return;
      }
      Value v = 1;
      if (name == "elif") v = Evaluate(args);
      if (name == "elifdef" || name == "elifndef") {
        v = std::nullopt;
        if (!args.empty() && out_.macros.count(args[0].spelling)) v = name == "elifdef" ? 1 : 0;
      }
      Next(v, name == "else" ? "#else of " + stack_.back().head : text);
    } else if (name == "endif") {
      if (stack_.empty()) Note(line, "#endif without #if");
      else stack_.pop_back();
    } else if (name == "define" && Active()) {
      Define(args, line);
    } else if (name == "undef" && Active()) {
      if (!args.empty()) out_.macros.erase(args[0].spelling);
    }
  }

  void Push(Value v, const std::string& text) {
    Branch b;
    b.head = text;
    stack_.push_back(b);
    Next(v, text);
  }

  // Enters the next branch of the innermost chain, whose condition is `v`.
  void Next(Value v, const std::string& text) {
    Branch& b = stack_.back();
    b.chain_unknown = b.chain_unknown || b.unknown;
    if (b.taken) {
      b.active = false;
      b.unknown = false;
      b.text = text + " (an earlier branch is compiled)";
    } else if (v && *v == 0) {
      b.active = false;
      b.unknown = false;
      b.text = text;
    } else if (v && !b.chain_unknown) {
      b.active = true;
      b.unknown = false;
      b.taken = true;
      b.text = text;
    } else {
      b.active = true;
      b.unknown = true;
      b.text = text + " (not evaluated)";
    }
  }

  void Define(const std::vector<Token>& args, std::size_t line) {
    if (args.empty() || !args[0].IsIdentifier()) {
      Note(line, "#define without a name");
      return;
    }
    Macro m;
    m.name = args[0].spelling;
    m.line = line;
    std::size_t k = 1;
    if (args.size() > 1 && args[1].Is("(") && !args[1].space_before) {
      m.function_like = true;
      for (k = 2; k < args.size() && !args[k].Is(")"); ++k) {
        if (args[k].Is(",")) continue;
        if (args[k].Is("...")) {
          m.variadic = true;
        } else if (args[k].IsIdentifier()) {
          m.params.push_back(args[k].spelling);
        } else {
          Note(line, "macro " + m.name + ": parameter list not understood");
        }
      }
      ++k;  // past ')'
    }
    for (; k < args.size(); ++k) {
      Token t = args[k];
      t.bol = false;
      if (t.Is("##")) t.kind = TokenKind::kPaste;
      m.body.push_back(std::move(t));
    }
    out_.macros[m.name] = std::move(m);
  }

  // Copies of `tokens` as produced by expanding a macro invoked at `at`.
  static void Stamp(std::vector<Token>& tokens, const Token& at, const std::string& macro) {
    for (Token& t : tokens) {
      t.line = at.line;
      t.logical_line = at.logical_line;
      t.bol = false;
      t.condition = at.condition;
      t.via_macro = at.via_macro.empty() ? macro : at.via_macro;
    }
  }

  // Every token an expansion produces is counted (at each level of nesting, so the count bounds
  // every intermediate vector too): a macro bomb stops at kMaxExpandedTokens instead of
  // exhausting the memory.
  void Count(std::size_t tokens, const std::string& macro, std::size_t line) {
    expanded_tokens_ += tokens;
    if (expanded_tokens_ > kMaxExpandedTokens) {
      throw SourceLimitError(line, "macro " + macro + ": macro expansion produces more than " +
                                       std::to_string(kMaxExpandedTokens) + " tokens in this file");
    }
  }

  void Append(std::vector<Token>& out, std::vector<Token>&& expansion, const std::string& macro, std::size_t line) {
    Count(expansion.size(), macro, line);
    for (Token& e : expansion) out.push_back(std::move(e));
  }

  std::vector<Token> Expand(const std::vector<Token>& in, std::set<std::string>& disabled, int depth) {
    std::vector<Token> out;
    for (std::size_t i = 0; i < in.size();) {
      const Token& t = in[i];
      const auto it = t.IsIdentifier() && t.unexpanded_macro.empty() ? out_.macros.find(t.spelling) : out_.macros.end();
      if (it == out_.macros.end() || disabled.count(t.spelling)) {
        out.push_back(t);
        ++i;
        continue;
      }
      const Macro& m = it->second;
      if (depth >= kMaxExpansionDepth) {
        throw SourceLimitError(t.line, "macro " + m.name + ": macro expansion nested more than " +
                                           std::to_string(kMaxExpansionDepth) + " deep");
      }
      if (!m.function_like) {
        std::vector<Token> body = m.body;
        Stamp(body, t, m.name);
        disabled.insert(m.name);
        Append(out, Expand(body, disabled, depth + 1), m.name, t.line);
        disabled.erase(m.name);
        ++i;
        continue;
      }
      if (i + 1 >= in.size() || !in[i + 1].Is("(")) {  // the name alone is not an invocation
        out.push_back(t);
        ++i;
        continue;
      }
      // The arguments: only parentheses group (as in the real preprocessor, braces do not).
      std::vector<std::vector<Token>> args(1);
      int nesting = 0;
      std::size_t j = i + 2;
      bool closed = false;
      for (; j < in.size(); ++j) {
        const Token& a = in[j];
        if (a.Is("(")) ++nesting;
        if (a.Is(")")) {
          if (nesting == 0) {
            closed = true;
            break;
          }
          --nesting;
        }
        if (a.Is(",") && nesting == 0) {
          args.emplace_back();
          continue;
        }
        args.back().push_back(a);
      }
      std::string error = closed ? "" : "argument list not closed before the next directive or the end of the file";
      std::vector<Token> body;
      if (error.empty()) body = Substitute(m, args, t, disabled, depth, error);
      const std::size_t last = closed ? j : in.size() - 1;
      if (!error.empty()) {
        Note(t.line, "macro " + m.name + ": " + error + "; not expanded");
        for (std::size_t k = i; k <= last; ++k) {
          out.push_back(in[k]);
          out.back().unexpanded_macro = m.name;
        }
        i = last + 1;
        continue;
      }
      disabled.insert(m.name);
      Append(out, Expand(body, disabled, depth + 1), m.name, t.line);
      disabled.erase(m.name);
      i = last + 1;
    }
    return out;
  }

  std::vector<Token> Substitute(const Macro& m, const std::vector<std::vector<Token>>& raw_args, const Token& at,
                                std::set<std::string>& disabled, int depth, std::string& error) {
    std::vector<std::vector<Token>> args = raw_args;
    if (args.size() == 1 && args[0].empty() && m.params.empty()) args.clear();  // F()
    const std::size_t named = m.params.size();
    if (m.variadic ? args.size() < named : args.size() != named) {
      error = "expects " + std::to_string(named) + (m.variadic ? " or more" : "") + " arguments, got " +
              std::to_string(args.size());
      return {};
    }
    std::vector<Token> va;
    for (std::size_t k = named; k < args.size(); ++k) {
      if (k > named) {
        Token comma;
        comma.kind = TokenKind::kPunct;
        comma.spelling = comma.value = ",";
        va.push_back(comma);
      }
      for (const Token& t : args[k]) va.push_back(t);
    }
    // The raw argument for a parameter name, or nullptr.
    auto raw_for = [&](const Token& t) -> const std::vector<Token>* {
      if (!t.IsIdentifier()) return nullptr;
      if (m.variadic && t.spelling == "__VA_ARGS__") return &va;
      for (std::size_t k = 0; k < named; ++k) {
        if (m.params[k] == t.spelling) return &args[k];
      }
      return nullptr;
    };

    std::vector<Token> out;
    const std::vector<Token>& body = m.body;
    for (std::size_t k = 0; k < body.size(); ++k) {
      const Token& b = body[k];
      if (b.IsIdentifier() && b.spelling == "__VA_OPT__") {
        error = "__VA_OPT__ is not supported by the auditor";
        return {};
      }
      if (b.Is("#") && k + 1 < body.size() && raw_for(body[k + 1])) {
        const std::string text = JoinSpellings(*raw_for(body[k + 1]));
        Token s;
        s.kind = TokenKind::kString;
        s.spelling = "\"" + EscapeForStringLiteral(text) + "\"";
        s.value = text;
        s.space_before = b.space_before;
        out.push_back(std::move(s));
        ++k;
        continue;
      }
      const std::vector<Token>* raw = raw_for(b);
      if (raw == nullptr) {
        out.push_back(b);
        continue;
      }
      const bool pasted = (k > 0 && body[k - 1].kind == TokenKind::kPaste) ||
                          (k + 1 < body.size() && body[k + 1].kind == TokenKind::kPaste);
      if (pasted) {
        if (raw->empty()) {
          Token placemarker;  // an empty argument next to ##
          placemarker.kind = TokenKind::kPunct;
          placemarker.value = b.spelling;
          out.push_back(placemarker);
        }
        for (const Token& t : *raw) out.push_back(t);
      } else {
        std::vector<Token> expanded = Expand(*raw, disabled, depth + 1);
        Count(expanded.size(), m.name, at.line);
        for (std::size_t e = 0; e < expanded.size(); ++e) {
          if (e == 0) expanded[e].space_before = b.space_before;
          out.push_back(std::move(expanded[e]));
        }
      }
    }
    // Resolve ## left to right.
    std::vector<Token> pasted;
    for (std::size_t k = 0; k < out.size(); ++k) {
      if (out[k].kind != TokenKind::kPaste) {
        pasted.push_back(std::move(out[k]));
        continue;
      }
      if (pasted.empty() || k + 1 >= out.size()) continue;
      Token right = std::move(out[++k]);
      Token left = std::move(pasted.back());
      pasted.pop_back();
      if (right.spelling.empty() && right.kind == TokenKind::kPunct) {
        // `, ## __VA_ARGS__` with no variadic arguments drops the comma (the GNU extension).
        if (!(left.Is(",") && right.value == "__VA_ARGS__")) pasted.push_back(std::move(left));
        continue;
      }
      if (left.spelling.empty() && left.kind == TokenKind::kPunct) {
        pasted.push_back(std::move(right));
        continue;
      }
      const std::vector<Token> joined = Lex(left.spelling + right.spelling);
      if (joined.size() != 1) {
        error = "'" + left.spelling + " ## " + right.spelling + "' does not form one token";
        return {};
      }
      Token t = joined[0];
      t.space_before = left.space_before;
      pasted.push_back(std::move(t));
    }
    std::vector<Token> result;
    for (Token& t : pasted) {
      if (t.spelling.empty() && t.kind == TokenKind::kPunct) continue;  // leftover placemarkers
      result.push_back(std::move(t));
    }
    Stamp(result, at, m.name);
    return result;
  }

  const std::vector<Token>& in_;
  PreprocessedSource out_;
  std::vector<Branch> stack_;
  std::vector<Token> run_;
  std::size_t expanded_tokens_ = 0;
};

}  // namespace

PreprocessedSource Preprocess(const std::vector<Token>& tokens) { return Preprocessor(tokens).Run(); }

}  // namespace pstrain::audit
