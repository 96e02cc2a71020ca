// The scope extractor: a walk over libclang's AST of a gate source that sorts every kit-helper
// call into CHECKED, "CHECKED if reached" and not counted (rules in scope_extractor.h).
#include "scope/scope_extractor.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <system_error>
#include <thread>
#include <utility>

#include "report/audit_error.h"
#include "scope/scope_frontend.h"
#include "scope/scope_pch.h"

namespace pstrain::audit {

namespace fs = std::filesystem;

namespace {

bool LooksLikeHelper(const std::string& name) {
  return name.size() > 6 && name.compare(0, 6, "Expect") == 0 && std::isupper(static_cast<unsigned char>(name[6]));
}

bool IsTestMacro(const std::string& name) {
  return name == "TEST" || name == "TEST_F" || name == "TEST_P" || name == "TYPED_TEST" || name == "TYPED_TEST_P";
}

std::string StripIntegerSuffix(const std::string& number) {
  if (number.find_first_of(".eEpP") != std::string::npos && number.compare(0, 2, "0x") != 0) return number;
  std::string s = number;
  while (!s.empty() && (s.back() == 'u' || s.back() == 'U' || s.back() == 'l' || s.back() == 'L')) s.pop_back();
  return s.empty() ? number : s;
}

struct Where {
  std::string file;  // as the compiler names it
  unsigned line = 0, column = 0, offset = 0;
};

Where Expansion(CXSourceLocation loc) {
  CXFile file = nullptr;
  Where w;
  clang_getExpansionLocation(loc, &file, &w.line, &w.column, &w.offset);
  if (file != nullptr) w.file = Text(clang_getFileName(file));
  return w;
}

CXCursorKind Kind(CXCursor c) { return clang_getCursorKind(c); }
std::string Name(CXCursor c) { return Text(clang_getCursorSpelling(c)); }
std::string Usr(CXCursor c) { return Text(clang_getCursorUSR(c)); }
unsigned LineOf(CXCursor c) { return Expansion(clang_getCursorLocation(c)).line; }

bool ValidExtent(CXCursor c) {
  const CXSourceRange r = clang_getCursorExtent(c);
  if (clang_Range_isNull(r)) return false;
  return Expansion(clang_getRangeStart(r)).line != 0;
}

bool IsExpressionOrStatement(CXCursor c) {
  const CXCursorKind k = Kind(c);
  return clang_isExpression(k) || clang_isStatement(k);
}

// The expression children (not type or namespace references, not defaulted arguments).
std::vector<CXCursor> ExprChildren(CXCursor c) {
  std::vector<CXCursor> out;
  for (CXCursor k : Children(c)) {
    if (IsExpressionOrStatement(k) && ValidExtent(k)) out.push_back(k);
  }
  return out;
}

std::optional<long long> EvaluateInt(CXCursor c) {
  CXEvalResult r = clang_Cursor_Evaluate(c);
  if (r == nullptr) return std::nullopt;
  std::optional<long long> out;
  if (clang_EvalResult_getKind(r) == CXEval_Int) out = clang_EvalResult_getAsLongLong(r);
  clang_EvalResult_dispose(r);
  return out;
}

// Implicit conversions, parentheses and constructor calls with one argument, peeled off.
CXCursor Strip(CXCursor c) {
  for (int guard = 0; guard < 64; ++guard) {
    const CXCursorKind k = Kind(c);
    const std::vector<CXCursor> kids = ExprChildren(c);
    const bool constructor = k == CXCursor_CallExpr && Kind(clang_getCursorReferenced(c)) == CXCursor_Constructor;
    if ((k == CXCursor_UnexposedExpr || k == CXCursor_ParenExpr || k == CXCursor_CXXFunctionalCastExpr || constructor) &&
        kids.size() == 1) {
      c = kids[0];
      continue;
    }
    break;
  }
  return c;
}

class Walker {
 public:
  Walker(const TranslationUnit& unit, std::string main_path, std::string display_path, fs::path gates_dir)
      : tu_(unit.get()), root_(unit.cursor()), main_path_(std::move(main_path)), gates_dir_(std::move(gates_dir)) {
    scope_.path = std::move(display_path);
    main_file_ = clang_getFile(tu_, main_path_.c_str());
    if (main_file_ != nullptr) main_name_ = Text(clang_getFileName(main_file_));
  }

  FileScope Run() {
    for (CXCursor c : Children(root_)) {
      if (Kind(c) != CXCursor_MacroExpansion) continue;
      const CXSourceRange r = clang_getCursorExtent(c);
      const Where b = Expansion(clang_getRangeStart(r)), e = Expansion(clang_getRangeEnd(r));
      expansions_[b.file].push_back({b.offset, e.offset, Name(c)});
    }
    FindTests();
    for (Site& site : sites_) {
      GateScope gate;
      gate.file = scope_.path;
      gate.line = site.line;
      gate.macro = site.macro;
      gate.suite = site.suite;
      gate.name = site.name;
      gate_ = &gate;
      if (!clang_Cursor_isNull(site.body)) WalkTest(site);
      gate_ = nullptr;
      scope_.gates.push_back(std::move(gate));
    }
    InactiveBranches();
    Unattributed();
    return std::move(scope_);
  }

 private:
  struct Ctx {
    std::string dead;        // why the code never runs ("" = it may run)
    std::string if_reached;  // why the AST cannot say that it runs ("" = on every path)
    std::string via_function;
    bool test_body = false;
    // Where GCC's std::source_location puts the kit calls here, when not at their `(`: in a
    // default member initializer, at the constructor that uses it (Construct).
    std::optional<Where> call_site;
  };
  enum class Flow { kNormal, kExit, kBreak, kContinue, kGoto };

  struct Site {
    std::string macro, suite, name;
    std::size_t line = 0;
    unsigned begin = 0, end = 0;  // the macro invocation's offsets
    CXCursor body = clang_getNullCursor();
    CXCursor test_class = clang_getNullCursor();  // the class GoogleTest generates for the test
    unsigned body_begin = 0, body_end = 0;
  };

  // ---- the file -------------------------------------------------------------------------------

  bool InMainFile(const Where& w) const { return !w.file.empty() && w.file == main_name_; }

  bool UnderGatesDir(const std::string& file) const {
    if (file.empty()) return false;
    const auto cached = under_gates_dir_.find(file);
    if (cached != under_gates_dir_.end()) return cached->second;
    return under_gates_dir_[file] = UnderGatesDirUncached(file);
  }
  bool UnderGatesDirUncached(const std::string& file) const {
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(file, ec);
    const fs::path d = fs::weakly_canonical(gates_dir_, ec);
    const std::string ps = p.string(), ds = d.string() + "/";
    return ps.compare(0, ds.size(), ds) == 0;
  }

  std::string Display(const std::string& file) const {
    if (file == main_name_) return scope_.path;
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(file, ec);
    const fs::path d = fs::weakly_canonical(gates_dir_, ec);
    if (UnderGatesDir(file)) return (d.filename() / p.lexically_relative(d)).string();
    return file;
  }

  std::vector<std::string> Tokens(CXSourceRange range) const {
    CXToken* tokens = nullptr;
    unsigned n = 0;
    clang_tokenize(tu_, range, &tokens, &n);
    std::vector<std::string> out;
    for (unsigned i = 0; i < n; ++i) out.push_back(Text(clang_getTokenSpelling(tu_, tokens[i])));
    clang_disposeTokens(tu_, tokens, n);
    return out;
  }

  static std::string Join(const std::vector<std::string>& tokens) {
    std::string out;
    auto wordy = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '"' || c == '\''; };
    for (const std::string& t : tokens) {
      if (!out.empty() && !t.empty() && wordy(out.back()) && wordy(t.front())) out += ' ';
      if (!out.empty() && t.front() != ',' && out.back() == ',') out += ' ';
      out += t;
    }
    return out;
  }

  std::string SourceText(CXCursor c) const {
    // Inside a macro: the text as spelled (in the macro's body or argument), when it is one range.
    const CXSourceRange r = clang_getCursorExtent(c);
    if (InMacro(c)) {
      const MacroUse* m = MacroAt(c);
      // A macro body's tokens have a spelling location; a macro argument's, a file location.
      for (int how = 0; how < 2; ++how) {
        CXFile fa = nullptr, fb = nullptr;
        unsigned oa = 0, ob = 0;
        if (how == 0) {
          clang_getSpellingLocation(clang_getRangeStart(r), &fa, nullptr, nullptr, &oa);
          clang_getSpellingLocation(clang_getRangeEnd(r), &fb, nullptr, nullptr, &ob);
        } else {
          clang_getFileLocation(clang_getRangeStart(r), &fa, nullptr, nullptr, &oa);
          clang_getFileLocation(clang_getRangeEnd(r), &fb, nullptr, nullptr, &ob);
        }
        if (fa != nullptr && fb != nullptr && clang_File_isEqual(fa, fb) && oa <= ob && ob - oa < 4096 &&
            !(m != nullptr && oa == m->begin)) {
          return Join(Tokens(clang_getRange(clang_getLocationForOffset(tu_, fa, oa), clang_getLocationForOffset(tu_, fb, ob))));
        }
      }
      // The whole expansion of a macro (`RTOL`, `JOIN("a", "b")`): the invocation as written.
      const Where b = Expansion(clang_getRangeStart(r));
      if (m != nullptr && b.offset == m->begin) {
        const CXFile file = clang_getFile(tu_, b.file.c_str());
        if (file != nullptr && m->end >= m->begin && m->end - m->begin < 4096) {
          return Join(Tokens(clang_getRange(clang_getLocationForOffset(tu_, file, m->begin), clang_getLocationForOffset(tu_, file, m->end))));
        }
      }
      return m != nullptr ? m->name + "(...)" : "(macro)";
    }
    return Join(Tokens(r));
  }

  struct MacroUse {
    unsigned begin = 0, end = 0;
    std::string name;
  };

  // The outermost macro invocation `c` comes from ("GTEST_SKIP"), or nullptr.
  const MacroUse* MacroAt(CXCursor c) const {
    const Where w = Expansion(clang_getCursorLocation(c));
    const auto it = expansions_.find(w.file);
    if (it == expansions_.end()) return nullptr;
    for (const MacroUse& m : it->second) {
      if (w.offset >= m.begin && w.offset < m.end) return &m;
    }
    return nullptr;
  }
  bool InMacro(CXCursor c) const { return MacroAt(c) != nullptr; }
  std::string MacroNameAt(CXCursor c) const {
    const MacroUse* m = MacroAt(c);
    return m != nullptr ? m->name : "";
  }

  // ---- tests ----------------------------------------------------------------------------------

  void FindTests() {
    for (CXCursor c : Children(root_)) {
      if (Kind(c) != CXCursor_MacroExpansion) continue;
      const std::string name = Name(c);
      if (!IsTestMacro(name)) continue;
      const CXSourceRange r = clang_getCursorExtent(c);
      const Where b = Expansion(clang_getRangeStart(r)), e = Expansion(clang_getRangeEnd(r));
      if (!InMainFile(b)) continue;
      Site s;
      s.macro = name;
      s.line = b.line;
      s.begin = b.offset;
      s.end = e.offset;
      // TEST ( Suite , Name ): the arguments, as written.
      const std::vector<std::string> t = Tokens(r);
      std::vector<std::string> args(1);
      int depth = 0;
      for (std::size_t i = 1; i < t.size(); ++i) {
        if (t[i] == "(" && depth++ == 0) continue;
        if (t[i] == ")" && --depth == 0) break;
        if (t[i] == "," && depth == 1) {
          args.emplace_back();
          continue;
        }
        args.back() += t[i];
      }
      s.suite = args.size() > 0 ? args[0] : "";
      s.name = args.size() > 1 ? args[1] : "";
      sites_.push_back(s);
    }
    FindBodies(root_, 0);
  }

  void FindBodies(CXCursor parent, int depth) {
    if (depth > 64) return;
    for (CXCursor c : Children(parent)) {
      const CXCursorKind k = Kind(c);
      if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl || k == CXCursor_ClassDecl ||
          k == CXCursor_StructDecl || k == CXCursor_ClassTemplate) {
        FindBodies(c, depth + 1);
        continue;
      }
      if ((k == CXCursor_CXXMethod || k == CXCursor_FunctionTemplate) && clang_isCursorDefinition(c) && Name(c) == "TestBody") {
        const Where w = Expansion(clang_getCursorLocation(c));
        if (!InMainFile(w)) continue;
        for (Site& s : sites_) {
          if (w.offset < s.begin || w.offset > s.end || !clang_Cursor_isNull(s.body)) continue;
          for (CXCursor child : Children(c)) {
            if (Kind(child) == CXCursor_CompoundStmt) s.body = child;
          }
          s.test_class = clang_getCursorSemanticParent(c);
          const CXSourceRange r = clang_getCursorExtent(s.body);
          s.body_begin = Expansion(clang_getRangeStart(r)).offset;
          s.body_end = Expansion(clang_getRangeEnd(r)).offset;
        }
      }
    }
  }

  // ---- values ---------------------------------------------------------------------------------

  SourceValue Value(CXCursor arg) const {
    const CXCursor s = Strip(arg);
    const CXCursorKind k = Kind(s);
    // A number spelled with a macro (`#define RTOL 1e-9`, `(0.5 * 2)`): the value the compiler
    // sees, not the macro's name.
    if ((k != CXCursor_StringLiteral) && InMacro(s)) {
      if (const std::optional<std::string> v = NumberValue(s)) return SourceValue::Literal(*v);
    }
    if (k == CXCursor_StringLiteral) {
      // libclang evaluates a string literal through its array-to-pointer conversion.
      CXCursor decay = arg;
      for (int guard = 0; guard < 64; ++guard) {
        const std::vector<CXCursor> kids = ExprChildren(decay);
        if (kids.size() != 1 || Kind(kids[0]) == CXCursor_StringLiteral) break;
        decay = kids[0];
      }
      CXEvalResult r = clang_Cursor_Evaluate(decay);
      if (r != nullptr) {
        std::string value;
        const bool ok = clang_EvalResult_getKind(r) == CXEval_StrLiteral;
        if (ok) value = clang_EvalResult_getAsStr(r);
        clang_EvalResult_dispose(r);
        if (ok) return SourceValue::Literal(value);
      }
      // Elsewhere (an aggregate's initializer list) libclang spells the literal, concatenated.
      const std::string spelled = Name(s);
      if (spelled.size() >= 2 && spelled.front() == '"' && spelled.back() == '"') {
        std::string value;
        for (std::size_t i = 1; i + 1 < spelled.size(); ++i) {
          char ch = spelled[i];
          if (ch == '\\' && i + 2 < spelled.size()) {
            const char e = spelled[++i];
            ch = e == 'n' ? '\n' : e == 't' ? '\t' : e;
          }
          value += ch;
        }
        return SourceValue::Literal(value);
      }
    }
    if (k == CXCursor_IntegerLiteral || k == CXCursor_FloatingLiteral) {
      return SourceValue::Literal(StripIntegerSuffix(SourceText(s)));
    }
    return SourceValue::Expression(SourceText(arg));
  }

  // The value of a constant integer or floating-point expression (shortest round-trip form).
  static std::optional<std::string> NumberValue(CXCursor c) {
    CXEvalResult r = clang_Cursor_Evaluate(c);
    if (r == nullptr) return std::nullopt;
    std::optional<std::string> out;
    if (clang_EvalResult_getKind(r) == CXEval_Int) {
      out = clang_EvalResult_isUnsignedInt(r) != 0 ? std::to_string(clang_EvalResult_getAsUnsigned(r))
                                                   : std::to_string(clang_EvalResult_getAsLongLong(r));
    } else if (clang_EvalResult_getKind(r) == CXEval_Float) {
      char buffer[64];
      const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, clang_EvalResult_getAsDouble(r));
      if (ec == std::errc()) out = std::string(buffer, end);
    }
    clang_EvalResult_dispose(r);
    return out;
  }

  ValueList List(CXCursor arg) const {
    ValueList list;
    const CXCursor s = Strip(arg);
    if (Kind(s) == CXCursor_InitListExpr) {
      list.braced = true;
      for (CXCursor item : ExprChildren(s)) list.items.push_back(Value(item));
      return list;
    }
    list.expression = SourceText(arg);
    return list;
  }

  std::vector<CXCursor> Arguments(CXCursor call) const {
    std::vector<CXCursor> out;
    const int n = clang_Cursor_getNumArguments(call);
    for (int i = 0; i < n; ++i) {
      const CXCursor a = clang_Cursor_getArgument(call, static_cast<unsigned>(i));
      if (ValidExtent(a)) out.push_back(a);  // a defaulted argument (the call site) has no extent
    }
    return out;
  }

  Check MakeCheck(CXCursor call, CXCursor method, const Ctx& ctx) const {
    Check c;
    c.helper = Name(method);
    c.if_reached = ctx.if_reached;
    c.via_function = ctx.via_function;
    // The call site as GCC's std::source_location records it: the `(` of the call, or the
    // outermost macro invocation.
    Where site = Expansion(clang_getCursorLocation(call));
    const std::vector<CXCursor> kids = Children(call);
    if (!InMacro(call) && !kids.empty()) {
      const unsigned callee_end = Expansion(clang_getRangeEnd(clang_getCursorExtent(kids.front()))).offset;
      CXToken* tokens = nullptr;
      unsigned n = 0;
      clang_tokenize(tu_, clang_getCursorExtent(call), &tokens, &n);
      for (unsigned i = 0; i < n; ++i) {
        if (Text(clang_getTokenSpelling(tu_, tokens[i])) != "(") continue;
        const Where w = Expansion(clang_getTokenLocation(tu_, tokens[i]));
        if (w.offset >= callee_end) {
          site = w;
          break;
        }
      }
      clang_disposeTokens(tu_, tokens, n);
    } else if (InMacro(call)) {
      c.via_macro = MacroNameAt(call);
    }
    if (ctx.call_site) site = *ctx.call_site;
    c.line = site.line;
    c.column = site.column;
    c.site_path = site.file;
    c.file = Display(site.file);
    if (!kids.empty()) {
      const std::vector<CXCursor> receiver = ExprChildren(kids.front());
      const CXCursorKind rk = receiver.empty() ? CXCursor_NoDeclFound : Kind(Strip(receiver.front()));
      c.receiver = receiver.empty() ? "" : (rk == CXCursor_DeclRefExpr || rk == CXCursor_MemberRefExpr ? Name(Strip(receiver.front())) : "(expression)");
    }
    const std::vector<CXCursor> args = Arguments(call);
    for (CXCursor a : args) c.arguments += (c.arguments.empty() ? "" : ", ") + SourceText(a);
    const std::string& h = c.helper;
    if ((h == "ExpectProducedFilesIdentical" || h == "ExpectCopiedInputsIdentical" || h == "ExpectJsonFieldsEqual") && args.size() == 3) {
      c.subjects = List(args[2]);
    } else if (h == "ExpectProvenanceField" && args.size() == 4) {
      c.subjects.braced = true;
      c.subjects.items.push_back(Value(args[2]));
      const CXCursor relation = clang_getCursorReferenced(Strip(args[3]));
      static const std::map<std::string, std::string> kRelations = {{"kPresent", "present"}, {"kEqual", "equal"}, {"kDifferent", "different"}};
      const auto it = Kind(relation) == CXCursor_EnumConstantDecl ? kRelations.find(Name(relation)) : kRelations.end();
      c.subjects.items.push_back(it != kRelations.end() ? SourceValue::Literal(it->second) : Value(args[3]));
    } else if (h == "ExpectRejected" && args.size() == 4) {
      c.subjects.braced = true;
      c.subjects.items = {Value(args[0]), Value(args[3])};
    } else if (h == "ExpectWithin" && args.size() == 5) {
      c.subjects.braced = true;
      c.subjects.items = {Value(args[0])};
      c.parameters = {{"rtol", Value(args[3])}, {"atol", Value(args[4])}};
    }
    return c;
  }

  // A Gate variable or member `var`, initialized by its own initializer or (a member named in a
  // constructor's member-initializer list) by `initializer`.
  std::optional<Declaration> MakeDeclaration(CXCursor var, CXCursor initializer = clang_getNullCursor()) const {
    // The canonical type: `Gate` named through a using declaration is sugar (UsingType) that
    // libclang 14's clang_getTypeDeclaration does not see through.
    if (Usr(clang_getTypeDeclaration(clang_getCanonicalType(clang_getCursorType(var)))) != kGateTypeUsr) return std::nullopt;
    Declaration d;
    d.line = clang_Cursor_isNull(initializer) ? LineOf(var) : LineOf(initializer);
    d.variable = Name(var);
    // The constructor call and its argument.
    CXCursor construct = initializer;
    if (clang_Cursor_isNull(construct)) {
      for (CXCursor k : ExprChildren(var)) construct = k;
    }
    if (clang_Cursor_isNull(construct)) return d;
    CXCursor c = construct;
    for (int guard = 0; guard < 16 && Kind(c) != CXCursor_CallExpr; ++guard) {
      const std::vector<CXCursor> kids = ExprChildren(c);
      if (kids.size() != 1) break;
      c = kids[0];
    }
    const std::vector<CXCursor> args = Kind(c) == CXCursor_CallExpr ? Arguments(c) : std::vector<CXCursor>{};
    if (args.empty()) return d;
    d.argument = SourceText(args[0]);
    const CXCursor init = Strip(args[0]);
    if (Kind(init) != CXCursor_InitListExpr) return d;
    d.structured = true;
    const std::vector<CXCursor> fields = ExprChildren(init);
    if (fields.size() > 0) d.kind = Value(fields[0]);
    if (fields.size() > 1) d.shard_counts = List(fields[1]);
    if (fields.size() > 2) d.passes = Value(fields[2]);
    if (fields.size() > 3) d.limitation = Value(fields[3]);
    return d;
  }

  // ---- recording ------------------------------------------------------------------------------

  std::string DescribeCall(CXCursor call, CXCursor method) const {
    Ctx none;
    return DescribeCheck(MakeCheck(call, method, none));
  }

  void NotCountedHere(std::size_t line, const std::string& what, const std::string& reason) {
    if (gate_ == nullptr) return;
    for (const NotCounted& n : gate_->not_counted) {
      if (n.line == line && n.what == what && n.reason == reason) return;
    }
    gate_->not_counted.push_back({line, what, reason});
  }

  std::string Prefix(const Ctx& ctx) const { return ctx.via_function.empty() ? "" : "in " + ctx.via_function + "(): "; }

  // A kit call, or a call of a same-named method of another type; returns whether it is the kit's.
  bool RecordCall(CXCursor call, const Ctx& ctx) {
    const CXCursor method = clang_getCursorReferenced(call);
    if (Kind(method) != CXCursor_CXXMethod || !LooksLikeHelper(Name(method))) return false;
    const CXCursor owner = clang_getCursorSemanticParent(method);
    const bool kit = Usr(owner) == kGateTypeUsr;
    if (!kit) {
      std::string arguments;
      for (CXCursor a : Arguments(call)) arguments += (arguments.empty() ? "" : ", ") + SourceText(a);
      NotCountedHere(LineOf(call), Prefix(ctx) + Name(owner) + "::" + Name(method) + "(" + arguments + ")",
                     "not a kit helper: the callee is a member of " + Text(clang_getTypeSpelling(clang_getCursorType(owner))) +
                         ", not of the kit's Gate");
      return false;
    }
    seen_calls_.insert(Expansion(clang_getCursorLocation(call)).offset);
    if (!ctx.dead.empty()) {
      NotCountedHere(LineOf(call), Prefix(ctx) + DescribeCall(call, method), ctx.dead);
      return true;
    }
    if (gate_ != nullptr) gate_->checks.push_back(MakeCheck(call, method, ctx));
    return true;
  }

  // Every kit call below `c`, which is not evaluated (or dead) for `reason`.
  void NotEvaluated(CXCursor c, const Ctx& ctx, const std::string& reason, int depth) {
    Guard(c, depth);
    if (Kind(c) == CXCursor_CallExpr) {
      Ctx dead = ctx;
      if (dead.dead.empty()) dead.dead = reason;
      RecordCall(c, dead);
    }
    for (CXCursor k : Children(c)) NotEvaluated(k, ctx, reason, depth + 1);
  }

  void Guard(CXCursor c, int depth) const {
    if (depth > static_cast<int>(kMaxAstDepth)) {
      throw AuditErrorAt(scope_.path, LineOf(c),
                         "statements and expressions nested more than " + std::to_string(kMaxAstDepth) +
                             " deep; the auditor walks at most " + std::to_string(kMaxAstDepth) + " levels");
    }
  }

  static Ctx Reached(Ctx ctx, const std::string& reason) {
    if (ctx.if_reached.empty()) ctx.if_reached = reason;
    return ctx;
  }
  static Ctx Dead(Ctx ctx, const std::string& reason) {
    if (ctx.dead.empty()) ctx.dead = reason;
    return ctx;
  }
  static std::string AtLine(unsigned line) { return "line " + std::to_string(line); }

  // ---- statements -----------------------------------------------------------------------------

  // Why the statements after `c` (which ended the flow) never run.
  std::string TerminatorText(CXCursor c, Flow flow) const {
    const unsigned line = LineOf(c);
    if (InMacro(c)) {
      const std::string macro = MacroNameAt(c);
      if (macro.compare(0, 7, "ASSERT_") == 0) return "dead code after `" + macro + "(...)`, a fatal assertion that always fails (" + AtLine(line) + ")";
      return "dead code after `" + macro + "(...)` (" + AtLine(line) + ")";
    }
    const char* word = flow == Flow::kBreak ? "break" : flow == Flow::kContinue ? "continue" : flow == Flow::kGoto ? "goto" : "";
    if (Kind(c) == CXCursor_CXXThrowExpr) word = "throw";
    if (*word == '\0') word = "return";
    return std::string("dead code after `") + word + "` (" + AtLine(line) + ")";
  }

  // What ended the flow, from TerminatorText's words: a plain `return` (the function returns, the
  // test goes on), a `throw`, or GoogleTest's GTEST_SKIP(), FAIL() or a fatal ASSERT_... that
  // fails (the function returns; GoogleTest records a skip or a fatal failure).
  static bool StartsWith(const std::string& text, std::string_view prefix) { return text.compare(0, prefix.size(), prefix) == 0; }
  static bool EndsByReturn(const std::string& terminator) { return StartsWith(terminator, "dead code after `return`"); }
  static bool EndsByThrow(const std::string& terminator) { return StartsWith(terminator, "dead code after `throw`"); }
  static bool EndsByGtest(const std::string& terminator) {
    for (std::string_view macro : {"GTEST_SKIP(", "FAIL(", "GTEST_FAIL(", "GTEST_FAIL_AT(", "FAIL_AT(", "ASSERT_"}) {
      if (StartsWith(terminator, "dead code after `" + std::string(macro))) return true;
    }
    return false;
  }

  Flow Statement(CXCursor c, const Ctx& ctx, int depth) {
    Guard(c, depth);
    const std::vector<CXCursor> kids = Children(c);
    switch (Kind(c)) {
      case CXCursor_CompoundStmt: return Sequence(kids, ctx, depth, nullptr);
      case CXCursor_IfStmt: return If(c, kids, ctx, depth);
      case CXCursor_ForStmt: {
        const Ctx header = Reached(ctx, "in the header of the `for` loop at " + AtLine(LineOf(c)));
        for (std::size_t i = 0; i + 1 < kids.size(); ++i) {
          if (i == 0 && Kind(kids[i]) == CXCursor_DeclStmt) Statement(kids[i], ctx, depth + 1);
          else Expression(kids[i], header, depth + 1);
        }
        if (!kids.empty()) {
          Statement(kids.back(), Reached(ctx, "in the body of the `for` loop at " + AtLine(LineOf(c)) + ", which may run zero times"), depth + 1);
        }
        return Flow::kNormal;
      }
      case CXCursor_WhileStmt: {
        if (kids.size() < 2) return Flow::kNormal;
        for (std::size_t i = 0; i + 1 < kids.size(); ++i) Expression(kids[i], ctx, depth + 1);
        const std::optional<long long> v = EvaluateInt(kids[kids.size() - 2]);
        if (v && *v == 0) {
          Statement(kids.back(), Dead(ctx, "never runs: the condition of the `while` loop at " + AtLine(LineOf(c)) + " is always false"), depth + 1);
        } else if (v) {
          const Flow f = Statement(kids.back(), ctx, depth + 1);
          return f == Flow::kExit ? f : Flow::kNormal;
        } else {
          Statement(kids.back(), Reached(ctx, "in the body of the `while` loop at " + AtLine(LineOf(c)) + ", which may run zero times"), depth + 1);
        }
        return Flow::kNormal;
      }
      case CXCursor_DoStmt: {
        Flow f = Flow::kNormal;
        if (!kids.empty()) f = Statement(kids.front(), ctx, depth + 1);
        for (std::size_t i = 1; i < kids.size(); ++i) Expression(kids[i], ctx, depth + 1);
        return f == Flow::kExit ? f : Flow::kNormal;
      }
      case CXCursor_CXXForRangeStmt: {
        if (kids.size() < 2) return Flow::kNormal;
        const CXCursor range = kids[kids.size() - 2];
        Expression(range, ctx, depth + 1);
        const CXCursor stripped = Strip(range);
        const bool nonempty = Kind(stripped) == CXCursor_InitListExpr && !ExprChildren(stripped).empty();
        if (nonempty) {
          const Flow f = Statement(kids.back(), ctx, depth + 1);
          return f == Flow::kExit ? f : Flow::kNormal;
        }
        Statement(kids.back(), Reached(ctx, "in the body of the range-`for` loop at " + AtLine(LineOf(c)) + ", which may run zero times"), depth + 1);
        return Flow::kNormal;
      }
      case CXCursor_SwitchStmt: return Switch(c, kids, ctx, depth);
      case CXCursor_CaseStmt:
      case CXCursor_DefaultStmt:
        // A label outside a switch body that Switch() walks: its statement.
        return kids.empty() ? Flow::kNormal : Statement(kids.back(), ctx, depth + 1);
      case CXCursor_LabelStmt: return kids.empty() ? Flow::kNormal : Statement(kids.back(), ctx, depth + 1);
      case CXCursor_ReturnStmt:
        for (CXCursor k : kids) Expression(k, ctx, depth + 1);
        terminator_ = TerminatorText(c, Flow::kExit);
        return Flow::kExit;
      case CXCursor_BreakStmt: terminator_ = TerminatorText(c, Flow::kBreak); return Flow::kBreak;
      case CXCursor_ContinueStmt: terminator_ = TerminatorText(c, Flow::kContinue); return Flow::kContinue;
      case CXCursor_GotoStmt:
        pending_goto_ = kids.empty() ? clang_getNullCursor() : clang_getCursorReferenced(kids.front());
        terminator_ = TerminatorText(c, Flow::kGoto);
        return Flow::kGoto;
      case CXCursor_CXXTryStmt: {
        Flow f = Flow::kNormal;
        for (std::size_t i = 0; i < kids.size(); ++i) {
          if (Kind(kids[i]) == CXCursor_CXXCatchStmt) {
            const Ctx handler = Reached(ctx, "in the `catch` handler at " + AtLine(LineOf(kids[i])) + ", entered only if an exception reaches it");
            for (CXCursor k : Children(kids[i])) {
              if (Kind(k) == CXCursor_CompoundStmt) Statement(k, handler, depth + 1);
            }
          } else {
            f = Statement(kids[i], ctx, depth + 1);
          }
        }
        return f == Flow::kExit ? f : Flow::kNormal;
      }
      case CXCursor_DeclStmt:
        return EndedByThrowingCall([&] {
          for (CXCursor k : kids) Decl(k, ctx, depth + 1);
        });
      case CXCursor_NullStmt: return Flow::kNormal;
      case CXCursor_CXXThrowExpr:
        for (CXCursor k : kids) Expression(k, ctx, depth + 1);
        terminator_ = TerminatorText(c, Flow::kExit);
        return Flow::kExit;
      case CXCursor_UnexposedExpr:
        // `throw T(...)` of a temporary with a destructor: the throw under the expression that
        // holds its cleanups.
        if (Kind(Strip(c)) == CXCursor_CXXThrowExpr) return Statement(Strip(c), ctx, depth + 1);
        return EndedByThrowingCall([&] { Expression(c, ctx, depth); });
      default:
        return EndedByThrowingCall([&] { Expression(c, ctx, depth); });
    }
  }

  // Walks an expression statement or a declaration (`walk`) and says how it ends: kExit when it
  // calls, on every path through it, a function that always throws (Follow), else kNormal.
  template <typename Walk>
  Flow EndedByThrowingCall(Walk walk) {
    call_throws_.clear();
    walk();
    if (call_throws_.empty()) return Flow::kNormal;
    terminator_ = call_throws_;
    call_throws_.clear();
    return Flow::kExit;
  }

  struct SwitchInfo {
    std::optional<long long> value;
    bool any_match = false;
    unsigned line = 0;
  };

  // The statements of a block (or a switch body) in order: after one that ends the flow, dead
  // until a label.
  Flow Sequence(const std::vector<CXCursor>& statements, const Ctx& ctx, int depth, const SwitchInfo* sw) {
    Flow flow = sw != nullptr && sw->value ? Flow::kBreak : Flow::kNormal;  // a constant switch enters at its case
    std::string why = sw != nullptr && sw->value ? "not selected: the `switch` at " + AtLine(sw->line) + " is on the constant " + std::to_string(*sw->value) : "";
    Ctx current = ctx;
    bool entered = false;
    for (CXCursor s : statements) {
      // Labels: where control may come in.
      while (Kind(s) == CXCursor_LabelStmt || (sw != nullptr && (Kind(s) == CXCursor_CaseStmt || Kind(s) == CXCursor_DefaultStmt))) {
        const std::vector<CXCursor> parts = Children(s);
        if (Kind(s) == CXCursor_LabelStmt) {
          if (flow == Flow::kGoto && !clang_Cursor_isNull(pending_goto_) && Name(pending_goto_) == Name(s) &&
              Expansion(clang_getCursorLocation(pending_goto_)).offset == Expansion(clang_getCursorLocation(s)).offset) {
            flow = Flow::kNormal;  // the goto jumps here: the flow goes on
          } else if (flow != Flow::kNormal) {
            flow = Flow::kNormal;
            current = Reached(ctx, "after the label `" + Name(s) + "` at " + AtLine(LineOf(s)) + ", reached only by a jump");
          }
        } else {
          bool selected = false;
          if (sw->value) {
            if (Kind(s) == CXCursor_CaseStmt && !parts.empty()) {
              const std::optional<long long> v = EvaluateInt(parts.front());
              selected = v && *v == *sw->value;
            } else if (Kind(s) == CXCursor_DefaultStmt) {
              selected = !sw->any_match;
            }
            if (selected && !entered) {
              entered = true;
              flow = Flow::kNormal;
              current = ctx;
            }
          } else {
            flow = Flow::kNormal;
            current = Reached(ctx, "in a `case` of the `switch` at " + AtLine(sw->line));
          }
        }
        if (parts.empty()) break;
        s = parts.back();
      }
      if (Kind(s) == CXCursor_CaseStmt || Kind(s) == CXCursor_DefaultStmt || Kind(s) == CXCursor_LabelStmt) continue;
      if (flow != Flow::kNormal) {
        Statement(s, Dead(current, why), depth + 1);
        continue;
      }
      const Flow f = Statement(s, current, depth + 1);
      if (f != Flow::kNormal) {
        flow = f;
        why = terminator_.empty() ? TerminatorText(s, f) : terminator_;
      }
    }
    return flow;
  }

  Flow Switch(CXCursor c, const std::vector<CXCursor>& kids, const Ctx& ctx, int depth) {
    if (kids.size() < 2) return Flow::kNormal;
    for (std::size_t i = 0; i + 1 < kids.size(); ++i) {
      if (Kind(kids[i]) == CXCursor_VarDecl || Kind(kids[i]) == CXCursor_DeclStmt) Decl(kids[i], ctx, depth + 1);
      else Expression(kids[i], ctx, depth + 1);
    }
    SwitchInfo sw;
    sw.line = LineOf(c);
    sw.value = EvaluateInt(kids[kids.size() - 2]);
    const CXCursor body = kids.back();
    const std::vector<CXCursor> statements = Kind(body) == CXCursor_CompoundStmt ? Children(body) : std::vector<CXCursor>{body};
    if (sw.value) {
      // Does a case match? (cases directly in the body, possibly chained `case 0: default:`)
      for (CXCursor s : statements) {
        for (int guard = 0; guard < 64 && (Kind(s) == CXCursor_CaseStmt || Kind(s) == CXCursor_DefaultStmt); ++guard) {
          const std::vector<CXCursor> parts = Children(s);
          if (Kind(s) == CXCursor_CaseStmt && !parts.empty()) {
            const std::optional<long long> v = EvaluateInt(parts.front());
            sw.any_match = sw.any_match || (v && *v == *sw.value);
          }
          if (parts.empty()) break;
          s = parts.back();
        }
      }
    }
    const Flow f = Sequence(statements, ctx, depth, &sw);
    return f == Flow::kExit && sw.value ? f : Flow::kNormal;
  }

  // The constant value of an `if` condition: the condition itself, or gtest's
  // `if (const AssertionResult gtest_ar_ = AssertionResult(CONSTANT))` of ASSERT_TRUE/ASSERT_FALSE.
  std::optional<long long> Condition(CXCursor condvar, CXCursor cond) const {
    if (!clang_Cursor_isNull(condvar)) {
      const std::string type = Text(clang_getTypeSpelling(clang_getCursorType(condvar)));
      if (type.find("AssertionResult") == std::string::npos) return std::nullopt;
      // The AssertionResult constructor's first argument.
      std::vector<CXCursor> todo = ExprChildren(condvar);
      for (int guard = 0; guard < 32 && !todo.empty(); ++guard) {
        const CXCursor c = todo.front();
        todo.erase(todo.begin());
        if (Kind(c) == CXCursor_CallExpr && Kind(clang_getCursorReferenced(c)) == CXCursor_Constructor &&
            Name(clang_getCursorReferenced(c)) == "AssertionResult") {
          const std::vector<CXCursor> args = Arguments(c);
          if (args.empty()) return std::nullopt;
          const std::string argtype = Text(clang_getTypeSpelling(clang_getCursorType(args.front())));
          if (argtype.find("AssertionResult") != std::string::npos) return std::nullopt;
          return EvaluateInt(args.front());
        }
        for (CXCursor k : ExprChildren(c)) todo.push_back(k);
      }
      return std::nullopt;
    }
    return EvaluateInt(cond);
  }

  Flow If(CXCursor c, const std::vector<CXCursor>& kids, const Ctx& ctx, int depth) {
    const std::size_t n = kids.size();
    std::size_t cond = 0;
    CXCursor condvar = clang_getNullCursor();
    for (std::size_t i = 0; i + 2 < n; ++i) {
      if (Kind(kids[i]) == CXCursor_VarDecl) {
        condvar = kids[i];
        cond = i + 1;
        break;
      }
    }
    if (clang_Cursor_isNull(condvar)) cond = (n == 3 && Kind(kids[0]) == CXCursor_DeclStmt) || n >= 4 ? 1 : 0;
    if (cond + 1 >= n) {
      for (CXCursor k : kids) Expression(k, ctx, depth + 1);
      return Flow::kNormal;
    }
    const bool assertion = !clang_Cursor_isNull(condvar) && (Name(condvar) == "gtest_ar" || Name(condvar) == "gtest_ar_");
    const std::size_t checks_before = gate_ != nullptr ? gate_->checks.size() : 0;
    const std::size_t not_counted_before = gate_ != nullptr ? gate_->not_counted.size() : 0;
    for (std::size_t i = 0; i <= cond; ++i) {
      if (Kind(kids[i]) == CXCursor_VarDecl || Kind(kids[i]) == CXCursor_DeclStmt) Decl(kids[i], ctx, depth + 1);
      else if (i < cond) Statement(kids[i], ctx, depth + 1);
      else Expression(kids[i], ctx, depth + 1);
    }
    if (assertion && ctx.dead.empty() && ctx.test_body && gate_ != nullptr && gate_->checks.size() == checks_before &&
        gate_->not_counted.size() == not_counted_before) {
      ++gate_->bare_assertions;
    }
    const std::optional<long long> value = Condition(condvar, kids[cond]);
    const unsigned line = LineOf(c);
    const std::string where = assertion ? "`" + MacroNameAt(c) + "(...)` at " + AtLine(line) : "the `if` at " + AtLine(line);
    auto branch = [&](std::size_t index, bool taken_when) -> Flow {
      if (index >= n) return Flow::kNormal;
      if (value && (*value != 0) != taken_when) {
        Statement(kids[index], Dead(ctx, "never runs: the condition of " + where + " is always " + (*value != 0 ? "true" : "false")), depth + 1);
        return Flow::kNormal;
      }
      if (value) return Statement(kids[index], ctx, depth + 1);
      return Statement(kids[index], Reached(ctx, "in a branch of " + where + ", whose condition is not a constant"), depth + 1);
    };
    const Flow then_flow = branch(cond + 1, true);
    const std::string then_terminator = terminator_;
    const Flow else_flow = branch(cond + 2, false);
    if (value) {
      if (*value != 0) terminator_ = then_terminator;
      return *value != 0 ? then_flow : else_flow;
    }
    if (cond + 2 < n && then_flow == Flow::kExit && else_flow == Flow::kExit) return Flow::kExit;
    return Flow::kNormal;
  }

  void Decl(CXCursor d, const Ctx& ctx, int depth) {
    Guard(d, depth);
    const CXCursorKind k = Kind(d);
    if (k == CXCursor_VarDecl) {
      if (std::optional<Declaration> decl = MakeDeclaration(d); decl && gate_ != nullptr) {
        if (ctx.dead.empty()) gate_->declarations.push_back(std::move(*decl));
        else NotCountedHere(decl->line, "Gate declaration " + decl->variable + "(" + decl->argument + ")", ctx.dead);
      }
      // The initializer is the last expression child after the name; others are types (decltype).
      const std::vector<CXCursor> kids = Children(d);
      const unsigned name = Expansion(clang_getCursorLocation(d)).offset;
      for (std::size_t i = 0; i < kids.size(); ++i) {
        const bool is_init = i + 1 == kids.size() && IsExpressionOrStatement(kids[i]) &&
                             (Expansion(clang_getRangeStart(clang_getCursorExtent(kids[i]))).offset >= name || InMacro(kids[i]));
        if (is_init) Expression(kids[i], ctx, depth + 1);
        else NotEvaluated(kids[i], ctx, "not evaluated: part of a type (decltype) at " + AtLine(LineOf(kids[i])), depth + 1);
      }
      return;
    }
    if (k == CXCursor_VarDecl || k == CXCursor_DeclStmt) {
      for (CXCursor c : Children(d)) Decl(c, ctx, depth + 1);
      return;
    }
    // Types, aliases, static_assert, local classes and functions: not run here.
    NotEvaluated(d, ctx, "not evaluated: in a declaration (type, alias, static_assert or local class) at " + AtLine(LineOf(d)), depth + 1);
  }

  // ---- expressions ----------------------------------------------------------------------------

  // The binary operator's spelling, from the tokens between its operands.
  std::string OperatorOf(CXCursor c, const std::vector<CXCursor>& kids) const {
    if (kids.size() != 2) return "";
    const CXSourceRange l = clang_getCursorExtent(kids[0]), r = clang_getCursorExtent(kids[1]);
    CXSourceLocation from = clang_getRangeEnd(l), to = clang_getRangeStart(r);
    if (InMacro(c)) {
      // In a macro: the operands' spelling (macro arguments are spelled in the file).
      CXFile fa = nullptr, fb = nullptr;
      unsigned oa = 0, ob = 0;
      clang_getFileLocation(clang_getRangeEnd(l), &fa, nullptr, nullptr, &oa);
      clang_getFileLocation(clang_getRangeStart(r), &fb, nullptr, nullptr, &ob);
      if (fa == nullptr || fb == nullptr || !clang_File_isEqual(fa, fb) || ob <= oa) return "";
      from = clang_getLocationForOffset(tu_, fa, oa);
      to = clang_getLocationForOffset(tu_, fb, ob);
    }
    const std::vector<std::string> t = Tokens(clang_getRange(from, to));
    for (const std::string& s : t) {
      if (s == "||" || s == "&&" || s == "or" || s == "and") return s == "or" ? "||" : s == "and" ? "&&" : s;
    }
    return t.size() == 1 || t.size() == 2 ? t.back() : "";
  }

  void Expression(CXCursor c, const Ctx& ctx, int depth) {
    Guard(c, depth);
    const CXCursorKind k = Kind(c);
    const std::vector<CXCursor> kids = Children(c);
    if (clang_isDeclaration(k)) {
      Decl(c, ctx, depth);
      return;
    }
    if (clang_isReference(k) || k == CXCursor_TypeRef) return;
    switch (k) {
      case CXCursor_UnaryExpr:  // sizeof, alignof, noexcept
      case CXCursor_CXXTypeidExpr: {
        std::vector<std::string> t = Tokens(clang_getCursorExtent(c));
        const std::string word = t.empty() ? "sizeof" : t.front();
        for (CXCursor kid : kids) NotEvaluated(kid, ctx, "not evaluated: operand of `" + word + "` at " + AtLine(LineOf(c)), depth + 1);
        return;
      }
      case CXCursor_LambdaExpr:
        for (CXCursor kid : kids) {
          if (Kind(kid) == CXCursor_CompoundStmt) {
            Statement(kid, Reached(ctx, "in the lambda at " + AtLine(LineOf(c)) + ": the AST does not say whether it is called"), depth + 1);
          } else {
            Expression(kid, ctx, depth + 1);  // captures' initializers
          }
        }
        return;
      case CXCursor_BinaryOperator: {
        const std::string op = OperatorOf(c, kids);
        if ((op == "||" || op == "&&") && kids.size() == 2) {
          Expression(kids[0], ctx, depth + 1);
          const std::optional<long long> left = EvaluateInt(kids[0]);
          const bool skip = left && ((op == "||") == (*left != 0));
          if (skip) {
            Expression(kids[1], Dead(ctx, "never evaluated: the left operand of `" + op + "` at " + AtLine(LineOf(c)) + " is always " +
                                              (*left != 0 ? "true" : "false")), depth + 1);
          } else if (left) {
            Expression(kids[1], ctx, depth + 1);
          } else {
            Expression(kids[1], Reached(ctx, "the right operand of `" + op + "` at " + AtLine(LineOf(c)) + ", evaluated only when the left one is " +
                                                 (op == "||" ? "false" : "true")), depth + 1);
          }
          return;
        }
        break;
      }
      case CXCursor_ConditionalOperator: {
        if (kids.size() != 3) break;
        Expression(kids[0], ctx, depth + 1);
        const std::optional<long long> v = EvaluateInt(kids[0]);
        for (std::size_t i = 1; i < 3; ++i) {
          const bool taken_when = i == 1;
          if (v && (*v != 0) != taken_when) {
            Expression(kids[i], Dead(ctx, "never evaluated: the condition of `?:` at " + AtLine(LineOf(c)) + " is a constant"), depth + 1);
          } else if (v) {
            Expression(kids[i], ctx, depth + 1);
          } else {
            Expression(kids[i], Reached(ctx, "in a branch of `?:` at " + AtLine(LineOf(c)) + ", whose condition is not a constant"), depth + 1);
          }
        }
        return;
      }
      case CXCursor_CallExpr: {
        if (RecordCall(c, ctx)) {
          for (CXCursor kid : kids) Expression(kid, ctx, depth + 1);
          return;
        }
        // An immediately invoked lambda runs here.
        const std::vector<CXCursor> e = ExprChildren(c);
        if (!e.empty() && Kind(Strip(e.front())) == CXCursor_LambdaExpr) {
          for (CXCursor kid : Children(Strip(e.front()))) {
            if (Kind(kid) == CXCursor_CompoundStmt) Statement(kid, ctx, depth + 1);
            else Expression(kid, ctx, depth + 1);
          }
          for (std::size_t i = 1; i < e.size(); ++i) Expression(e[i], ctx, depth + 1);
          return;
        }
        Follow(c, ctx, depth);
        break;
      }
      case CXCursor_CompoundStmt:  // a statement expression
        Statement(c, ctx, depth + 1);
        return;
      default: break;
    }
    for (CXCursor kid : kids) {
      if (clang_isStatement(Kind(kid)) && !clang_isExpression(Kind(kid))) Statement(kid, ctx, depth + 1);
      else Expression(kid, ctx, depth + 1);
    }
  }

  // ---- fixtures -------------------------------------------------------------------------------

  bool Visible(CXCursor c) const {
    const Where w = Expansion(clang_getCursorLocation(c));
    return InMainFile(w) || UnderGatesDir(w.file);
  }

  // The fixture classes of a test's generated class whose definitions the auditor sees (the gate
  // source or the gates directory), base first; GoogleTest's own classes are not among them.
  std::vector<CXCursor> Fixtures(CXCursor test_class) const {
    std::vector<CXCursor> chain;
    CXCursor c = test_class;
    for (int guard = 0; guard < 16 && !clang_Cursor_isNull(c); ++guard) {
      CXCursor base = clang_getNullCursor();
      for (CXCursor k : Children(c)) {
        if (Kind(k) != CXCursor_CXXBaseSpecifier) continue;
        const CXCursor d = clang_getCursorDefinition(clang_getTypeDeclaration(clang_getCanonicalType(clang_getCursorType(k))));
        if (!clang_Cursor_isNull(d) && Visible(d)) base = d;
      }
      if (clang_Cursor_isNull(base)) break;
      chain.insert(chain.begin(), base);
      c = base;
    }
    return chain;
  }

  CXCursor FixtureMethod(CXCursor fixture, const std::string& name) const {
    for (CXCursor k : Children(fixture)) {
      if (Kind(k) == CXCursor_CXXMethod && Name(k) == name) {
        const CXCursor def = clang_getCursorDefinition(k);
        if (!clang_Cursor_isNull(def) && Visible(def)) return def;
      }
    }
    return clang_getNullCursor();
  }

  // The most derived fixture of `fixtures` (bases first) that defines the virtual method `name`,
  // with that definition; else the null cursors.
  std::pair<CXCursor, CXCursor> MostDerived(const std::vector<CXCursor>& fixtures, const std::string& name) const {
    for (auto f = fixtures.rbegin(); f != fixtures.rend(); ++f) {
      const CXCursor def = FixtureMethod(*f, name);
      if (!clang_Cursor_isNull(def)) return {*f, def};
    }
    return {clang_getNullCursor(), clang_getNullCursor()};
  }

  // The fixture's default constructor (the one GoogleTest's generated test class calls) or its
  // destructor, when the auditor sees the definition; else the null cursor.
  CXCursor FixtureSpecialMember(CXCursor fixture, CXCursorKind kind) const {
    for (CXCursor k : Children(fixture)) {
      if (Kind(k) != kind || (kind == CXCursor_Constructor && !clang_CXXConstructor_isDefaultConstructor(k))) continue;
      const CXCursor def = clang_getCursorDefinition(k);
      if (!clang_Cursor_isNull(def) && Visible(def)) return def;
    }
    return clang_getNullCursor();
  }

  static std::string Label(CXCursor def) {
    const CXCursor parent = clang_getCursorSemanticParent(def);
    return (Kind(parent) == CXCursor_ClassDecl || Kind(parent) == CXCursor_StructDecl ? Name(parent) + "::" : "") + Name(def);
  }

  // One test as GoogleTest 1.12 runs it (gtest.cc: TestInfo::Run, Test::Run): it constructs the
  // fixture (bases first); unless the construction recorded a fatal failure or a skip it runs
  // SetUp(), the body unless SetUp() did, and TearDown(); then it destroys the fixture (derived
  // first). When the construction throws, GoogleTest records a failure and has no object to run or
  // destroy; C++ destroys the bases whose construction finished. A constructor cannot spell
  // GTEST_SKIP(), FAIL() or ASSERT_... (they return a value), but a function it calls can.
  void WalkTest(const Site& site) {
    const std::vector<CXCursor> fixtures = Fixtures(site.test_class);
    std::string thrown;  // why the rest of the construction and the destructors of the unfinished part never run
    std::string ended;   // why SetUp(), the body and TearDown() never run
    std::size_t constructed = 0;  // fixtures[0, constructed) finish their construction
    for (CXCursor f : fixtures) {
      terminator_.clear();
      test_end_.clear();
      Ctx ctx;
      ctx.dead = thrown;
      const Flow flow = Construct(f, ctx, 1);
      if (!thrown.empty()) continue;
      const std::string constructor = Name(f) + "::" + Name(f) + "()";
      if (flow == Flow::kExit && EndsByThrow(terminator_)) {
        thrown = "never runs: " + constructor + " always throws first (" + terminator_ + ")";
        continue;
      }
      ++constructed;
      if (ended.empty() && !test_end_.empty()) ended = "never runs: " + constructor + " always ends the test first (" + test_end_ + ")";
    }
    if (ended.empty()) ended = thrown;
    Ctx body;
    body.test_body = true;
    body.dead = ended;
    // SetUp() and TearDown() are virtual: GoogleTest calls the most derived fixture's, and a base
    // class's runs only when that one calls it (then the walk follows the call).
    if (const auto [f, set_up] = MostDerived(fixtures, "SetUp"); !clang_Cursor_isNull(set_up)) {
      terminator_.clear();
      test_end_.clear();
      const Flow flow = WalkFunction(set_up, Dead(Ctx{}, ended), 1);
      const std::string why = flow == Flow::kExit && !EndsByReturn(terminator_) ? terminator_ : test_end_;
      if (body.dead.empty() && !why.empty()) body.dead = "never runs: " + Name(f) + "::SetUp() always ends the test first (" + why + ")";
    }
    Statement(site.body, body, 0);
    if (const auto [f, tear_down] = MostDerived(fixtures, "TearDown"); !clang_Cursor_isNull(tear_down)) {
      WalkFunction(tear_down, Dead(Ctx{}, ended), 1);
    }
    for (std::size_t i = fixtures.size(); i-- > 0;) {
      const CXCursor destructor = FixtureSpecialMember(fixtures[i], CXCursor_Destructor);
      if (!clang_Cursor_isNull(destructor)) WalkFunction(destructor, Dead(Ctx{}, i < constructed ? "" : thrown), 1);
    }
  }

  // Where GCC 12 records std::source_location::current() of a default argument evaluated in a
  // default member initializer (checked with a probe printing it, and against the ledger of
  // tests/scope_cases/fixtures_gate.cpp): at the constructor that uses the initializer, on the last
  // token of its member-initializer list (the `)` or `}` closing the last initializer) or, without
  // one, the `{` of its body; at the constructor's name when it is defaulted, at the class's name
  // when it is implicit.
  Where ConstructorSite(CXCursor fixture, CXCursor constructor, bool has_initializers) const {
    if (clang_Cursor_isNull(constructor)) return Expansion(clang_getCursorLocation(fixture));
    for (CXCursor k : Children(constructor)) {
      if (Kind(k) != CXCursor_CompoundStmt) continue;
      const Where body = Expansion(clang_getRangeStart(clang_getCursorExtent(k)));
      if (!has_initializers) return body;
      const CXSourceRange head = clang_getRange(clang_getRangeStart(clang_getCursorExtent(constructor)), clang_getRangeStart(clang_getCursorExtent(k)));
      CXToken* tokens = nullptr;
      unsigned n = 0;
      clang_tokenize(tu_, head, &tokens, &n);
      Where last = body;
      for (unsigned i = 0; i < n; ++i) {
        const Where w = Expansion(clang_getTokenLocation(tu_, tokens[i]));
        if (w.offset < body.offset) last = w;
      }
      clang_disposeTokens(tu_, tokens, n);
      return last;
    }
    return Expansion(clang_getCursorLocation(constructor));
  }

  // The construction of one fixture class (its bases are constructed before): the initializers of
  // bases in its default constructor's member-initializer list, then each member in declaration
  // order (a Gate member is the test's declaration) with its initializer from that list, or else
  // its default member initializer, then the constructor's body. Returns how the body ends.
  Flow Construct(CXCursor fixture, const Ctx& ctx, int depth) {
    const CXCursor constructor = FixtureSpecialMember(fixture, CXCursor_Constructor);
    Ctx inner = ctx;
    inner.via_function = Name(fixture) + "::" + Name(fixture);
    inner.test_body = false;
    std::map<std::string, CXCursor> listed;  // member USR -> its initializer in the constructor
    std::vector<CXCursor> bases;             // initializers of bases (or a delegated-to constructor)
    CXCursor body = clang_getNullCursor();
    if (!clang_Cursor_isNull(constructor)) {
      stack_.push_back(Usr(constructor));
      reached_functions_.insert(Usr(constructor));
      // The children: [MemberRef or TypeRef, initializer]... then the body.
      std::optional<std::string> member;
      for (CXCursor k : Children(constructor)) {
        if (Kind(k) == CXCursor_MemberRef) {
          member = Usr(clang_getCursorReferenced(k));
        } else if (Kind(k) == CXCursor_CompoundStmt) {
          body = k;
        } else if (IsExpressionOrStatement(k)) {
          if (member) listed[*member] = k;
          else bases.push_back(k);
          member.reset();
        } else {
          member.reset();
        }
      }
    }
    for (CXCursor b : bases) Expression(b, inner, depth + 1);
    for (CXCursor field : Children(fixture)) {
      if (Kind(field) != CXCursor_FieldDecl) continue;
      const auto in_list = listed.find(Usr(field));
      const CXCursor initializer = in_list != listed.end() ? in_list->second : clang_getNullCursor();
      if (std::optional<Declaration> decl = MakeDeclaration(field, initializer); decl && gate_ != nullptr) {
        if (inner.dead.empty()) gate_->declarations.push_back(std::move(*decl));
        else NotCountedHere(decl->line, "Gate declaration " + decl->variable + "(" + decl->argument + ")", inner.dead);
      }
      // The default member initializer is the last expression child after the name; others are
      // types (decltype).
      const std::vector<CXCursor> kids = Children(field);
      const unsigned name = Expansion(clang_getCursorLocation(field)).offset;
      for (std::size_t i = 0; i < kids.size(); ++i) {
        if (!IsExpressionOrStatement(kids[i])) continue;
        const bool is_default = i + 1 == kids.size() && (Expansion(clang_getRangeStart(clang_getCursorExtent(kids[i]))).offset >= name || InMacro(kids[i]));
        if (!is_default) {
          NotEvaluated(kids[i], inner, "not evaluated: part of a type (decltype) at " + AtLine(LineOf(kids[i])), depth + 1);
        } else if (!clang_Cursor_isNull(initializer)) {
          NotEvaluated(kids[i], inner,
                       "not evaluated: the default member initializer of `" + Name(field) + "` is replaced by the member initializer at " +
                           AtLine(LineOf(initializer)) + " in " + inner.via_function + "()",
                       depth + 1);
        } else {
          Ctx in_default = inner;
          in_default.call_site = ConstructorSite(fixture, constructor, !listed.empty() || !bases.empty());
          Expression(kids[i], in_default, depth + 1);
        }
      }
      if (!clang_Cursor_isNull(initializer)) Expression(initializer, inner, depth + 1);
    }
    Flow flow = Flow::kNormal;
    if (!clang_Cursor_isNull(body)) flow = Statement(body, inner, depth + 1);
    if (!clang_Cursor_isNull(constructor)) stack_.pop_back();
    return flow;
  }

  // Walks the body of the function `def` as if called here; returns how its flow ends.
  Flow WalkFunction(CXCursor def, const Ctx& ctx, int depth) {
    const std::string usr = Usr(def);
    if (std::find(stack_.begin(), stack_.end(), usr) != stack_.end()) return Flow::kNormal;  // recursion
    stack_.push_back(usr);
    reached_functions_.insert(usr);
    Ctx inner = ctx;
    if (inner.via_function.empty()) inner.via_function = Label(def);
    inner.test_body = false;
    inner.call_site.reset();
    Flow flow = Flow::kNormal;
    for (CXCursor kid : Children(def)) {
      if (Kind(kid) == CXCursor_CompoundStmt) flow = Statement(kid, inner, depth + 1);
    }
    stack_.pop_back();
    return flow;
  }

  // A call of a function whose definition is in the gate source or under the gates directory: its
  // body runs here.
  void Follow(CXCursor call, const Ctx& ctx, int depth) {
    const CXCursor callee = clang_getCursorReferenced(call);
    const CXCursorKind k = Kind(callee);
    if (k != CXCursor_FunctionDecl && k != CXCursor_CXXMethod && k != CXCursor_FunctionTemplate) return;
    CXCursor def = clang_getCursorDefinition(callee);
    if (clang_Cursor_isNull(def)) return;
    const Where w = Expansion(clang_getCursorLocation(def));
    if (!(InMainFile(w) || UnderGatesDir(w.file))) return;
    if (Usr(clang_getCursorSemanticParent(def)) == kGateTypeUsr) return;
    const std::string outer_throws = call_throws_;  // a callee's own statements reset it
    const Flow flow = WalkFunction(def, ctx, depth);
    call_throws_ = outer_throws;
    // A function that always ends with GTEST_SKIP(), FAIL() or a failing fatal assertion returns
    // to its caller, which goes on; GoogleTest looks at the skip or the fatal failure only after
    // the fixture's constructor and after SetUp() (WalkTest).
    if (flow == Flow::kExit && ctx.dead.empty() && ctx.if_reached.empty() && test_end_.empty() && EndsByGtest(terminator_)) {
      test_end_ = Label(def) + "(): " + terminator_;
    }
    // A function that always throws does not return: the statement that calls it (on every path
    // through it) ends the caller's flow, as a `throw` there would (Statement).
    if (flow == Flow::kExit && ctx.dead.empty() && ctx.if_reached.empty() && call_throws_.empty() && EndsByThrow(terminator_)) {
      call_throws_ = "dead code after `throw` in " + Label(def) + "(), which the call at " + AtLine(LineOf(call)) + " always reaches";
    }
  }

  // ---- what no gate runs ----------------------------------------------------------------------

  void InactiveBranches() {
    if (main_file_ == nullptr) return;
    CXSourceRangeList* ranges = clang_getSkippedRanges(tu_, main_file_);
    if (ranges == nullptr) return;
    for (unsigned r = 0; r < ranges->count; ++r) {
      const CXSourceRange range = ranges->ranges[r];
      const unsigned first = Expansion(clang_getRangeStart(range)).line, last = Expansion(clang_getRangeEnd(range)).line;
      CXToken* tokens = nullptr;
      unsigned n = 0;
      clang_tokenize(tu_, range, &tokens, &n);
      for (unsigned i = 0; i + 1 < n; ++i) {
        const std::string op = Text(clang_getTokenSpelling(tu_, tokens[i]));
        const std::string name = Text(clang_getTokenSpelling(tu_, tokens[i + 1]));
        if ((op != "." && op != "->") || !LooksLikeHelper(name)) continue;
        const Where at = Expansion(clang_getTokenLocation(tu_, tokens[i + 1]));
        std::string literals;
        for (unsigned a = i + 2; a < n; ++a) {
          const std::string t = Text(clang_getTokenSpelling(tu_, tokens[a]));
          if (t == ";") break;
          if (clang_getTokenKind(tokens[a]) == CXToken_Literal && !t.empty() && t.front() == '"') {
            literals += (literals.empty() ? "" : ", ") + t.substr(1, t.size() - 2);
          }
        }
        const NotCounted item{at.line, name + "(" + literals + ")",
                              "not compiled: in an inactive preprocessor branch (lines " + std::to_string(first) + "-" + std::to_string(last) + ")"};
        bool placed = false;
        for (std::size_t g = 0; g < sites_.size(); ++g) {
          if (at.offset >= sites_[g].body_begin && at.offset <= sites_[g].body_end) {
            scope_.gates[g].not_counted.push_back(item);
            placed = true;
          }
        }
        if (!placed) scope_.unattributed.push_back(item);
      }
      clang_disposeTokens(tu_, tokens, n);
    }
    clang_disposeSourceRangeList(ranges);
    for (GateScope& g : scope_.gates) {
      std::stable_sort(g.not_counted.begin(), g.not_counted.end(), [](const NotCounted& a, const NotCounted& b) { return a.line < b.line; });
    }
  }

  // Kit calls in functions of the file that no test reaches.
  void Unattributed() {
    std::vector<CXCursor> functions;
    CollectFunctions(root_, functions, 0);
    for (CXCursor f : functions) {
      if (reached_functions_.count(Usr(f)) || Name(f) == "TestBody") continue;
      Collect(f, Label(f), 0);
    }
    std::stable_sort(scope_.unattributed.begin(), scope_.unattributed.end(),
                     [](const NotCounted& a, const NotCounted& b) { return a.line < b.line; });
  }

  void CollectFunctions(CXCursor parent, std::vector<CXCursor>& out, int depth) {
    if (depth > 64) return;
    for (CXCursor c : Children(parent)) {
      const CXCursorKind k = Kind(c);
      if (!InMainFile(Expansion(clang_getCursorLocation(c)))) continue;
      if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_ClassDecl || k == CXCursor_StructDecl ||
          k == CXCursor_ClassTemplate) {
        CollectFunctions(c, out, depth + 1);
      } else if ((k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_FunctionTemplate || k == CXCursor_Constructor ||
                  k == CXCursor_Destructor) && clang_isCursorDefinition(c)) {
        out.push_back(c);
      }
    }
  }

  void Collect(CXCursor c, const std::string& function, int depth) {
    Guard(c, depth);
    if (Kind(c) == CXCursor_CallExpr && !seen_calls_.count(Expansion(clang_getCursorLocation(c)).offset)) {
      const CXCursor method = clang_getCursorReferenced(c);
      if (Kind(method) == CXCursor_CXXMethod && Usr(clang_getCursorSemanticParent(method)) == kGateTypeUsr && LooksLikeHelper(Name(method))) {
        scope_.unattributed.push_back({LineOf(c), DescribeCall(c, method), "in " + function + "(), which no test in this file calls"});
      }
    }
    for (CXCursor k : Children(c)) Collect(k, function, depth + 1);
  }

  CXTranslationUnit tu_;
  CXCursor root_;
  std::string main_path_, main_name_;
  CXFile main_file_ = nullptr;
  fs::path gates_dir_;
  FileScope scope_;
  std::vector<Site> sites_;
  GateScope* gate_ = nullptr;
  CXCursor pending_goto_ = clang_getNullCursor();
  std::string terminator_;  // why code after the last statement that ended the flow is dead
  std::string test_end_;    // a function called on every path that always ends the test (Follow)
  std::string call_throws_; // a function the current statement calls on every path always throws (Follow)
  std::vector<std::string> stack_;
  std::set<std::string> reached_functions_;
  std::set<unsigned> seen_calls_;
  mutable std::map<std::string, bool> under_gates_dir_;
  std::map<std::string, std::vector<MacroUse>> expansions_;  // macro invocations by file
};

}  // namespace

namespace {

// Forks the child that parses `source` and walks its AST: with the shared precompiled header `pch`
// when it stands in for the source's own first includes, else (or when that parse fails) alone.
IsolatedJob StartExtraction(const fs::path& source, const std::vector<std::string>& args, const std::string& display_path,
                            const fs::path& gates_dir, const SharedPch* pch) {
  std::error_code ec;
  const std::string path = fs::weakly_canonical(fs::absolute(source), ec).string();
  return StartIsolated(display_path, [&] {
    if (pch != nullptr) {
      std::optional<TranslationUnit> unit;
      try {
        ParseMode with_pch;
        with_pch.include_pch = pch->file;
        unit.emplace(path, args, with_pch);
      } catch (const AuditError&) {
        unit.reset();  // the source's own diagnostics come from the parse without it
      }
      if (unit && LeadingIncludesCover(*unit, path, pch->headers)) {
        return FileScopeToJson(Walker(*unit, path, display_path, gates_dir).Run());
      }
    }
    const TranslationUnit unit(path, args);
    return FileScopeToJson(Walker(unit, path, display_path, gates_dir).Run());
  });
}

// Sources parsed at once (one child process each).
unsigned Parallelism() { return std::max(1u, std::min(4u, std::thread::hardware_concurrency())); }

// The scopes of `sources` (source, display path) in order; nullopt for a source without an entry
// in the database when `skip_unknown`. With `shared_pch`, the sources that compile with the same
// flags share one precompiled header of the system headers they open with (scope_pch.h), built
// by its own child process before they parse; the others parse meanwhile.
std::vector<std::optional<FileScope>> ExtractAll(const std::vector<std::pair<fs::path, std::string>>& sources,
                                                 const fs::path& compile_commands, const fs::path& gates_dir, bool skip_unknown,
                                                 bool shared_pch) {
  const std::size_t n = sources.size();
  std::vector<std::optional<std::vector<std::string>>> args(n);
  for (std::size_t i = 0; i < n; ++i) {
    try {
      args[i] = CompileArguments(compile_commands, sources[i].first);
    } catch (const AuditError& e) {
      if (skip_unknown && std::string(e.what()).find("no entry in") != std::string::npos) continue;
      throw;
    }
  }
  // Groups of sources with the same flags, in order of their first source.
  std::vector<std::vector<std::size_t>> groups;
  std::vector<std::size_t> group_of(n, 0), place_in_group(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (!args[i]) continue;
    std::size_t g = 0;
    while (g < groups.size() && *args[groups[g].front()] != *args[i]) ++g;
    if (g == groups.size()) groups.emplace_back();
    group_of[i] = g;
    place_in_group[i] = groups[g].size();
    groups[g].push_back(i);
  }
  struct Task {
    bool build_pch = false;
    std::size_t index = 0;  // the group (build_pch) or the source
  };
  std::vector<Task> tasks;
  std::vector<bool> wants_pch(groups.size(), false);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    wants_pch[g] = shared_pch && groups[g].size() >= 2;
    if (wants_pch[g]) tasks.push_back({true, g});
  }
  for (int pass = 0; pass < 2; ++pass) {  // sources that wait for no precompiled header first
    for (std::size_t i = 0; i < n; ++i) {
      if (args[i] && wants_pch[group_of[i]] == (pass == 1)) tasks.push_back({false, i});
    }
  }
  std::optional<TemporaryDirectory> scratch;
  if (std::find(wants_pch.begin(), wants_pch.end(), true) != wants_pch.end()) scratch.emplace("pstrain-audit-scope-");

  std::vector<std::optional<FileScope>> out(n);
  std::vector<bool> pch_done(groups.size(), false);
  std::vector<std::optional<SharedPch>> pch(groups.size());
  std::deque<std::pair<Task, IsolatedJob>> running;
  auto finish_oldest = [&] {
    const auto [task, job] = running.front();
    running.pop_front();
    if (task.build_pch) {
      pch_done[task.index] = true;
      try {
        pch[task.index] = SharedPchFromJson(FinishIsolated(job));
      } catch (const std::exception& e) {
        pch[task.index].reset();  // no shared header: each source parses alone
      }
      return;
    }
    out[task.index] = FileScopeFromJson(FinishIsolated(job));
  };
  try {
    for (const Task& task : tasks) {
      if (task.build_pch) {
        const fs::path dir = scratch->path() / std::to_string(task.index);
        fs::create_directory(dir);
        std::vector<fs::path> files;
        for (std::size_t i : groups[task.index]) files.push_back(sources[i].first);
        const std::vector<std::string>& flags = *args[groups[task.index].front()];
        running.emplace_back(task, StartIsolated("the shared precompiled header", [&] {
          return SharedPchToJson(BuildSharedPch(files, flags, dir));
        }));
      } else {
        const std::size_t i = task.index, g = group_of[i];
        while (wants_pch[g] && !pch_done[g]) finish_oldest();
        const SharedPch* shared = pch[g] && pch[g]->applies.at(place_in_group[i]) ? &*pch[g] : nullptr;
        running.emplace_back(task, StartExtraction(sources[i].first, *args[i], sources[i].second, gates_dir, shared));
      }
      if (running.size() >= Parallelism()) finish_oldest();
    }
    while (!running.empty()) finish_oldest();
  } catch (...) {
    for (const auto& [task, job] : running) AbandonIsolated(job);
    throw;
  }
  return out;
}

}  // namespace

FileScope ExtractFileScope(const fs::path& source, const fs::path& compile_commands, const std::string& display_path,
                           const fs::path& gates_dir) {
  return FileScopeFromJson(FinishIsolated(StartExtraction(source, CompileArguments(compile_commands, source), display_path, gates_dir, nullptr)));
}

fs::path DefaultCompileCommands() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "build/compile_commands.json";
  return self.parent_path().parent_path() / "compile_commands.json";
}

ScopeReport ExtractScope(const fs::path& gates, const fs::path& compile_commands, bool shared_pch) {
  std::error_code ec;
  const fs::file_status status = fs::status(gates, ec);
  if (ec || !fs::exists(status)) throw AuditErrorIn(gates.string(), "no such file or directory");
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
      } else if (name.ends_with(".cpp") || name.ends_with(".cc")) {
        others.push_back(it->path());
      }
    }
    if (ec) throw AuditErrorIn(gates.string(), "cannot list the directory: " + ec.message());
    std::sort(files.begin(), files.end(), by_name);
    std::sort(others.begin(), others.end(), by_name);
  } else {
    files.push_back(gates);
    dir = dir.parent_path();
  }
  ScopeReport report;
  report.gates_dir = dir.filename().string();
  std::vector<std::pair<fs::path, std::string>> sources;
  for (const fs::path& file : files) sources.emplace_back(file, report.gates_dir + "/" + file.filename().string());
  const std::size_t gate_files = sources.size();
  for (const fs::path& file : others) sources.emplace_back(file, report.gates_dir + "/" + file.filename().string());
  // Gate sources must compile; another source without a database entry is not built, so not read.
  std::vector<std::optional<FileScope>> scopes = ExtractAll(sources, compile_commands, dir, /*skip_unknown=*/true, shared_pch);
  for (std::size_t i = 0; i < gate_files; ++i) {
    if (!scopes[i]) CompileArguments(compile_commands, sources[i].first);  // throws, naming the file
    report.files.push_back(std::move(*scopes[i]));
  }
  for (std::size_t i = gate_files; i < sources.size(); ++i) {
    if (!scopes[i]) continue;
    const std::string& path = sources[i].second;
    for (const GateScope& g : scopes[i]->gates) {
      for (const Check& c : g.checks) {
        report.other_sources.push_back({c.line, path + ": " + DescribeCheck(c), "in test " + g.FullName() + ", not in a *_gate.cpp file"});
      }
    }
    for (const NotCounted& n : scopes[i]->unattributed) report.other_sources.push_back({n.line, path + ": " + n.what, n.reason});
  }
  return report;
}

}  // namespace pstrain::audit
