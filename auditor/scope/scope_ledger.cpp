// Reading a run ledger and cross-checking it with the gate scope, call site by call site.
#include "scope/scope_ledger.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cstdint>
#include <filesystem>
#include <map>
#include <system_error>
#include <tuple>

#include "common/file_io.h"
#include "report/audit_error.h"

namespace pstrain::audit {

namespace json = boost::json;

namespace {

std::string StringField(const json::object& o, const char* key, const std::string& name, std::size_t line) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || !v->is_string()) throw AuditErrorAt(name, line, std::string("field \"") + key + "\" missing or not a string");
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
      throw AuditErrorAt(name, line_number, std::string("not JSON: ") + e.what());
    }
    if (!value.is_object()) throw AuditErrorAt(name, line_number, "not a JSON object");
    const json::object& o = value.as_object();
    LedgerRecord r;
    r.line = line_number;
    r.record = StringField(o, "record", name, line_number);
    r.gate = StringField(o, "gate", name, line_number);
    if (const json::value* f = o.if_contains("ledger_format")) {
      if (!f->is_int64() || f->as_int64() < 1 || f->as_int64() > 2) {
        throw AuditErrorAt(name, line_number, "unknown \"ledger_format\" (this audit reads formats 1 and 2)");
      }
      r.format = static_cast<int>(f->as_int64());
    }
    if (r.record == "check") {
      r.helper = StringField(o, "helper", name, line_number);
      r.result = StringField(o, "result", name, line_number);
      const json::value* d = o.if_contains("detail");
      if (d != nullptr && d->is_string()) r.detail = std::string(d->as_string());
      const json::value* subjects = o.if_contains("subjects");
      if (subjects == nullptr || !subjects->is_array()) throw AuditErrorAt(name, line_number, "field \"subjects\" missing or not an array");
      for (const json::value& s : subjects->as_array()) {
        if (!s.is_string()) throw AuditErrorAt(name, line_number, "a subject is not a string");
        r.subjects.emplace_back(s.as_string());
      }
      if (r.format < 2) {
        throw AuditErrorAt(name, line_number,
                           "a check record without its call site (ledger format 1, written by a gate kit older than "
                           "the call-site ledger); rerun the gates with this build");
      }
      r.file = StringField(o, "file", name, line_number);
      const json::value* l = o.if_contains("line");
      const json::value* c = o.if_contains("column");
      if (l == nullptr || c == nullptr || !l->is_number() || !c->is_number()) {
        throw AuditErrorAt(name, line_number, "field \"line\" or \"column\" missing or not a number");
      }
      r.site_line = static_cast<std::size_t>(l->to_number<std::uint64_t>());
      r.site_column = static_cast<std::size_t>(c->to_number<std::uint64_t>());
    } else if (r.record != "declaration" && r.record != "run") {
      throw AuditErrorAt(name, line_number, "unknown record type \"" + r.record + "\"");
    }
    ledger.records.push_back(std::move(r));
  }
  return ledger;
}

Ledger ReadLedger(const std::filesystem::path& path) {
  return ParseLedger(AsAuditError([&] { return ReadFileText(path); }), path.string());
}

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
    case FindingKind::kPassed: return "executed and passed";
    case FindingKind::kFailed: return "executed and failed";
    case FindingKind::kNeverExecuted: return "never executed";
    case FindingKind::kNotReached: return "not reached (CHECKED if reached; not a problem)";
    case FindingKind::kUnderClaim: return "under-claim (a call site the report lacks)";
    case FindingKind::kNotInSource: return "not in the scanned sources (note)";
  }
  return "?";
}

std::size_t LedgerCrossCheck::problems() const {
  std::size_t n = 0;
  for (const LedgerFinding& f : findings) {
    n += f.kind == FindingKind::kPassed || f.kind == FindingKind::kNotReached || f.kind == FindingKind::kNotInSource ? 0 : 1;
  }
  return n;
}

std::size_t LedgerCrossCheck::Count(FindingKind kind) const {
  std::size_t n = 0;
  for (const LedgerFinding& f : findings) n += f.kind == kind ? 1 : 0;
  return n;
}

namespace {

std::string Normal(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path c = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : c.lexically_normal().string();
}

// A record's call site is a check's: the same line and column, and the same file (as the compiler
// named it, or ending in the report's display path when the ledger comes from another checkout).
bool SiteMatches(const Check& c, const LedgerRecord& r) {
  if (r.site_line != c.line || r.site_column != c.column) return false;
  if (r.file == c.site_path || Normal(r.file) == Normal(c.site_path)) return true;
  return !c.file.empty() && r.file.size() > c.file.size() && r.file.ends_with("/" + c.file);
}

struct SiteTally {
  const Check* check = nullptr;
  bool unconditional = false;
  std::size_t passed = 0, failed = 0;
  std::string first_failure;
  std::size_t first_failure_line = 0;
};

}  // namespace

LedgerCrossCheck CrossCheck(const ScopeReport& scope, const Ledger& ledger) {
  LedgerCrossCheck out;
  out.ledger = ledger.name;
  out.records = ledger.records.size();
  std::vector<bool> known(ledger.records.size(), false);
  auto where_ledger = [&](const LedgerRecord& r) { return ledger.name + ":" + std::to_string(r.line); };

  for (const FileScope& file : scope.files) {
    for (const GateScope& gate : file.gates) {
      std::vector<std::size_t> mine;
      for (std::size_t i = 0; i < ledger.records.size(); ++i) {
        if (LedgerGateMatches(gate, ledger.records[i].gate)) {
          mine.push_back(i);
          known[i] = true;
        }
      }
      bool declaration_seen = false;
      for (std::size_t i : mine) declaration_seen = declaration_seen || ledger.records[i].record == "declaration";
      if (gate.declared() && !declaration_seen) {
        out.findings.push_back({FindingKind::kNoDeclarationRecord, gate.FullName(), file.path + ":" + std::to_string(gate.line),
                                "declaration (the gate did not run, or ran without $PSTRAIN_GATE_LEDGER)", "", 1});
      }
      // The gate's call sites, in source order, each once.
      std::vector<SiteTally> sites;
      for (const Check& c : gate.checks) {
        auto it = std::find_if(sites.begin(), sites.end(), [&](const SiteTally& t) {
          return t.check->line == c.line && t.check->column == c.column && t.check->site_path == c.site_path;
        });
        if (it == sites.end()) {
          sites.push_back({&c, c.unconditional(), 0, 0, "", 0});
        } else {
          it->unconditional = it->unconditional || c.unconditional();
        }
      }
      std::map<std::tuple<std::string, std::string, std::size_t, std::size_t, std::string>, std::size_t> under;
      for (std::size_t i : mine) {
        const LedgerRecord& r = ledger.records[i];
        if (r.record != "check") continue;
        auto it = std::find_if(sites.begin(), sites.end(), [&](const SiteTally& t) { return SiteMatches(*t.check, r); });
        if (it != sites.end()) {
          if (r.result == "pass") {
            ++it->passed;
          } else {
            if (it->failed++ == 0) {
              it->first_failure = r.result == "fail" ? r.detail : "result \"" + r.result + "\"" + (r.detail.empty() ? "" : ": " + r.detail);
              it->first_failure_line = r.line;
            }
          }
          continue;
        }
        const auto key = std::make_tuple(r.file, RenderRecord(r), r.site_line, r.site_column, r.result);
        if (const auto u = under.find(key); u != under.end()) {
          ++out.findings[u->second].count;
          continue;
        }
        under[key] = out.findings.size();
        out.findings.push_back({FindingKind::kUnderClaim, gate.FullName(), where_ledger(r), RenderRecord(r),
                                "recorded at " + r.file + ":" + std::to_string(r.site_line) + ":" + std::to_string(r.site_column) +
                                    " (result " + r.result + "), which the static report does not list for this gate",
                                1});
      }
      for (const SiteTally& t : sites) {
        LedgerFinding f;
        f.gate = gate.FullName();
        f.where = t.check->Site();
        f.what = DescribeCheck(*t.check);
        if (t.failed > 0) {
          f.kind = FindingKind::kFailed;
          f.count = t.failed;
          f.detail = t.first_failure + " (" + ledger.name + ":" + std::to_string(t.first_failure_line) + "; " +
                     std::to_string(t.failed) + " failed, " + std::to_string(t.passed) + " passed)";
        } else if (t.passed > 0) {
          f.kind = FindingKind::kPassed;
          f.count = t.passed;
        } else {
          f.kind = t.unconditional ? FindingKind::kNeverExecuted : FindingKind::kNotReached;
          f.count = 0;
          if (!t.unconditional) f.detail = t.check->if_reached;
        }
        out.findings.push_back(std::move(f));
      }
    }
  }
  // Records of gates no scanned source has: failures are problems, the rest are noted.
  std::map<std::pair<std::string, std::string>, std::size_t> noted;
  for (std::size_t i = 0; i < ledger.records.size(); ++i) {
    const LedgerRecord& r = ledger.records[i];
    if (known[i]) continue;
    const bool failed = r.record == "check" && r.result != "pass";
    const bool bare = r.record == "declaration" || r.record == "run";
    const auto key = std::make_pair(r.gate, (failed ? "F" : "") + (bare ? r.record : RenderRecord(r)));
    if (const auto it = noted.find(key); it != noted.end()) {
      ++out.findings[it->second].count;
      continue;
    }
    noted[key] = out.findings.size();
    LedgerFinding f;
    f.kind = failed ? FindingKind::kFailed : FindingKind::kNotInSource;
    f.gate = r.gate;
    f.where = where_ledger(r);
    f.what = bare ? r.record : RenderRecord(r);
    f.detail = failed ? r.detail : "no gate of this name in the scanned sources";
    out.findings.push_back(std::move(f));
  }
  return out;
}

}  // namespace pstrain::audit
