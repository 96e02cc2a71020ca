// `audit gates run`, the part without processes: reading what a gate run left behind (GoogleTest's
// XML report and the gate-kit run ledger, docs/gates.md), summarizing it per gate, and rendering the
// summary as JSON, as text for people and as JUnit XML. auditor/gates/gates_command.h runs the gates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pstrain::audit {

// One <testcase> of a GoogleTest XML report (--gtest_output=xml:FILE).
struct XmlTestCase {
  std::string name;                   // "Suite.Test" (as the ledger names gates)
  std::string status;                 // "run" or "notrun" (disabled)
  std::string result;                 // "completed", "skipped", "suppressed" ("" in older GoogleTest)
  std::vector<std::string> failures;  // each <failure message="...">
  std::string skip_message;           // <skipped message="...">
  double seconds = 0.0;
};

// Throws AuditError naming the file when it cannot be read or is not a GoogleTest report.
std::vector<XmlTestCase> ParseGtestXml(const std::filesystem::path& path);
// The same on the report's text (`name` names it in errors).
std::vector<XmlTestCase> ParseGtestXmlText(const std::string& text, const std::string& name);

// What a gate source declares (read by the scope extractor), used when the ledger has no
// declaration record for a gate (e.g. it was not run).
struct SourceGate {
  std::string name;  // "Suite.Test"
  std::string kind;  // "" when the declaration's kind is not a literal
  std::vector<std::uint32_t> shard_counts;
  std::optional<std::uint32_t> passes;
  std::string file;  // "gates/fixed_count_gate.cpp:20"
};

struct GateCheckRecord {
  std::size_t line = 0;  // in the ledger
  std::string helper;
  std::vector<std::string> subjects;
  std::string result;
  std::string detail;
};

// What a gate really ran: its "run" ledger record (Gate::RecordRun, gates/gate_kit.h).
struct GateRunRecord {
  std::string profile;
  std::vector<std::uint32_t> shard_counts;
  std::optional<std::uint32_t> passes;
  std::string corpus;  // "default", "bench" or "override"
  std::string corpus_manifest;
  std::string corpus_root;
  std::optional<std::uint64_t> utterances;
  std::string manifest_fingerprint;
  std::string pstrain;
  std::vector<std::string> overrides_applied;
  std::vector<std::string> overrides_ignored;
};

struct GateSummary {
  std::string name;
  std::string kind;
  std::vector<std::uint32_t> shard_counts;
  std::optional<std::uint32_t> passes;
  std::string declared_in;  // "ledger", "source" or "" (no declaration known)
  std::string result;       // "pass", "fail" or "not-run"
  std::string reason;       // fail: the first GoogleTest failure message; not-run: why
  std::size_t gtest_failures = 0;
  double seconds = 0.0;
  std::size_t checks = 0;
  std::size_t failed_checks = 0;
  std::optional<GateCheckRecord> first_failed_check;
  std::optional<GateRunRecord> run;  // none when the gate recorded no run (older gates, not run)
};

struct GatesRunSummary {
  std::string profile;
  std::string gate_binary;
  std::string ledger;
  std::string xml;
  std::vector<std::string> only;  // the --only kinds (empty: every gate)
  std::vector<std::string> overrides;  // "PSTRAIN_GATE_SHARDS=1,3", ... as passed to the gate binary
  std::vector<GateSummary> gates;
  std::vector<std::string> problems;  // why the run counts as not run (exit 2), in order
  int exit_code = 0;                  // 0 every gate passed, 1 a gate failed, 2 could not run

  std::size_t Count(const std::string& result) const;
};

struct SummarizeInput {
  std::string profile;
  std::string gate_binary;
  std::filesystem::path xml;     // may be missing: the gate binary crashed or never ran
  std::filesystem::path ledger;  // may be missing or empty: no check recorded
  std::vector<std::string> only;
  std::vector<std::string> overrides;  // "NAME=VALUE" set for the gate binary (PSTRAIN_GATE_*)
  std::vector<std::string> selected;  // the gates expected to run ("Suite.Test"); empty: whatever ran
  std::vector<SourceGate> sources;
  std::string run_problem;  // how the gate binary ended when that alone means "could not run"
};

// Reads the XML report and the ledger and summarizes them; never throws: unreadable inputs become
// problems (exit 2). Exit code: 2 when the XML report is missing or unreadable, when no gate ran,
// or when a selected gate did not run (skipped, disabled, absent from the report) and none failed;
// otherwise 1 when a gate failed (a GoogleTest failure or a failed check record), otherwise 0.
GatesRunSummary Summarize(const SummarizeInput& input);

std::string RenderGatesJson(const GatesRunSummary& summary);
std::string RenderGatesText(const GatesRunSummary& summary);
// A JUnit XML report of the summary (used when GoogleTest wrote none, e.g. after a crash).
std::string RenderGatesJunit(const GatesRunSummary& summary);

}  // namespace pstrain::audit
