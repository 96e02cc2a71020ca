// `audit scope`: rendering the gate scope as Markdown (docs/contract.md's section) and JSON.
#include "scope/scope_report.h"

#include "report/report_text.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <set>

namespace pstrain::audit {

namespace json = boost::json;

namespace {

// The kit's helpers in the order reports list them, with the words used for each.
struct HelperWords {
  const char* helper;
  const char* label;
};
constexpr HelperWords kHelperOrder[] = {
    {"ExpectProducedFilesIdentical", "produced files"},
    {"ExpectCopiedInputsIdentical", "copied inputs"},
    {"ExpectJsonFieldsEqual", "fields"},
    {"ExpectProvenanceField", "provenance fields"},
    {"ExpectRejected", "rejected"},
    {"ExpectWithin", "within tolerance"},
};

std::string Code(const std::string& s) { return "`" + s + "`"; }
std::string Render(const SourceValue& v) { return v.literal ? v.text : Code(v.text); }

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : sep) + item;
  return out;
}

void AddUnique(std::vector<std::string>& items, const std::string& item) {
  if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
}

std::string RenderList(const ValueList& list, const std::string& fallback) {
  if (!list.braced) return list.expression.empty() ? Code(fallback) : Code(list.expression) + " (not a literal list)";
  std::vector<std::string> items;
  for (const SourceValue& v : list.items) items.push_back(Render(v));
  return Join(items, ", ");
}

// The items one check contributes to its helper's group.
std::vector<std::string> CheckItems(const Check& c) {
  const std::vector<SourceValue>& s = c.subjects.items;
  if (!c.subjects.braced) {
    return {c.subjects.expression.empty() ? Code(c.arguments) : Code(c.subjects.expression) + " (not a literal list)"};
  }
  if (c.helper == "ExpectProvenanceField" && s.size() == 2) return {Render(s[0]) + " " + Render(s[1])};
  if (c.helper == "ExpectRejected" && s.size() == 2) {
    return {(s[0].literal ? "\"" + s[0].text + "\"" : Code(s[0].text)) + " by check " + Render(s[1])};
  }
  if (c.helper == "ExpectWithin" && s.size() == 1) {
    std::string item = s[0].literal ? "\"" + s[0].text + "\"" : Code(s[0].text);
    std::vector<std::string> params;
    for (const auto& [name, value] : c.parameters) params.push_back(name + " " + Render(value));
    return {item + (params.empty() ? "" : " (" + Join(params, ", ") + ")")};
  }
  std::vector<std::string> items;
  for (const SourceValue& v : s) items.push_back(Render(v));
  if (items.empty()) items.push_back("(empty list: checks nothing, fails the gate)");
  return items;
}

}  // namespace

namespace {

// "46:33", or "gates/gate_fixture.h:12:5" for a call site outside the gate's file.
std::string SiteIn(const GateScope& gate, const Check& c) {
  const std::string lc = std::to_string(c.line) + ":" + std::to_string(c.column);
  return c.file.empty() || c.file == gate.file ? lc : c.file + ":" + lc;
}

std::string GroupedSummary(const GateScope& gate, bool unconditional) {
  std::vector<const Check*> checks;
  for (const Check& c : gate.checks) {
    if (c.unconditional() == unconditional) checks.push_back(&c);
  }
  if (checks.empty()) return "nothing";
  std::vector<std::string> order;
  for (const HelperWords& w : kHelperOrder) order.push_back(w.helper);
  for (const Check* c : checks) AddUnique(order, c->helper);
  std::vector<std::string> groups;
  for (const std::string& helper : order) {
    std::vector<std::string> items, sites;
    std::size_t calls = 0;
    for (const Check* c : checks) {
      if (c->helper != helper) continue;
      ++calls;
      for (const std::string& item : CheckItems(*c)) AddUnique(items, item);
      AddUnique(sites, SiteIn(gate, *c));
    }
    if (calls == 0) continue;
    std::string label = helper;
    for (const HelperWords& w : kHelperOrder) {
      if (helper == w.helper) label = w.label;
    }
    std::string group = label + " " + Join(items, ", ");
    group += calls > 1 ? " (" + std::to_string(calls) + " calls at " + Join(sites, ", ") + ")" : " (at " + sites.front() + ")";
    groups.push_back(group);
  }
  return Join(groups, "; ");
}

}  // namespace

std::string CheckedSummary(const GateScope& gate) { return GroupedSummary(gate, true); }
std::string IfReachedSummary(const GateScope& gate) { return GroupedSummary(gate, false); }

std::string DescribesSummary(const Declaration& d) {
  const std::string variable = d.variable.empty() ? "" : " (" + Code(d.variable) + ")";
  if (!d.structured) return "declaration " + Code(d.argument) + " is not a literal; its fields are not read" + variable + ".";
  std::vector<std::string> parts;
  parts.push_back(d.kind ? "kind " + Render(*d.kind) : "kind not declared");
  parts.push_back(d.shard_counts ? (d.shard_counts->braced && d.shard_counts->items.empty()
                                        ? "no shard counts declared"
                                        : "declared shard counts " + RenderList(*d.shard_counts, ""))
                                 : "shard counts not declared");
  if (!d.passes) parts.push_back("passes not declared");
  else if (d.passes->literal) parts.push_back(d.passes->text + (d.passes->text == "1" ? " pass" : " passes"));
  else parts.push_back("passes " + Code(d.passes->text));
  std::string out = Join(parts, "; ") + ".";
  if (!d.limitation || (d.limitation->literal && d.limitation->text.empty())) {
    out += " No limitation declared.";
  } else if (!d.limitation->literal) {
    out += " Limitation " + Code(d.limitation->text) + " (not a literal).";
  } else {
    std::string text = d.limitation->text;
    const char last = text.back();
    if (last != '.' && last != '!' && last != '?') text += '.';
    out += " Limitation: " + text;
  }
  return out;
}

std::string RenderLedgerMarkdown(const LedgerCrossCheck& ledger) {
  std::string out = "### Ledger cross-check: " + ledger.ledger + "\n\n";
  const std::size_t problems = ledger.problems();
  out += Plural(ledger.records, "record", "records") + "; " + Plural(problems, "problem", "problems") + " (" +
         std::to_string(ledger.Count(FindingKind::kNeverExecuted)) + " never executed, " +
         std::to_string(ledger.Count(FindingKind::kFailed)) + " failed, " + std::to_string(ledger.Count(FindingKind::kUnderClaim)) +
         " under-claimed, " + std::to_string(ledger.Count(FindingKind::kNoDeclarationRecord)) + " without a declaration record); " +
         Plural(ledger.Count(FindingKind::kPassed), "call site", "call sites") + " executed and passed, " +
         std::to_string(ledger.Count(FindingKind::kNotReached)) + " CHECKED if reached and not reached.\n";
  if (!ledger.findings.empty()) out += "\n";
  for (const LedgerFinding& f : ledger.findings) {
    out += "- " + std::string(FindingLabel(f.kind)) + ": " + Code(f.gate) + " " + f.what + " (" + f.where + ")";
    if (f.kind == FindingKind::kPassed || (f.count > 1 && f.kind != FindingKind::kFailed)) out += " ×" + std::to_string(f.count);
    if (!f.detail.empty()) out += ": " + f.detail;
    out += "\n";
  }
  return out;
}

std::string RenderMarkdown(const ScopeReport& report, const LedgerCrossCheck* ledger) {
  const std::string dir = report.gates_dir.empty() ? "gates" : report.gates_dir;
  std::string out;
  out += "<!-- Generated by `audit scope` from " + dir + "/*_gate.cpp; do not edit by hand. "
         "Regenerate with `audit scope --update docs/contract.md`. -->\n\n";
  out += "CHECKED lists what a gate's calls of the kit's assertion helpers compare, read from the compiler's view of "
         "its body (libclang), with each call site (line:column): each call fails the gate on a mismatch and writes a "
         "ledger record with its call site, and it runs on every path through the gate that does not end in a failure. "
         "CHECKED if reached lists the calls the AST cannot show to run (a loop that may run zero times, a branch whose "
         "condition is not a constant, a lambda, a catch handler, the right operand of || or &&): a ledger run "
         "(`audit scope --ledger`) decides. DESCRIBES repeats the gate's declaration (kind, shard counts, passes, "
         "limitation); a declaration certifies nothing.\n\n";
  std::size_t gates = 0, nothing = 0, undeclared = 0, if_reached = 0;
  for (const FileScope& f : report.files) {
    for (const GateScope& g : f.gates) {
      ++gates;
      std::size_t unconditional = 0;
      for (const Check& c : g.checks) {
        unconditional += c.unconditional() ? 1 : 0;
        if_reached += c.unconditional() ? 0 : 1;
      }
      nothing += unconditional == 0 ? 1 : 0;
      undeclared += g.declared() ? 0 : 1;
    }
  }
  if (report.files.empty()) {
    out += "No gate sources: " + Code(dir + "/") + " has no " + Code("*_gate.cpp") +
           " file, so nothing is CHECKED or DESCRIBED here yet.\n";
  } else {
    out += Plural(gates, "gate", "gates") + " in " + Plural(report.files.size(), "file", "files") + "; " +
           std::to_string(nothing) + " check nothing on every path; " + std::to_string(undeclared) + " undeclared; " +
           Plural(if_reached, "call", "calls") + " CHECKED if reached.\n";
  }
  for (const FileScope& f : report.files) {
    out += "\n### " + f.path + "\n\n";
    if (f.gates.empty()) out += "No test in this file.\n";
    std::size_t number = 0;
    for (const GateScope& g : f.gates) {
      out += std::to_string(++number) + ". " + Code(g.FullName()) + (g.macro == "TEST" ? "" : " (" + g.macro + ")") +
             (g.declared() ? "" : " — undeclared") + "\n";
      out += "   - CHECKED (mechanically asserted): " + CheckedSummary(g) + ".\n";
      bool any_if_reached = false;
      for (const Check& c : g.checks) any_if_reached = any_if_reached || !c.unconditional();
      if (any_if_reached) {
        out += "   - CHECKED if reached (the ledger decides): " + IfReachedSummary(g) + ".\n";
        for (const Check& c : g.checks) {
          if (!c.unconditional()) out += "     - " + SiteIn(g, c) + " " + DescribeCheck(c) + ": " + c.if_reached + "\n";
        }
      }
      if (!g.declared()) out += "   - DESCRIBES (certifies nothing): undeclared: no `Gate` declaration in the body.\n";
      for (const Declaration& d : g.declarations) out += "   - DESCRIBES (certifies nothing): " + DescribesSummary(d) + "\n";
      if (g.bare_assertions > 0) {
        out += "   - Also in the body: " + Plural(g.bare_assertions, "bare ASSERT_/EXPECT_ assertion", "bare ASSERT_/EXPECT_ assertions") +
               " (preconditions or checks this report does not attribute to a subject).\n";
      }
      if (!g.not_counted.empty()) {
        out += "   - Not counted:\n";
        for (const NotCounted& n : g.not_counted) out += "     - " + n.what + " — " + n.reason + "\n";
      }
    }
    if (!f.unattributed.empty()) {
      out += "\nHelper calls no gate in this file makes (not counted):\n\n";
      for (const NotCounted& n : f.unattributed) out += "- " + n.what + " (line " + std::to_string(n.line) + ") — " + n.reason + "\n";
    }
    if (!f.notes.empty()) {
      out += "\nSource constructs the auditor did not understand:\n\n";
      for (const std::string& n : f.notes) out += "- line " + n + "\n";
    }
  }
  if (!report.other_sources.empty()) {
    out += "\n### Helper calls in other sources of " + Code(dir + "/") + "\n\n"
           "Not attributed to any gate (a gate may reach them through a shared helper; the ledger cross-check shows "
           "which gates run them):\n\n";
    for (const NotCounted& n : report.other_sources) out += "- " + n.what + " (line " + std::to_string(n.line) + ") — " + n.reason + "\n";
  }
  if (ledger != nullptr) out += "\n" + RenderLedgerMarkdown(*ledger);
  return out;
}

namespace {

json::value JsonValue(const SourceValue& v) {
  if (v.literal) return json::value(v.text);
  json::object o;
  o["expression"] = v.text;
  return o;
}

json::value JsonList(const ValueList& list) {
  if (!list.braced) {
    json::object o;
    o["expression"] = list.expression;
    return o;
  }
  json::array a;
  for (const SourceValue& v : list.items) a.push_back(JsonValue(v));
  return a;
}

json::array JsonNotCounted(const std::vector<NotCounted>& items) {
  json::array a;
  for (const NotCounted& n : items) {
    json::object o;
    o["line"] = n.line;
    o["what"] = n.what;
    o["reason"] = n.reason;
    a.push_back(std::move(o));
  }
  return a;
}

}  // namespace

std::string RenderJson(const ScopeReport& report, const LedgerCrossCheck* ledger) {
  json::object root;
  root["format"] = "pstrain-gate-scope-2";
  root["gates_dir"] = report.gates_dir;
  json::array files;
  for (const FileScope& f : report.files) {
    json::object file;
    file["file"] = f.path;
    json::array gates;
    for (const GateScope& g : f.gates) {
      json::object gate;
      gate["gate"] = g.FullName();
      gate["macro"] = g.macro;
      gate["line"] = g.line;
      gate["declared"] = g.declared();
      json::array checked, if_reached;
      for (const Check& c : g.checks) {
        json::object o;
        o["helper"] = c.helper;
        o["file"] = c.file;
        o["line"] = c.line;
        o["column"] = c.column;
        if (!c.unconditional()) o["if_reached"] = c.if_reached;
        o["subjects"] = c.subjects.braced || !c.subjects.expression.empty() ? JsonList(c.subjects) : json::value(nullptr);
        if (!c.parameters.empty()) {
          json::object params;
          for (const auto& [name, value] : c.parameters) params[name] = JsonValue(value);
          o["parameters"] = std::move(params);
        }
        o["receiver"] = c.receiver;
        o["arguments"] = c.arguments;
        if (!c.via_macro.empty()) o["via_macro"] = c.via_macro;
        if (!c.via_function.empty()) o["via_function"] = c.via_function;
        (c.unconditional() ? checked : if_reached).push_back(std::move(o));
      }
      gate["checked"] = std::move(checked);
      gate["checked_summary"] = CheckedSummary(g);
      gate["checked_if_reached"] = std::move(if_reached);
      json::array describes;
      for (const Declaration& d : g.declarations) {
        json::object o;
        o["certifies"] = "nothing";
        o["line"] = d.line;
        o["variable"] = d.variable;
        o["structured"] = d.structured;
        if (d.kind) o["kind"] = JsonValue(*d.kind);
        if (d.shard_counts) o["shard_counts"] = JsonList(*d.shard_counts);
        if (d.passes) o["passes"] = JsonValue(*d.passes);
        if (d.limitation) o["limitation"] = JsonValue(*d.limitation);
        if (!d.structured) o["argument"] = d.argument;
        describes.push_back(std::move(o));
      }
      gate["describes"] = std::move(describes);
      gate["bare_assertions"] = g.bare_assertions;
      gate["not_counted"] = JsonNotCounted(g.not_counted);
      gates.push_back(std::move(gate));
    }
    file["gates"] = std::move(gates);
    file["unattributed"] = JsonNotCounted(f.unattributed);
    json::array notes;
    for (const std::string& n : f.notes) notes.emplace_back(n);
    file["notes"] = std::move(notes);
    files.push_back(std::move(file));
  }
  root["files"] = std::move(files);
  root["other_sources"] = JsonNotCounted(report.other_sources);
  if (ledger != nullptr) {
    json::object l;
    l["ledger"] = ledger->ledger;
    l["records"] = ledger->records;
    l["problems"] = ledger->problems();
    l["never_executed"] = ledger->Count(FindingKind::kNeverExecuted);
    l["failed"] = ledger->Count(FindingKind::kFailed);
    l["under_claims"] = ledger->Count(FindingKind::kUnderClaim);
    l["passed"] = ledger->Count(FindingKind::kPassed);
    l["not_reached"] = ledger->Count(FindingKind::kNotReached);
    json::array findings;
    for (const LedgerFinding& f : ledger->findings) {
      json::object o;
      o["kind"] = FindingLabel(f.kind);
      o["gate"] = f.gate;
      o["where"] = f.where;
      o["what"] = f.what;
      o["detail"] = f.detail;
      o["count"] = f.count;
      findings.push_back(std::move(o));
    }
    l["findings"] = std::move(findings);
    root["ledger"] = std::move(l);
  }
  return json::serialize(root) + "\n";
}

}  // namespace pstrain::audit
