// `audit gates run`: reading a gate run's GoogleTest XML and ledger into a summary, and its renderings.
#include "gates/gates_summary.h"

#include "report/report_text.h"

#include <boost/json.hpp>
#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>

#include "common/file_io.h"
#include "report/audit_error.h"
#include "report/junit_writer.h"

namespace pstrain::audit {

namespace fs = std::filesystem;
namespace json = boost::json;
namespace pt = boost::property_tree;

std::size_t GatesRunSummary::Count(const std::string& result) const {
  return static_cast<std::size_t>(
      std::count_if(gates.begin(), gates.end(), [&](const GateSummary& g) { return g.result == result; }));
}

namespace {

// GoogleTest's reports nest 5 elements deep (testsuites, testsuite, testcase, properties, property).
// The XML parser (Boost.PropertyTree's rapidxml) recurses once per level, so a report nested
// 100,000 deep overflowed the stack; deeper than this is refused before parsing.
constexpr std::size_t kMaxXmlDepth = 64;

// The element nesting depth of `text` (comments, CDATA, processing instructions, declarations and
// quoted attribute values skipped), or kMaxXmlDepth + 1 as soon as it is exceeded.
std::size_t XmlNestingDepth(const std::string& text) {
  std::size_t depth = 0, deepest = 0;
  auto skip_to = [&](std::size_t from, const char* end) {
    const std::size_t at = text.find(end, from);
    return at == std::string::npos ? text.size() : at + std::char_traits<char>::length(end);
  };
  for (std::size_t k = 0; k < text.size();) {
    if (text[k] != '<') {
      ++k;
      continue;
    }
    if (text.compare(k, 4, "<!--") == 0) {
      k = skip_to(k + 4, "-->");
    } else if (text.compare(k, 9, "<![CDATA[") == 0) {
      k = skip_to(k + 9, "]]>");
    } else if (text.compare(k, 2, "<?") == 0) {
      k = skip_to(k + 2, "?>");
    } else if (text.compare(k, 2, "<!") == 0) {
      k = skip_to(k + 2, ">");
    } else if (text.compare(k, 2, "</") == 0) {
      if (depth > 0) --depth;
      k = skip_to(k + 2, ">");
    } else {
      char quote = 0;
      std::size_t j = k + 1;
      for (; j < text.size(); ++j) {
        if (quote != 0) {
          if (text[j] == quote) quote = 0;
        } else if (text[j] == '"' || text[j] == '\'') {
          quote = text[j];
        } else if (text[j] == '>') {
          break;
        }
      }
      if (j >= text.size() || text[j - 1] != '/') {
        deepest = std::max(deepest, ++depth);
        if (deepest > kMaxXmlDepth) return deepest;
      }
      k = j + 1;
    }
  }
  return deepest;
}

}  // namespace

std::vector<XmlTestCase> ParseGtestXml(const fs::path& path) {
  std::string text;
  try {
    text = ReadFileText(path);
  } catch (const std::exception& e) {
    throw AuditErrorIn(path.string(), std::string("cannot read the GoogleTest XML report: ") + e.what());
  }
  return ParseGtestXmlText(text, path.string());
}

std::vector<XmlTestCase> ParseGtestXmlText(const std::string& text, const std::string& name) {
  if (XmlNestingDepth(text) > kMaxXmlDepth) {
    throw AuditErrorIn(name, "not a GoogleTest XML report: elements nested more than " + std::to_string(kMaxXmlDepth) +
                                 " deep (GoogleTest writes 5 levels)");
  }
  pt::ptree tree;
  try {
    std::istringstream in(text);
    pt::read_xml(in, tree);
  } catch (const std::exception& e) {
    throw AuditErrorIn(name, std::string("not an XML file: ") + e.what());
  }
  const auto suites = tree.get_child_optional("testsuites");
  if (!suites) throw AuditErrorIn(name, "not a GoogleTest XML report (no <testsuites>)");
  std::vector<XmlTestCase> cases;
  for (const auto& [suite_tag, suite] : *suites) {
    if (suite_tag != "testsuite") continue;
    const std::string suite_name = suite.get<std::string>("<xmlattr>.name", "");
    for (const auto& [case_tag, test] : suite) {
      if (case_tag != "testcase") continue;
      XmlTestCase c;
      c.name = suite_name + "." + test.get<std::string>("<xmlattr>.name", "");
      c.status = test.get<std::string>("<xmlattr>.status", "run");
      c.result = test.get<std::string>("<xmlattr>.result", "");
      c.seconds = test.get<double>("<xmlattr>.time", 0.0);
      for (const auto& [tag, child] : test) {
        if (tag == "failure" || tag == "error") {
          std::string message = child.get<std::string>("<xmlattr>.message", "");
          if (message.empty()) message = child.get_value<std::string>();
          c.failures.push_back(message);
        } else if (tag == "skipped") {
          c.skip_message = child.get<std::string>("<xmlattr>.message", "");
          if (c.result.empty()) c.result = "skipped";
        }
      }
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

namespace {

// A gate that failed only because its fixture, a corpus, is missing did not run: the reason names
// the corpus and the command that prepares it ("" when the failures say nothing of the kind). The
// messages are those of tests/support/test_util.cpp (CorpusDir) and gates/gate_fixture_util.cpp.
std::string MissingFixture(const std::vector<std::string>& failures) {
  static const struct {
    const char* marker;
    const char* script;
  } kFixtures[] = {{"default corpus missing at ", "scripts/prepare-corpus.sh"},
                   {"the benchmark corpus is missing at ", "scripts/prepare-bench-corpus.sh"}};
  for (const std::string& f : failures) {
    for (const auto& fixture : kFixtures) {
      const std::size_t at = f.find(fixture.marker);
      if (at == std::string::npos) continue;
      const std::size_t begin = at + std::char_traits<char>::length(fixture.marker);
      const std::size_t end = std::min(f.find(' ', begin), f.find('"', begin));
      const std::string dir = f.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
      return "its fixture is missing: no corpus at " + dir + "; prepare it with: bash " + fixture.script + " " + dir;
    }
  }
  return "";
}

struct LedgerGate {
  bool declared = false;
  std::string kind;
  std::vector<std::uint32_t> shard_counts;
  std::optional<std::uint32_t> passes;
  std::vector<GateCheckRecord> checks;
  std::optional<GateRunRecord> run;
};

struct ParsedLedger {
  std::vector<std::string> order;  // gate names, first appearance
  std::map<std::string, LedgerGate> gates;
};

std::string StringField(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::optional<std::uint64_t> UnsignedField(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  if (v != nullptr && v->is_uint64()) return v->as_uint64();
  if (v != nullptr && v->is_int64() && v->as_int64() >= 0) return static_cast<std::uint64_t>(v->as_int64());
  return std::nullopt;
}

std::vector<std::uint32_t> CountsField(const json::object& o, const char* key) {
  std::vector<std::uint32_t> counts;
  if (const json::value* v = o.if_contains(key); v && v->is_array()) {
    for (const json::value& c : v->as_array()) {
      if (c.is_int64()) counts.push_back(static_cast<std::uint32_t>(c.as_int64()));
      else if (c.is_uint64()) counts.push_back(static_cast<std::uint32_t>(c.as_uint64()));
    }
  }
  return counts;
}

std::vector<std::string> StringsField(const json::object& o, const char* key) {
  std::vector<std::string> items;
  if (const json::value* v = o.if_contains(key); v && v->is_array()) {
    for (const json::value& s : v->as_array()) items.push_back(s.is_string() ? std::string(s.as_string()) : json::serialize(s));
  }
  return items;
}

GateRunRecord ParseRunRecord(const json::object& o) {
  GateRunRecord run;
  run.profile = StringField(o, "profile");
  run.shard_counts = CountsField(o, "shard_counts");
  if (const auto p = UnsignedField(o, "passes")) run.passes = static_cast<std::uint32_t>(*p);
  if (const json::value* c = o.if_contains("corpus"); c && c->is_object()) {
    const json::object& corpus = c->as_object();
    run.corpus = StringField(corpus, "name");
    run.corpus_manifest = StringField(corpus, "manifest");
    run.corpus_root = StringField(corpus, "root");
    run.utterances = UnsignedField(corpus, "utterances");
    run.manifest_fingerprint = StringField(corpus, "fingerprint");
  }
  run.pstrain = StringField(o, "pstrain");
  run.overrides_applied = StringsField(o, "overrides_applied");
  run.overrides_ignored = StringsField(o, "overrides_ignored");
  return run;
}

// Reads the ledger; a missing file is an empty ledger (no gate recorded anything). Throws
// AuditError "LEDGER:LINE: what" for a line that is not a ledger record.
ParsedLedger ReadLedgerFile(const fs::path& path) {
  ParsedLedger ledger;
  std::error_code ec;
  if (!fs::exists(path, ec)) return ledger;
  std::istringstream in(AsAuditError([&] { return ReadFileText(path); }));
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json::value value;
    try {
      value = json::parse(line);
    } catch (const std::exception& e) {
      throw AuditErrorAt(path.string(), number, std::string("not JSON: ") + e.what());
    }
    if (!value.is_object()) throw AuditErrorAt(path.string(), number, "not a JSON object");
    const json::object& o = value.as_object();
    const std::string record = StringField(o, "record");
    const std::string gate_name = StringField(o, "gate");
    if (gate_name.empty()) throw AuditErrorAt(path.string(), number, "no \"gate\"");
    if (!ledger.gates.count(gate_name)) ledger.order.push_back(gate_name);
    LedgerGate& gate = ledger.gates[gate_name];
    if (record == "declaration") {
      gate.declared = true;
      gate.kind = StringField(o, "kind");
      if (const json::value* counts = o.if_contains("shard_counts"); counts && counts->is_array()) {
        for (const json::value& c : counts->as_array()) {
          if (c.is_int64()) gate.shard_counts.push_back(static_cast<std::uint32_t>(c.as_int64()));
          else if (c.is_uint64()) gate.shard_counts.push_back(static_cast<std::uint32_t>(c.as_uint64()));
        }
      }
      if (const json::value* p = o.if_contains("passes"); p && (p->is_int64() || p->is_uint64())) {
        gate.passes = static_cast<std::uint32_t>(p->is_int64() ? p->as_int64() : p->as_uint64());
      }
    } else if (record == "run") {
      gate.run = ParseRunRecord(o);
    } else if (record == "check") {
      GateCheckRecord check;
      check.line = number;
      check.helper = StringField(o, "helper");
      check.result = StringField(o, "result");
      check.detail = StringField(o, "detail");
      if (const json::value* s = o.if_contains("subjects"); s && s->is_array()) {
        for (const json::value& v : s->as_array()) {
          check.subjects.push_back(v.is_string() ? std::string(v.as_string()) : json::serialize(v));
        }
      }
      if (check.result != "pass" && check.result != "fail") throw AuditErrorAt(path.string(), number, "\"result\" is neither pass nor fail");
      gate.checks.push_back(std::move(check));
    } else {
      throw AuditErrorAt(path.string(), number, "unknown record type '" + record + "'");
    }
  }
  return ledger;
}

// Fills a summary's declaration and ledger counts.
void AddDeclarationAndChecks(GateSummary& g, const ParsedLedger& ledger, const std::vector<SourceGate>& sources) {
  const auto it = ledger.gates.find(g.name);
  if (it != ledger.gates.end() && it->second.declared) {
    g.kind = it->second.kind;
    g.shard_counts = it->second.shard_counts;
    g.passes = it->second.passes;
    g.declared_in = "ledger";
  } else {
    for (const SourceGate& s : sources) {
      if (s.name != g.name) continue;
      g.kind = s.kind;
      g.shard_counts = s.shard_counts;
      g.passes = s.passes;
      g.declared_in = "source";
      break;
    }
  }
  if (it == ledger.gates.end()) return;
  g.run = it->second.run;
  g.checks = it->second.checks.size();
  for (const GateCheckRecord& c : it->second.checks) {
    if (c.result == "pass") continue;
    if (g.failed_checks++ == 0) g.first_failed_check = c;
  }
}

// A GoogleTest message ("file:line\nExpected ...\n...") on one line, lines joined by " | ".
std::string OneLine(const std::string& text, std::size_t max = 600) {
  std::string line;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part);) {
    if (part.find_first_not_of(" \t\r") == std::string::npos) continue;
    line += (line.empty() ? "" : " | ") + part.substr(part.find_first_not_of(" \t"));
  }
  if (line.size() > max) line = line.substr(0, max) + "...";
  return line;
}

std::string Join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : separator) + s;
  return out;
}

std::string Counts(const std::vector<std::uint32_t>& counts) {
  std::string out;
  for (std::uint32_t c : counts) out += (out.empty() ? "" : ", ") + std::to_string(c);
  return out;
}

json::value RunJson(const GateRunRecord& run) {
  json::object o;
  o["profile"] = run.profile;
  json::array counts;
  for (std::uint32_t c : run.shard_counts) counts.emplace_back(c);
  o["shard_counts"] = std::move(counts);
  o["passes"] = run.passes ? json::value(*run.passes) : json::value(nullptr);
  json::object corpus;
  corpus["name"] = run.corpus;
  corpus["manifest"] = run.corpus_manifest;
  corpus["root"] = run.corpus_root;
  corpus["utterances"] = run.utterances ? json::value(*run.utterances) : json::value(nullptr);
  corpus["fingerprint"] = run.manifest_fingerprint;
  o["corpus"] = std::move(corpus);
  o["pstrain"] = run.pstrain;
  o["overrides_applied"] = JsonStrings(run.overrides_applied);
  o["overrides_ignored"] = JsonStrings(run.overrides_ignored);
  return o;
}

// "shard counts {1, 3}, 2 passes, corpus override MANIFEST (8 utterances, sha256 0123456789ab)".
std::string DescribeRunRecord(const GateRunRecord& run) {
  std::ostringstream out;
  out << "shard counts {" << Counts(run.shard_counts) << "}, " << (run.passes ? std::to_string(*run.passes) : "?")
      << (run.passes && *run.passes == 1 ? " pass" : " passes") << ", corpus " << (run.corpus.empty() ? "?" : run.corpus) << " "
      << run.corpus_manifest << " (" << (run.utterances ? std::to_string(*run.utterances) : "?") << " utterances, sha256 "
      << run.manifest_fingerprint.substr(0, 12) << ")";
  return out.str();
}

}  // namespace

GatesRunSummary Summarize(const SummarizeInput& input) {
  GatesRunSummary summary;
  summary.profile = input.profile;
  summary.gate_binary = input.gate_binary;
  summary.ledger = input.ledger.string();
  summary.xml = input.xml.string();
  summary.only = input.only;
  summary.overrides = input.overrides;
  if (!input.run_problem.empty()) summary.problems.push_back(input.run_problem);

  ParsedLedger ledger;
  try {
    ledger = ReadLedgerFile(input.ledger);
  } catch (const std::exception& e) {
    summary.problems.push_back(std::string("unreadable ledger: ") + e.what());
  }

  std::optional<std::vector<XmlTestCase>> cases;
  std::error_code ec;
  if (!fs::exists(input.xml, ec)) {
    summary.problems.push_back("the gate binary wrote no XML report (" + input.xml.string() +
                               "): it crashed or could not start, so no gate result is known");
  } else {
    try {
      cases = ParseGtestXml(input.xml);
    } catch (const std::exception& e) {
      summary.problems.push_back(e.what());
    }
  }

  // The gates: those the report lists, then selected gates it does not list; without a report the
  // selected gates, or (nothing selected) the declared and the recorded ones.
  std::vector<std::string> names;
  auto add = [&](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  if (cases) {
    for (const XmlTestCase& c : *cases) add(c.name);
  }
  for (const std::string& s : input.selected) add(s);
  if (!cases && input.selected.empty()) {
    for (const SourceGate& s : input.sources) add(s.name);
    for (const std::string& s : ledger.order) add(s);
  }

  for (const std::string& name : names) {
    GateSummary g;
    g.name = name;
    AddDeclarationAndChecks(g, ledger, input.sources);
    const XmlTestCase* c = nullptr;
    if (cases) {
      for (const XmlTestCase& x : *cases) {
        if (x.name == name) c = &x;
      }
    }
    if (c == nullptr) {
      g.result = g.failed_checks > 0 ? "fail" : "not-run";
      g.reason = cases ? "not in the GoogleTest report: the gate binary has no such test" : "no GoogleTest report";
    } else {
      g.seconds = c->seconds;
      g.gtest_failures = c->failures.size();
      if (const std::string missing = g.failed_checks == 0 ? MissingFixture(c->failures) : ""; !missing.empty()) {
        g.result = "not-run";
        g.reason = missing;
      } else if (!c->failures.empty() || g.failed_checks > 0) {
        g.result = "fail";
        g.reason = c->failures.empty() ? "a check record failed" : OneLine(c->failures.front());
      } else if (c->status == "notrun") {
        g.result = "not-run";
        g.reason = "disabled";
      } else if (c->result == "skipped" || c->result == "suppressed") {
        g.result = "not-run";
        g.reason = "skipped" + (c->skip_message.empty() ? std::string() : ": " + OneLine(c->skip_message));
      } else {
        g.result = "pass";
      }
    }
    summary.gates.push_back(std::move(g));
  }

  if (cases && summary.gates.empty()) summary.problems.push_back("no gate ran (the report lists no test)");
  if (summary.Count("fail") > 0 && cases) {
    summary.exit_code = 1;
  } else if (!summary.problems.empty() || summary.Count("not-run") > 0 || summary.Count("fail") > 0) {
    summary.exit_code = 2;
    if (summary.problems.empty()) {
      for (const GateSummary& g : summary.gates) {
        if (g.result == "not-run") summary.problems.push_back(g.name + " did not run: " + g.reason);
      }
    }
  }
  return summary;
}

std::string RenderGatesJson(const GatesRunSummary& summary) {
  json::object root;
  root["profile"] = summary.profile;
  root["gate_binary"] = summary.gate_binary;
  root["ledger"] = summary.ledger;
  root["gtest_xml"] = summary.xml;
  root["only"] = JsonStrings(summary.only);
  root["overrides"] = JsonStrings(summary.overrides);
  root["exit_code"] = summary.exit_code;
  root["result"] = summary.exit_code == 0 ? "pass" : summary.exit_code == 1 ? "fail" : "not-run";
  root["problems"] = JsonStrings(summary.problems);
  json::array gates;
  for (const GateSummary& g : summary.gates) {
    json::object o;
    o["name"] = g.name;
    o["kind"] = g.kind;
    json::array counts;
    for (std::uint32_t c : g.shard_counts) counts.emplace_back(c);
    o["declared_shard_counts"] = std::move(counts);
    o["declared_passes"] = g.passes ? json::value(*g.passes) : json::value(nullptr);
    o["declared_in"] = g.declared_in;
    o["result"] = g.result;
    o["reason"] = g.reason;
    o["gtest_failures"] = g.gtest_failures;
    o["seconds"] = g.seconds;
    o["checks"] = g.checks;
    o["failed_checks"] = g.failed_checks;
    if (g.first_failed_check) {
      json::object f;
      f["helper"] = g.first_failed_check->helper;
      f["subjects"] = JsonStrings(g.first_failed_check->subjects);
      f["detail"] = g.first_failed_check->detail;
      f["ledger_line"] = g.first_failed_check->line;
      o["first_failed_check"] = std::move(f);
    } else {
      o["first_failed_check"] = nullptr;
    }
    o["run"] = g.run ? RunJson(*g.run) : json::value(nullptr);
    gates.push_back(std::move(o));
  }
  root["gates"] = std::move(gates);
  json::object totals;
  totals["gates"] = summary.gates.size();
  totals["passed"] = summary.Count("pass");
  totals["failed"] = summary.Count("fail");
  totals["not_run"] = summary.Count("not-run");
  root["totals"] = std::move(totals);
  return json::serialize(root) + "\n";
}

std::string RenderGatesText(const GatesRunSummary& summary) {
  std::ostringstream out;
  if (!summary.overrides.empty()) out << "  overrides: " << Join(summary.overrides, " ") << "\n";
  for (const GateSummary& g : summary.gates) {
    const std::string verdict = g.result == "pass" ? "PASS" : g.result == "fail" ? "FAIL" : "NOT RUN";
    out << "  " << std::left << std::setw(8) << verdict << g.name;
    if (g.result != "not-run" || g.seconds > 0) out << " (" << std::fixed << std::setprecision(1) << g.seconds << " s)";
    out << "\n";
    if (g.declared_in.empty()) {
      out << "          describes: (no declaration known)\n";
    } else {
      out << "          describes: " << (g.kind.empty() ? "(kind not a literal)" : g.kind) << ", shard counts {"
          << Counts(g.shard_counts) << "}, " << (g.passes ? std::to_string(*g.passes) : "?")
          << (g.passes && *g.passes == 1 ? " pass" : " passes") << " (declared; certifies nothing)\n";
    }
    if (g.run) {
      out << "          ran:       " << DescribeRunRecord(*g.run) << "\n";
      out << "          pstrain:   " << g.run->pstrain << "\n";
      for (const std::string& o : g.run->overrides_applied) out << "          override applied: " << o << "\n";
      for (const std::string& o : g.run->overrides_ignored) out << "          override ignored: " << o << "\n";
    } else if (g.result != "not-run") {
      out << "          ran:       (no run record in the ledger)\n";
    }
    out << "          checked:   " << g.checks << (g.checks == 1 ? " check" : " checks") << " recorded, "
        << g.failed_checks << " failed\n";
    if (g.first_failed_check) {
      out << "          first failed check: " << g.first_failed_check->helper << " ["
          << Join(g.first_failed_check->subjects, ", ") << "]: " << g.first_failed_check->detail << "\n";
    }
    if (g.result != "pass" && !g.reason.empty()) out << "          " << (g.result == "fail" ? "failure: " : "why: ") << g.reason << "\n";
  }
  out << "  " << summary.gates.size() << " gates: " << summary.Count("pass") << " passed, " << summary.Count("fail")
      << " failed, " << summary.Count("not-run") << " not run\n";
  for (const std::string& p : summary.problems) out << "  could not run: " << p << "\n";
  return out.str();
}

std::string RenderGatesJunit(const GatesRunSummary& summary) {
  // One suite per gate test suite ("Gate" of "Gate.FixedCount"), in name order.
  std::map<std::string, std::vector<const GateSummary*>> by_suite;
  for (const GateSummary& g : summary.gates) by_suite[g.name.substr(0, g.name.find('.'))].push_back(&g);
  std::vector<JunitSuite> suites;
  for (const auto& [suite, gates] : by_suite) {
    JunitSuite& js = suites.emplace_back();
    js.name = suite;
    for (const GateSummary* g : gates) {
      const std::size_t dot = g->name.find('.');
      JunitCase& c = js.cases.emplace_back();
      c.name = dot == std::string::npos ? g->name : g->name.substr(dot + 1);
      c.classname = suite;
      c.seconds = g->seconds;
      if (g->run) {
        c.properties = {{"run", DescribeRunRecord(*g->run)},
                        {"run_pstrain", g->run->pstrain},
                        {"run_overrides_applied", Join(g->run->overrides_applied, "; ")},
                        {"run_overrides_ignored", Join(g->run->overrides_ignored, "; ")}};
      }
      if (g->result == "pass") continue;
      c.outcome = g->result == "fail" ? JunitCase::Outcome::kFailure : JunitCase::Outcome::kError;
      c.message = g->reason;
      if (g->first_failed_check) {
        c.message += (c.message.empty() ? "" : "; ") + std::string("first failed check: ") + g->first_failed_check->helper +
                     " [" + Join(g->first_failed_check->subjects, ", ") + "]: " + g->first_failed_check->detail;
      }
    }
  }
  return RenderJunit("audit gates", suites);
}

}  // namespace pstrain::audit
