#include "scope/scope_ledger.h"

#include <boost/json.hpp>
#include <map>
#include <tuple>

#include "common/error.h"
#include "common/file_io.h"

namespace pstrain::audit {

namespace json = boost::json;

namespace {

std::string StringField(const json::object& o, const char* key, const std::string& name, std::size_t line) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || !v->is_string()) throw RecordError(name, line, std::string("field \"") + key + "\" missing or not a string");
  return std::string(v->as_string());
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts(1);
  for (char c : s) {
    if (c == sep) parts.emplace_back();
    else parts.back() += c;
  }
  return parts;
}

std::string RenderRecord(const LedgerRecord& r) {
  std::string subjects;
  for (const std::string& s : r.subjects) subjects += (subjects.empty() ? "" : ", ") + s;
  return r.helper + "(" + subjects + ")";
}

bool SubjectsMatch(const Check& c, const LedgerRecord& r) {
  const auto pattern = LedgerSubjectsPattern(c);
  if (!pattern) return true;
  if (pattern->size() != r.subjects.size()) return false;
  for (std::size_t i = 0; i < r.subjects.size(); ++i) {
    if ((*pattern)[i] && *(*pattern)[i] != r.subjects[i]) return false;
  }
  return true;
}

}  // namespace

Ledger ParseLedger(std::string_view text, const std::string& name) {
  Ledger ledger;
  ledger.name = name;
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    json::value value;
    try {
      value = json::parse(line);
    } catch (const std::exception& e) {
      throw RecordError(name, line_number, std::string("not JSON: ") + e.what());
    }
    if (!value.is_object()) throw RecordError(name, line_number, "not a JSON object");
    const json::object& o = value.as_object();
    LedgerRecord r;
    r.line = line_number;
    r.record = StringField(o, "record", name, line_number);
    r.gate = StringField(o, "gate", name, line_number);
    if (r.record == "check") {
      r.helper = StringField(o, "helper", name, line_number);
      r.result = StringField(o, "result", name, line_number);
      const json::value* d = o.if_contains("detail");
      if (d != nullptr && d->is_string()) r.detail = std::string(d->as_string());
      const json::value* subjects = o.if_contains("subjects");
      if (subjects == nullptr || !subjects->is_array()) throw RecordError(name, line_number, "field \"subjects\" missing or not an array");
      for (const json::value& s : subjects->as_array()) {
        if (!s.is_string()) throw RecordError(name, line_number, "a subject is not a string");
        r.subjects.emplace_back(s.as_string());
      }
    } else if (r.record != "declaration" && r.record != "run") {
      throw RecordError(name, line_number, "unknown record type \"" + r.record + "\"");
    }
    ledger.records.push_back(std::move(r));
  }
  return ledger;
}

Ledger ReadLedger(const std::filesystem::path& path) { return ParseLedger(ReadFileText(path), path.string()); }

bool LedgerGateMatches(const GateScope& gate, const std::string& ledger_gate) {
  if (ledger_gate == gate.FullName()) return true;
  if (gate.macro == "TEST" || gate.macro == "TEST_F") return false;
  // TEST_P: "Prefix/Suite.Name/3"; TYPED_TEST: "Suite/0.Name"; TYPED_TEST_P: "Prefix/Suite/0.Name".
  const std::size_t dot = ledger_gate.find('.');
  if (dot == std::string::npos) return false;
  const std::vector<std::string> suite_parts = Split(ledger_gate.substr(0, dot), '/');
  const std::vector<std::string> name_parts = Split(ledger_gate.substr(dot + 1), '/');
  bool suite_found = false;
  for (const std::string& part : suite_parts) suite_found = suite_found || part == gate.suite;
  return suite_found && name_parts.front() == gate.name;
}

const char* FindingLabel(FindingKind kind) {
  switch (kind) {
    case FindingKind::kNoDeclarationRecord: return "no declaration record";
    case FindingKind::kNeverExecuted: return "never executed";
    case FindingKind::kFailed: return "failed";
    case FindingKind::kNotInSource: return "not in the source (note)";
  }
  return "?";
}

std::size_t LedgerCrossCheck::problems() const {
  std::size_t n = 0;
  for (const LedgerFinding& f : findings) n += f.kind == FindingKind::kNotInSource ? 0 : 1;
  return n;
}

LedgerCrossCheck CrossCheck(const ScopeReport& scope, const Ledger& ledger) {
  LedgerCrossCheck out;
  out.ledger = ledger.name;
  out.records = ledger.records.size();
  std::vector<bool> accounted(ledger.records.size(), false);
  std::vector<bool> gate_known(ledger.records.size(), false);
  std::vector<bool> reported_failed(ledger.records.size(), false);
  auto where_ledger = [&](const LedgerRecord& r) { return ledger.name + ":" + std::to_string(r.line); };
  // Failed records, deduplicated per (gate, helper, subjects, detail), in ledger order.
  auto add_failures = [&](const std::vector<std::size_t>& indices, const std::string& source_where) {
    std::map<std::tuple<std::string, std::string, std::vector<std::string>, std::string>, std::size_t> seen;
    for (std::size_t i : indices) {
      const LedgerRecord& r = ledger.records[i];
      if (r.record != "check" || r.result == "pass") continue;
      reported_failed[i] = true;
      const auto key = std::make_tuple(r.gate, r.helper, r.subjects, r.detail);
      const auto it = seen.find(key);
      if (it != seen.end()) {
        ++out.findings[it->second].count;
        continue;
      }
      seen[key] = out.findings.size();
      LedgerFinding f;
      f.kind = FindingKind::kFailed;
      f.gate = r.gate;
      f.where = where_ledger(r) + (source_where.empty() ? "" : "; gate at " + source_where);
      f.what = RenderRecord(r);
      f.detail = r.result == "fail" ? r.detail : "result \"" + r.result + "\"" + (r.detail.empty() ? "" : ": " + r.detail);
      out.findings.push_back(std::move(f));
    }
  };

  for (const FileScope& file : scope.files) {
    for (const GateScope& gate : file.gates) {
      std::vector<std::size_t> mine;
      for (std::size_t i = 0; i < ledger.records.size(); ++i) {
        if (LedgerGateMatches(gate, ledger.records[i].gate)) {
          mine.push_back(i);
          gate_known[i] = true;
        }
      }
      const std::string where = file.path + ":" + std::to_string(gate.line);
      bool declaration_seen = false;
      for (std::size_t i : mine) {
        if (ledger.records[i].record == "declaration") {
          declaration_seen = true;
          accounted[i] = gate.declared();
        }
        // What the gate really ran (Gate::RecordRun): describes, checks nothing.
        if (ledger.records[i].record == "run") accounted[i] = true;
      }
      if (gate.declared() && !declaration_seen) {
        out.findings.push_back({FindingKind::kNoDeclarationRecord, gate.FullName(), where,
                                "declaration (the gate did not run, or ran without $PSTRAIN_GATE_LEDGER)", "", 1});
      }
      for (const Check& check : gate.checks) {
        bool executed = false;
        for (std::size_t i : mine) {
          const LedgerRecord& r = ledger.records[i];
          if (r.record == "check" && r.helper == check.helper && SubjectsMatch(check, r)) {
            executed = true;
            accounted[i] = true;
          }
        }
        if (!executed) {
          out.findings.push_back({FindingKind::kNeverExecuted, gate.FullName(), file.path + ":" + std::to_string(check.line),
                                  DescribeCheck(check), "", 1});
        }
      }
      add_failures(mine, where);
    }
  }
  std::vector<std::size_t> unknown_gates;
  for (std::size_t i = 0; i < ledger.records.size(); ++i) {
    if (!gate_known[i]) unknown_gates.push_back(i);
  }
  add_failures(unknown_gates, "");
  std::map<std::pair<std::string, std::string>, std::size_t> noted;
  for (std::size_t i = 0; i < ledger.records.size(); ++i) {
    const LedgerRecord& r = ledger.records[i];
    if (accounted[i] || reported_failed[i]) continue;
    const bool bare = r.record == "declaration" || r.record == "run";
    const auto key = std::make_pair(r.gate, bare ? r.record : RenderRecord(r));
    if (const auto it = noted.find(key); it != noted.end()) {
      ++out.findings[it->second].count;
      continue;
    }
    noted[key] = out.findings.size();
    LedgerFinding f;
    f.kind = FindingKind::kNotInSource;
    f.gate = r.gate;
    f.where = where_ledger(r);
    f.what = bare ? r.record : RenderRecord(r);
    f.detail = gate_known[i] ? "no helper call in the gate's source has this helper and these subjects"
                             : "no gate of this name in the scanned sources";
    out.findings.push_back(std::move(f));
  }
  return out;
}

}  // namespace pstrain::audit
