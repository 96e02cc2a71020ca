#include "scope/scope_extractor.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <set>
#include <system_error>

#include "common/error.h"
#include "common/file_io.h"
#include "scope/cpp_lexer.h"
#include "scope/cpp_preprocessor.h"

namespace pstrain::audit {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

bool IsKnownHelper(const std::string& name) {
  static const std::set<std::string> kHelpers = {
      "ExpectProducedFilesIdentical", "ExpectCopiedInputsIdentical", "ExpectJsonFieldsEqual",
      "ExpectProvenanceField",        "ExpectRejected",              "ExpectWithin"};
  return kHelpers.count(name) > 0;
}

bool LooksLikeHelper(const std::string& name) {
  return name.size() > 6 && name.compare(0, 6, "Expect") == 0 && std::isupper(static_cast<unsigned char>(name[6]));
}

bool IsTestMacro(const std::string& name) {
  return name == "TEST" || name == "TEST_F" || name == "TEST_P" || name == "TYPED_TEST" || name == "TYPED_TEST_P";
}

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool IsAllCapsName(const std::string& s) {
  if (s.size() < 2 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  bool letter = false;
  for (char c : s) {
    if (std::isupper(static_cast<unsigned char>(c))) letter = true;
    else if (!std::isdigit(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return letter;
}

// GoogleTest/GoogleMock and standard macros whose arguments are ordinary, evaluated code.
bool IsKnownExternalMacro(const std::string& s) {
  static const char* kPrefixes[] = {"ASSERT_", "EXPECT_", "GTEST_", "GMOCK_", "TEST", "TYPED_TEST", "INSTANTIATE_",
                                    "MOCK_", "REGISTER_TYPED_TEST", "ON_CALL"};
  for (const char* p : kPrefixes) {
    if (StartsWith(s, p)) return true;
  }
  static const std::set<std::string> kExact = {"FAIL",     "SUCCEED",  "ADD_FAILURE", "ADD_FAILURE_AT", "SCOPED_TRACE",
                                               "INT8_C",   "INT16_C",  "INT32_C",     "INT64_C",        "UINT8_C",
                                               "UINT16_C", "UINT32_C", "UINT64_C",    "INTMAX_C",       "UINTMAX_C"};
  return kExact.count(s) > 0;
}

bool IsBareAssertion(const std::string& s) { return StartsWith(s, "ASSERT_") || StartsWith(s, "EXPECT_"); }

std::string StripIntegerSuffix(const std::string& number) {
  std::string s = number;
  while (!s.empty() && (s.back() == 'u' || s.back() == 'U' || s.back() == 'l' || s.back() == 'L')) s.pop_back();
  return s.empty() ? number : s;
}

struct Function {
  std::string name;
  std::string owner;  // the class it is a member of ("" for a free function)
  std::size_t open = 0, close = 0;
};

struct TestSite {
  std::string macro, suite, name;
  std::size_t line = 0, open = 0, close = 0;
};

// What a body (a test's or a function's) contributes, in source order.
struct BodyResult {
  std::vector<Declaration> declarations;
  std::vector<Check> checks;
  std::vector<NotCounted> not_counted;
  std::size_t bare_assertions = 0;
};

class FileExtractor {
 public:
  FileExtractor(std::string display_path, std::string_view source)
      : pp_(Preprocess(Lex(source))), t_(pp_.tokens) {
    scope_.path = std::move(display_path);
  }

  FileScope Run() {
    ComputeMatches();
    WalkScope(0, t_.size(), "");
    for (const std::string& note : pp_.notes) scope_.notes.push_back(note);
    std::set<std::string> called;  // functions reached from some test
    for (const TestSite& site : tests_) {
      GateScope gate;
      gate.file = scope_.path;
      gate.line = site.line;
      gate.macro = site.macro;
      gate.suite = site.suite;
      gate.name = site.name;
      // TEST_F/TEST_P/TYPED_TEST*: the fixture's Gate members are constructed, and its constructor,
      // SetUp() and TearDown() run, for every test of the fixture.
      const std::string fixture = site.macro == "TEST" ? "" : site.suite;
      BodyResult body = AnalyzeBody(site.open, site.close, true, called, member_gate_vars_[fixture]);
      gate.declarations = member_declarations_[fixture];
      for (Declaration& d : body.declarations) gate.declarations.push_back(std::move(d));
      auto add_fixture_calls = [&](const char* which) {
        const std::string name = std::string(which).empty() ? fixture : which;
        const FunctionResult via = FunctionChecks(name, called, fixture);
        if (via.checks.empty() && via.not_counted.empty()) return;
        called.insert(fixture + "::" + name);
        for (const Check& c : via.checks) gate.checks.push_back(c);
        for (const NotCounted& n : via.not_counted) gate.not_counted.push_back(n);
      };
      if (!fixture.empty()) {
        add_fixture_calls("");  // constructor and destructor
        add_fixture_calls("SetUp");
      }
      for (Check& c : body.checks) gate.checks.push_back(std::move(c));
      for (NotCounted& n : body.not_counted) gate.not_counted.push_back(std::move(n));
      if (!fixture.empty()) add_fixture_calls("TearDown");
      gate.bare_assertions = body.bare_assertions;
      AddInactive(gate.not_counted, t_[site.open].line, t_[site.close].line);
      // A function called twice reports what it does not count once.
      std::vector<NotCounted> unique;
      for (NotCounted& n : gate.not_counted) {
        const bool seen = std::any_of(unique.begin(), unique.end(), [&](const NotCounted& u) {
          return u.line == n.line && u.what == n.what && u.reason == n.reason;
        });
        if (!seen) unique.push_back(std::move(n));
      }
      gate.not_counted = std::move(unique);
      scope_.gates.push_back(std::move(gate));
    }
    Unattributed(called);
    return std::move(scope_);
  }

 private:
  // ---- structure -------------------------------------------------------------------------------

  void ComputeMatches() {
    match_.assign(t_.size(), kNone);
    std::vector<std::size_t> open;
    for (std::size_t k = 0; k < t_.size(); ++k) {
      const Token& t = t_[k];
      if (t.Is("(") || t.Is("[") || t.Is("{")) {
        // The walk below recurses once per nested scope: bound the depth instead of the stack.
        if (open.size() >= kMaxNestingDepth) {
          throw SourceLimitError(t.line, "brackets nested more than " + std::to_string(kMaxNestingDepth) +
                                             " deep (namespaces, classes, blocks, parentheses); the auditor reads at most " +
                                             std::to_string(kMaxNestingDepth) + " levels");
        }
        open.push_back(k);
        continue;
      }
      const char* opener = t.Is(")") ? "(" : t.Is("]") ? "[" : t.Is("}") ? "{" : nullptr;
      if (opener == nullptr) continue;
      auto it = std::find_if(open.rbegin(), open.rend(), [&](std::size_t o) { return t_[o].Is(opener); });
      if (it == open.rend()) continue;  // an unmatched closer
      const std::size_t o = *it;
      open.erase(std::next(it).base(), open.end());
      match_[o] = k;
      match_[k] = o;
    }
  }

  bool Opener(std::size_t k) const { return t_[k].Is("(") || t_[k].Is("[") || t_[k].Is("{"); }
  // Past a bracketed group starting at k (its closer), or k itself.
  std::size_t Skip(std::size_t k) const { return Opener(k) && match_[k] != kNone ? match_[k] : k; }

  // The top-level comma-separated ranges of tokens (begin, end).
  std::vector<std::pair<std::size_t, std::size_t>> Split(std::size_t begin, std::size_t end) const {
    std::vector<std::pair<std::size_t, std::size_t>> parts;
    if (begin >= end) return parts;
    std::size_t start = begin;
    for (std::size_t k = begin; k < end; ++k) {
      if (t_[k].Is(",")) {
        parts.emplace_back(start, k);
        start = k + 1;
        continue;
      }
      k = std::min(Skip(k), end);
    }
    parts.emplace_back(start, end);
    return parts;
  }

  enum class BlockKind { kScope, kFunction, kOther };

  // What the block opening at `brace` is; `name` gets the function's or the class's name, `owner`
  // the class of an out-of-class member definition (`void Fixture::SetUp() {`).
  BlockKind Classify(std::size_t scope_begin, std::size_t brace, std::string& name, std::string& owner) const {
    std::size_t h = brace;
    while (h > scope_begin) {
      const Token& p = t_[h - 1];
      if (p.Is(";") || p.Is("{") || p.Is("}")) break;
      if ((p.Is(")") || p.Is("]")) && match_[h - 1] != kNone && match_[h - 1] >= scope_begin) {
        h = match_[h - 1];
        continue;
      }
      --h;
    }
    bool has_class = false;
    for (std::size_t k = h; k < brace; k = Skip(k) + 1) {
      const Token& t = t_[k];
      if (t.Is("namespace")) return BlockKind::kScope;
      if (t.Is("extern") && k + 1 < brace && t_[k + 1].kind == TokenKind::kString) return BlockKind::kScope;
      if (t.Is("enum")) return BlockKind::kOther;
      if (t.Is("=") && !(k > h && t_[k - 1].Is("operator"))) return BlockKind::kOther;
      if ((t.Is("class") || t.Is("struct") || t.Is("union")) && !has_class) {
        has_class = true;
        if (k + 1 < brace && t_[k + 1].IsIdentifier()) name = t_[k + 1].spelling;
      }
    }
    static const std::set<std::string> kNotNames = {"alignas", "__attribute__", "__declspec", "decltype", "noexcept",
                                                    "requires", "if", "for", "while", "switch", "catch", "sizeof"};
    for (std::size_t k = h; k < brace; ++k) {
      if (t_[k].Is("(") && k > h && t_[k - 1].IsIdentifier() && !kNotNames.count(t_[k - 1].spelling)) {
        name = t_[k - 1].spelling;
        std::size_t q = k - 1;
        if (q > h && t_[q - 1].Is("~")) --q;
        if (q >= h + 2 && t_[q - 1].Is("::") && t_[q - 2].IsIdentifier()) owner = t_[q - 2].spelling;
        return BlockKind::kFunction;
      }
      k = Skip(k);
    }
    return has_class ? BlockKind::kScope : BlockKind::kOther;
  }

  // Finds tests, functions and (in a class body, `owner`) member Gate declarations.
  void WalkScope(std::size_t begin, std::size_t end, const std::string& owner) {
    for (std::size_t k = begin; k < end; ++k) {
      const Token& t = t_[k];
      std::string variable;
      const std::size_t member_decl = owner.empty() ? kNone : DeclarationAt(k, end, variable);
      if (member_decl != kNone && match_[member_decl] != kNone) {
        Declaration d = MakeDeclaration(member_decl, variable);
        d.variable = owner + "::" + variable;
        member_declarations_[owner].push_back(std::move(d));
        member_gate_vars_[owner].insert(variable);
        k = match_[member_decl];
        continue;
      }
      if (t.IsIdentifier() && IsTestMacro(t.spelling) && k + 1 < end && t_[k + 1].Is("(") && match_[k + 1] != kNone) {
        const std::size_t close = match_[k + 1];
        if (close + 1 < end && t_[close + 1].Is("{") && match_[close + 1] != kNone) {
          TestSite site;
          site.macro = t.spelling;
          site.line = t.line;
          const auto args = Split(k + 2, close);
          if (!args.empty()) site.suite = JoinSpellings(t_, args[0].first, args[0].second);
          if (args.size() > 1) site.name = JoinSpellings(t_, args[1].first, args[1].second);
          site.open = close + 1;
          site.close = match_[close + 1];
          tests_.push_back(site);
          k = site.close;
          continue;
        }
      }
      if (t.Is("{") && match_[k] != kNone) {
        std::string name, explicit_owner;
        const BlockKind kind = Classify(begin, k, name, explicit_owner);
        if (kind == BlockKind::kScope) WalkScope(k + 1, match_[k], name);
        if (kind == BlockKind::kFunction) {
          functions_.push_back({name, explicit_owner.empty() ? owner : explicit_owner, k, match_[k]});
          covered_.emplace_back(k, match_[k]);
        }
        k = match_[k];
        continue;
      }
      if (t.Is("(") || t.Is("[")) k = std::min(Skip(k), end);
    }
  }

  // ---- values ----------------------------------------------------------------------------------

  SourceValue Value(std::size_t begin, std::size_t end) const {
    if (begin >= end) return SourceValue::Expression("");
    bool all_strings = true;
    std::string joined;
    for (std::size_t k = begin; k < end; ++k) {
      if (t_[k].kind != TokenKind::kString) all_strings = false;
      else joined += t_[k].value;
    }
    if (all_strings) return SourceValue::Literal(joined);
    if (end - begin == 1 && t_[begin].kind == TokenKind::kNumber) return SourceValue::Literal(StripIntegerSuffix(t_[begin].spelling));
    return SourceValue::Expression(JoinSpellings(t_, begin, end));
  }

  // A braced list, possibly after a type (`std::vector<std::string>{...}`), or an expression.
  ValueList List(std::size_t begin, std::size_t end) const {
    ValueList list;
    if (begin < end && t_[end - 1].Is("}") && match_[end - 1] != kNone && match_[end - 1] >= begin) {
      const std::size_t open = match_[end - 1];
      bool type_prefix = true;
      for (std::size_t k = begin; k < open; ++k) {
        const Token& t = t_[k];
        if (!(t.IsIdentifier() || t.Is("::") || t.Is("<") || t.Is(">") || t.Is(">>") || t.Is(","))) type_prefix = false;
      }
      if (type_prefix) {
        list.braced = true;
        for (const auto& [b, e] : Split(open + 1, end - 1)) {
          if (b < e) list.items.push_back(Value(b, e));
        }
        return list;
      }
    }
    list.expression = JoinSpellings(t_, begin, end);
    return list;
  }

  Check MakeCheck(std::size_t dot, std::size_t open) const {
    Check c;
    c.helper = t_[dot + 1].spelling;
    c.line = t_[dot + 1].line;
    c.receiver = dot > 0 ? (t_[dot - 1].IsIdentifier() ? t_[dot - 1].spelling : "(expression)") : "";
    c.via_macro = t_[dot + 1].via_macro;
    c.condition = t_[dot + 1].condition;
    const std::size_t close = match_[open];
    c.arguments = JoinSpellings(t_, open + 1, close);
    const auto args = Split(open + 1, close);
    auto arg_value = [&](std::size_t i) { return Value(args[i].first, args[i].second); };
    const std::string& h = c.helper;
    if ((h == "ExpectProducedFilesIdentical" || h == "ExpectCopiedInputsIdentical" || h == "ExpectJsonFieldsEqual") &&
        args.size() == 3) {
      c.subjects = List(args[2].first, args[2].second);
    } else if (h == "ExpectProvenanceField" && args.size() == 4) {
      c.subjects.braced = true;
      c.subjects.items.push_back(arg_value(2));
      // FieldRelation::kDifferent -> "different", as the kit records it.
      const std::string relation = args[3].second > args[3].first ? t_[args[3].second - 1].spelling : "";
      static const std::map<std::string, std::string> kRelations = {
          {"kPresent", "present"}, {"kEqual", "equal"}, {"kDifferent", "different"}};
      const auto it = kRelations.find(relation);
      c.subjects.items.push_back(it != kRelations.end() ? SourceValue::Literal(it->second) : arg_value(3));
    } else if (h == "ExpectRejected" && args.size() == 4) {
      c.subjects.braced = true;
      c.subjects.items = {arg_value(0), arg_value(3)};
    } else if (h == "ExpectWithin" && args.size() == 5) {
      c.subjects.braced = true;
      c.subjects.items = {arg_value(0)};
      c.parameters = {{"rtol", arg_value(3)}, {"atol", arg_value(4)}};
    }
    return c;
  }

  // `Gate gate({...})`, `Gate gate{{...}}`, `auto gate = Gate({...})`: the index of the argument's
  // opening bracket and the variable, or kNone.
  std::size_t DeclarationAt(std::size_t k, std::size_t end, std::string& variable) const {
    if (!t_[k].Is("Gate") || (k > 0 && (t_[k - 1].Is(".") || t_[k - 1].Is("->")))) return kNone;
    if (k + 2 < end && t_[k + 1].IsIdentifier() && (t_[k + 2].Is("(") || t_[k + 2].Is("{"))) {
      variable = t_[k + 1].spelling;
      return k + 2;
    }
    if (k >= 2 && t_[k - 1].Is("=") && t_[k - 2].IsIdentifier() && k + 1 < end && (t_[k + 1].Is("(") || t_[k + 1].Is("{"))) {
      variable = t_[k - 2].spelling;
      return k + 1;
    }
    return kNone;
  }

  Declaration MakeDeclaration(std::size_t open, const std::string& variable) const {
    Declaration d;
    d.line = t_[open].line;
    d.variable = variable;
    const std::size_t close = match_[open];
    d.argument = JoinSpellings(t_, open + 1, close);
    // The braced initializer: the whole argument (after an optional type name), or `{...}` itself
    // for `Gate gate{...}` whose single element is the braced declaration.
    std::size_t begin = open + 1, end = close;
    if (t_[open].Is("{") && Split(begin, end).size() != 1) {
      begin = open;
      end = close + 1;
    }
    while (begin < end && (t_[begin].IsIdentifier() || t_[begin].Is("::"))) ++begin;
    if (begin >= end || !t_[begin].Is("{") || match_[begin] != end - 1) return d;
    d.structured = true;
    static const char* kFields[] = {"kind", "shard_counts", "passes", "limitation"};
    std::size_t position = 0;
    for (auto [b, e] : Split(begin + 1, end - 1)) {
      if (b >= e) continue;
      std::string field = position < 4 ? kFields[position] : "";
      if (e - b >= 3 && t_[b].Is(".") && t_[b + 1].IsIdentifier() && t_[b + 2].Is("=")) {
        field = t_[b + 1].spelling;
        b += 3;
      }
      ++position;
      if (field == "kind") d.kind = Value(b, e);
      else if (field == "shard_counts") d.shard_counts = List(b, e);
      else if (field == "passes") d.passes = Value(b, e);
      else if (field == "limitation") d.limitation = Value(b, e);
    }
    return d;
  }

  bool HelperCallAt(std::size_t k, std::size_t end) const {
    return (t_[k].Is(".") || t_[k].Is("->")) && k + 2 < end && t_[k + 1].IsIdentifier() &&
           LooksLikeHelper(t_[k + 1].spelling) && t_[k + 2].Is("(") && match_[k + 2] != kNone;
  }

  // ---- bodies ----------------------------------------------------------------------------------

  // Why each token of (open, close) does not count ("" when it counts): dead code.
  std::vector<std::string> DeadCode(std::size_t open, std::size_t close) const {
    std::vector<std::string> reason(close - open);
    for (std::size_t k = open + 1; k < close; ++k) {
      if (Opener(k) && !t_[k].Is("{")) {  // statements do not start inside parentheses or brackets
        k = std::min(Skip(k), close);
        continue;
      }
      const Token& t = t_[k];
      const Token& prev = t_[k - 1];
      const bool statement_start = k == open + 1 || prev.Is("{") || prev.Is("}") || prev.Is(";") || prev.Is(":");
      if (!statement_start || !t.IsIdentifier()) continue;
      const bool jump = t.Is("return") || t.Is("throw") || t.Is("break") || t.Is("continue") || t.Is("goto") ||
                        ((t.Is("GTEST_SKIP") || t.Is("FAIL")) && k + 1 < close && t_[k + 1].Is("("));
      if (!jump) continue;
      // The end of the statement, then the end of the enclosing block.
      std::size_t end = k;
      while (end < close && !t_[end].Is(";")) {
        if (t_[end].Is("}")) break;  // malformed
        end = Skip(end) + 1;
      }
      if (end >= close || !t_[end].Is(";")) continue;
      std::size_t block_end = close;
      for (std::size_t o = k; o-- > open;) {
        if (t_[o].Is("{") && match_[o] != kNone && match_[o] > k) {
          block_end = match_[o];
          break;
        }
      }
      std::string statement = JoinSpellings(t_, k, std::min(end + 1, k + 8));
      if (end + 1 > k + 8) statement = JoinSpellings(t_, k, k + 7) + " ...;";
      const std::string why = "dead code after `" + statement + "` (line " + std::to_string(t.line) + ")";
      std::size_t stop = end + 1;
      for (; stop < block_end; ++stop) {
        if (t_[stop].Is("case") || t_[stop].Is("default")) break;  // a label: reachable again
        const std::size_t skip = Skip(stop);
        for (std::size_t d = stop; d <= skip && d < block_end; ++d) reason[d - open] = why;
        stop = skip;
      }
      k = stop - 1;
    }
    return reason;
  }

  std::vector<std::string> HelperNamesIn(const std::vector<Token>& tokens) const {
    std::vector<std::string> names;
    for (const Token& t : tokens) {
      if (t.IsIdentifier() && LooksLikeHelper(t.spelling) &&
          std::find(names.begin(), names.end(), t.spelling) == names.end()) {
        names.push_back(t.spelling);
      }
    }
    return names;
  }

  std::string JoinNames(const std::vector<std::string>& names) const {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
  }

  BodyResult AnalyzeBody(std::size_t open, std::size_t close, bool is_test, std::set<std::string>& called,
                         const std::set<std::string>& inherited_gate_vars = {}) {
    BodyResult result;
    std::vector<std::string> excluded = DeadCode(open, close);
    auto is_excluded = [&](std::size_t k) { return !excluded[k - open].empty(); };

    // Macros the auditor cannot see into: their arguments do not count.
    for (std::size_t k = open + 1; k < close; ++k) {
      const Token& t = t_[k];
      if (is_excluded(k) || !t.IsIdentifier()) continue;
      if (!t.unexpanded_macro.empty()) {
        std::size_t last = k;
        while (last + 1 < close && t_[last + 1].unexpanded_macro == t.unexpanded_macro && t_[last + 1].line == t.line) ++last;
        std::vector<Token> seen(t_.begin() + static_cast<std::ptrdiff_t>(k), t_.begin() + static_cast<std::ptrdiff_t>(last + 1));
        const auto it = pp_.macros.find(t.unexpanded_macro);
        if (it != pp_.macros.end()) seen.insert(seen.end(), it->second.body.begin(), it->second.body.end());
        const std::vector<std::string> helpers = HelperNamesIn(seen);
        result.not_counted.push_back(
            {t.line, t.unexpanded_macro + "(...)",
             "unrecognized macro, not counted: defined in this file but could not be expanded (see the notes)" +
                 (helpers.empty() ? std::string() : "; it involves " + JoinNames(helpers))});
        for (std::size_t d = k; d <= last; ++d) excluded[d - open] = "unrecognized macro " + t.unexpanded_macro;
        k = last;
        continue;
      }
      if (IsAllCapsName(t.spelling) && !IsKnownExternalMacro(t.spelling) && k + 1 < close && t_[k + 1].Is("(") &&
          match_[k + 1] != kNone && (k == 0 || !(t_[k - 1].Is(".") || t_[k - 1].Is("->") || t_[k - 1].Is("::")))) {
        const std::size_t last = match_[k + 1];
        const std::vector<Token> args(t_.begin() + static_cast<std::ptrdiff_t>(k + 2), t_.begin() + static_cast<std::ptrdiff_t>(last));
        const std::vector<std::string> helpers = HelperNamesIn(args);
        result.not_counted.push_back(
            {t.line, t.spelling + "(" + (helpers.empty() ? "..." : JoinNames(helpers) + "(...)") + ")",
             "unrecognized macro, not counted: not defined in this file, so what it does with its arguments is unknown"});
        for (std::size_t d = k; d <= last; ++d) excluded[d - open] = "unrecognized macro " + t.spelling;
        k = last;
      }
    }

    // Gate variables declared in the body.
    std::set<std::string> gate_vars = inherited_gate_vars;
    for (std::size_t k = open + 1; k < close; ++k) {
      std::string variable;
      if (!is_excluded(k) && DeclarationAt(k, close, variable) != kNone) gate_vars.insert(variable);
    }
    auto is_check = [&](std::size_t k) {
      if (!HelperCallAt(k, close)) return false;
      const std::string& name = t_[k + 1].spelling;
      return IsKnownHelper(name) || (t_[k - 1].IsIdentifier() && gate_vars.count(t_[k - 1].spelling) > 0);
    };

    for (std::size_t k = open + 1; k < close; ++k) {
      const Token& t = t_[k];
      const bool dead = is_excluded(k) && StartsWith(excluded[k - open], "dead code");
      if (is_excluded(k) && !dead) continue;  // inside an unrecognized macro: reported once above
      std::string variable;
      const std::size_t decl_open = DeclarationAt(k, close, variable);
      if (decl_open != kNone && match_[decl_open] != kNone) {
        Declaration d = MakeDeclaration(decl_open, variable);
        if (dead) result.not_counted.push_back({t.line, "Gate declaration " + variable + "(" + d.argument + ")", excluded[k - open]});
        else result.declarations.push_back(std::move(d));
        continue;
      }
      if (is_check(k)) {
        Check c = MakeCheck(k, k + 2);
        if (dead) result.not_counted.push_back({c.line, DescribeCheck(c), excluded[k - open]});
        else result.checks.push_back(std::move(c));
        k += 2;
        continue;
      }
      if (!dead && is_test && IsBareAssertion(t.spelling) && t.IsIdentifier() && k + 1 < close && t_[k + 1].Is("(") &&
          match_[k + 1] != kNone) {
        bool wraps_check = false;
        for (std::size_t a = k + 2; a < match_[k + 1]; ++a) wraps_check = wraps_check || is_check(a);
        if (!wraps_check) ++result.bare_assertions;
        continue;  // its arguments are scanned next (a wrapped helper call counts)
      }
      // A call of a function of this file that makes helper calls.
      if (t.IsIdentifier() && k + 1 < close && t_[k + 1].Is("(") && !(t_[k - 1].Is(".") || t_[k - 1].Is("->"))) {
        const FunctionResult via = FunctionChecks(t.spelling, called);
        if (via.checks.empty() && via.not_counted.empty()) continue;
        called.insert(t.spelling);
        if (dead) {
          if (!via.checks.empty()) {
            result.not_counted.push_back(
                {t.line, t.spelling + "() (" + std::to_string(via.checks.size()) + " helper calls)", excluded[k - open]});
          }
          continue;
        }
        for (Check c : via.checks) {
          if (c.condition.empty()) c.condition = t.condition;
          result.checks.push_back(std::move(c));
        }
        for (const NotCounted& n : via.not_counted) result.not_counted.push_back(n);
      }
    }
    return result;
  }

  struct FunctionResult {
    std::vector<Check> checks;
    std::vector<NotCounted> not_counted;
  };

  // The checks made by the functions named `name` of this file (members of `owner` only, when it
  // is given), and by the functions they call.
  FunctionResult FunctionChecks(const std::string& name, std::set<std::string>& called, const std::string& owner = "") {
    const std::string key = owner.empty() ? name : owner + "::" + name;
    const auto cached = function_results_.find(key);
    if (cached != function_results_.end()) return cached->second;
    FunctionResult result;
    if (in_progress_.count(key)) return result;  // recursion
    in_progress_.insert(key);
    for (const Function& f : functions_) {
      if (f.name != name || (!owner.empty() && f.owner != owner)) continue;
      BodyResult body = AnalyzeBody(f.open, f.close, false, called, member_gate_vars_[f.owner]);
      const std::string label = f.owner.empty() ? f.name : f.owner + "::" + f.name;
      for (Check& c : body.checks) {
        if (c.via_function.empty()) c.via_function = label;
        result.checks.push_back(std::move(c));
      }
      for (NotCounted& n : body.not_counted) {
        n.what = "in " + label + "(): " + n.what;
        result.not_counted.push_back(std::move(n));
      }
    }
    in_progress_.erase(key);
    function_results_[key] = result;
    return result;
  }

  // Helper calls in branches that are not compiled, between lines first and last.
  void AddInactive(std::vector<NotCounted>& out, std::size_t first, std::size_t last) {
    const std::vector<Token>& in = pp_.inactive;
    for (std::size_t k = 0; k + 1 < in.size(); ++k) {
      if (!(in[k].Is(".") || in[k].Is("->")) || !in[k + 1].IsIdentifier() || !LooksLikeHelper(in[k + 1].spelling)) continue;
      const std::size_t line = in[k + 1].line;
      if (line < first || line > last || inactive_reported_.count(k)) continue;
      inactive_reported_.insert(k);
      std::string literals;
      for (std::size_t a = k + 2; a < in.size() && !in[a].Is(";"); ++a) {
        if (in[a].kind == TokenKind::kString) literals += (literals.empty() ? "" : ", ") + in[a].value;
      }
      out.push_back({line, in[k + 1].spelling + "(" + literals + ")", "not compiled: inside `" + in[k].condition + "`"});
    }
  }

  // Helper calls no gate makes: outside every test and function body, or in functions no gate calls.
  void Unattributed(const std::set<std::string>& called) {
    std::vector<bool> inside(t_.size(), false);
    for (const TestSite& s : tests_) std::fill(inside.begin() + static_cast<std::ptrdiff_t>(s.open), inside.begin() + static_cast<std::ptrdiff_t>(s.close + 1), true);
    for (const auto& [b, e] : covered_) std::fill(inside.begin() + static_cast<std::ptrdiff_t>(b), inside.begin() + static_cast<std::ptrdiff_t>(e + 1), true);
    for (std::size_t k = 0; k < t_.size(); ++k) {
      if (!inside[k] && HelperCallAt(k, t_.size()) && IsKnownHelper(t_[k + 1].spelling)) {
        const Check c = MakeCheck(k, k + 2);
        scope_.unattributed.push_back({c.line, DescribeCheck(c), "outside every test body"});
      }
    }
    std::set<std::string> reported;
    for (const Function& f : functions_) {
      const std::string label = f.owner.empty() ? f.name : f.owner + "::" + f.name;
      if (called.count(f.name) || called.count(label) || reported.count(label)) continue;
      std::set<std::string> ignored;
      const BodyResult body = AnalyzeBody(f.open, f.close, false, ignored, member_gate_vars_[f.owner]);
      for (const Check& c : body.checks) {
        scope_.unattributed.push_back({c.line, DescribeCheck(c), "in " + label + "(), which no test in this file calls"});
      }
      if (!body.checks.empty()) reported.insert(label);
    }
    AddInactive(scope_.unattributed, 0, std::numeric_limits<std::size_t>::max());
    std::stable_sort(scope_.unattributed.begin(), scope_.unattributed.end(),
                     [](const NotCounted& a, const NotCounted& b) { return a.line < b.line; });
  }

  PreprocessedSource pp_;
  const std::vector<Token>& t_;
  std::vector<std::size_t> match_;
  std::vector<TestSite> tests_;
  std::vector<Function> functions_;
  std::vector<std::pair<std::size_t, std::size_t>> covered_;  // function bodies
  std::map<std::string, FunctionResult> function_results_;
  std::map<std::string, std::vector<Declaration>> member_declarations_;  // by class
  std::map<std::string, std::set<std::string>> member_gate_vars_;        // by class
  std::set<std::string> in_progress_;
  std::set<std::size_t> inactive_reported_;
  FileScope scope_;
};

}  // namespace

FileScope ExtractFileScope(const std::string& display_path, std::string_view source) {
  try {
    return FileExtractor(display_path, source).Run();
  } catch (const SourceLimitError& e) {
    throw RecordError(display_path, e.line, e.what());
  }
}

ScopeReport ExtractScope(const fs::path& gates) {
  std::error_code ec;
  const fs::file_status status = fs::status(gates, ec);
  if (ec || !fs::exists(status)) throw FileError(gates.string(), "no such file or directory");
  fs::path dir = fs::absolute(gates).lexically_normal();
  std::vector<fs::path> files, others;
  auto by_name = [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); };
  if (fs::is_directory(status)) {
    if (dir.filename().empty()) dir = dir.parent_path();
    for (fs::directory_iterator it(gates, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (!it->is_regular_file()) continue;
      if (name.size() > kGateSourceSuffix.size() && name.ends_with(kGateSourceSuffix)) {
        files.push_back(it->path());
      } else if (name.ends_with(".cpp") || name.ends_with(".cc") || name.ends_with(".h") || name.ends_with(".hpp")) {
        others.push_back(it->path());
      }
    }
    if (ec) throw FileError(gates.string(), "cannot list the directory: " + ec.message());
    std::sort(files.begin(), files.end(), by_name);
    std::sort(others.begin(), others.end(), by_name);
  } else {
    files.push_back(gates);
    dir = dir.parent_path();
  }
  ScopeReport report;
  report.gates_dir = dir.filename().string();
  for (const fs::path& file : files) {
    const std::string text = ReadFileText(file);
    report.files.push_back(ExtractFileScope(report.gates_dir + "/" + file.filename().string(), text));
  }
  for (const fs::path& file : others) {
    const std::string path = report.gates_dir + "/" + file.filename().string();
    const FileScope other = ExtractFileScope(path, ReadFileText(file));
    for (const GateScope& g : other.gates) {
      for (const Check& c : g.checks) {
        report.other_sources.push_back({c.line, path + ": " + DescribeCheck(c), "in test " + g.FullName() + ", not in a *_gate.cpp file"});
      }
    }
    for (const NotCounted& n : other.unattributed) report.other_sources.push_back({n.line, path + ": " + n.what, n.reason});
  }
  return report;
}

}  // namespace pstrain::audit
