// `audit scope`: the command line, extracting the gates' scope and writing or checking the report.
#include "scope/scope_command.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <ostream>

#include "common/file_io.h"
#include "report/audit_error.h"
#include "report/command_options.h"
#include "scope/scope_doc.h"
#include "scope/scope_extractor.h"
#include "scope/scope_ledger.h"
#include "scope/scope_report.h"

#ifndef PSTRAIN_AUDIT_SOURCE_DIR
#define PSTRAIN_AUDIT_SOURCE_DIR "."
#endif

namespace pstrain::audit {

namespace fs = std::filesystem;

const char* const kScopeUsage =
    "usage: audit scope [--gates DIR] [--compile-commands FILE] [--format markdown|json] [--out FILE]\n"
    "                   [--ledger FILE] [--check DOC | --update DOC] [--no-shared-pch]\n"
    "\n"
    "Reads the determinism gates (DIR/*_gate.cpp) through the compiler's view (libclang, with the\n"
    "flags of the build's compile_commands.json) and reports, per gate:\n"
    "  CHECKED    what its calls of the kit's Gate::Expect... helpers compare (files, fields, checks,\n"
    "             tolerances) when the call runs on every path through the gate, with its call site.\n"
    "  CHECKED if reached\n"
    "             calls the AST cannot show to run (a lambda's body, a loop that may run zero\n"
    "             times, a catch handler, a non-constant branch, the right operand of || or &&):\n"
    "             a ledger run decides. Dead code (after return, GTEST_SKIP(), FAIL(), a failing\n"
    "             constant ASSERT), constant-false branches, unevaluated operands and inactive #if\n"
    "             branches do not count (and are listed as \"not counted\").\n"
    "  DESCRIBES  its declaration Gate gate({kind, {shard counts}, passes, limitation}), which\n"
    "             certifies nothing.\n"
    "\n"
    "Options:\n"
    "  --gates DIR      the gate sources (default: " PSTRAIN_AUDIT_SOURCE_DIR "/gates); a single file is\n"
    "                   also accepted\n"
    "  --compile-commands FILE\n"
    "                   the compilation database (default: the build tree of this audit binary,\n"
    "                   <build>/compile_commands.json; CMake writes it at configure time)\n"
    "  --format F       markdown (default, for people) or json (for pipelines)\n"
    "  --out FILE       write the report to FILE (atomically) instead of standard output\n"
    "  --ledger FILE    cross-check with a run ledger ($PSTRAIN_GATE_LEDGER of a gate run), per call\n"
    "                   site: executed and passed, executed and failed, never executed (a CHECKED\n"
    "                   call: a problem), not reached (a call CHECKED if reached: no problem), and\n"
    "                   records whose call site the report lacks (an under-claim: a problem)\n"
    "  --check DOC      compare DOC's section between <!-- BEGIN GENERATED GATE SCOPE --> and\n"
    "                   <!-- END GENERATED GATE SCOPE --> with the Markdown report; print a diff\n"
    "                   when it is stale\n"
    "  --update DOC     rewrite that section of DOC in place (atomic write)\n"
    "  --no-shared-pch  parse every source on its own instead of loading the system headers that the\n"
    "                   sources compiled alike all open with from one precompiled header built for\n"
    "                   the run (slower; the report is the same)\n"
    "  -h, --help       show this help\n"
    "\n"
    "Exit status: 0 ok; 1 the section is stale or the ledger cross-check found problems;\n"
    "2 an error (bad option, unreadable file or directory, missing markers, no compilation\n"
    "database, a gate source that does not compile or exceeds the front end's limits).\n";

namespace {

struct Options {
  std::string gates = std::string(PSTRAIN_AUDIT_SOURCE_DIR) + "/gates";
  std::string format = "markdown";
  std::string compile_commands = DefaultCompileCommands().string();
  std::optional<std::string> out, ledger, check, update;
  bool help = false;
  bool no_shared_pch = false;
};

// Parses the options; throws UsageError on what it refuses.
void Parse(const std::vector<std::string>& args, Options& options) {
  CommandOptions()
      .Flag("help,h", options.help)
      .Flag("no-shared-pch", options.no_shared_pch)
      .Value("gates", options.gates)
      .Value("compile-commands", options.compile_commands)
      .Value("format", options.format)
      .Value("out", options.out)
      .Value("ledger", options.ledger)
      .Value("check", options.check)
      .Value("update", options.update)
      .Parse(args);
  RequireOneOf("format", options.format, {"markdown", "json"});
  if (options.check && options.update) throw UsageError("--check and --update cannot be combined");
}

}  // namespace

int RunScopeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Options options;
  Parse(args, options);
  if (options.help) {
    out << kScopeUsage;
    return 0;
  }

  // Trouble (an unreadable file, a source that does not compile, a bad ledger) throws: exit 2 in
  // RunReportingErrors (report/command_runner.h).
  const ScopeReport report = ExtractScope(options.gates, options.compile_commands, !options.no_shared_pch);
  std::optional<LedgerCrossCheck> ledger;
  if (options.ledger) ledger = CrossCheck(report, ReadLedger(*options.ledger));
  const LedgerCrossCheck* ledger_ptr = ledger ? &*ledger : nullptr;
  int code = 0;

  const std::optional<std::string>& doc = options.check ? options.check : options.update;
  if (doc) {
    const std::string text = ReadFileText(*doc);
    std::string error;
    const std::optional<DocSection> section = FindGeneratedSection(text, error);
    if (!section) throw AuditError(*doc + ": " + error);
    const std::string generated = RenderMarkdown(report);
    const std::string current = text.substr(section->begin, section->end - section->begin);
    if (options.check) {
      if (current == generated) {
        out << "audit scope: " << *doc << ": the generated gate scope is current\n";
      } else {
        err << "audit scope: " << *doc << ": the generated gate scope is stale (run `audit scope --update " << *doc
            << "`); differences from the gate sources:\n"
            << UnifiedDiff(current, generated, *doc + " (generated section)", "audit scope (from " + report.gates_dir + "/)",
                           section->first_line);
        code = 1;
      }
    } else if (current == generated) {
      out << "audit scope: " << *doc << ": already current\n";
    } else {
      WriteFileAtomic(*doc, ReplaceGeneratedSection(text, *section, generated));
      out << "audit scope: " << *doc << ": generated gate scope updated\n";
    }
    if (ledger_ptr != nullptr && !options.out) {
      out << (options.format == "json" ? RenderJson(report, ledger_ptr) : RenderLedgerMarkdown(*ledger_ptr));
    }
  }

  if (!doc || options.out) {
    const std::string rendered =
        options.format == "json" ? RenderJson(report, ledger_ptr) : RenderMarkdown(report, ledger_ptr);
    WriteReport(rendered, options.out, out);
  }

  if (ledger_ptr != nullptr && ledger_ptr->problems() > 0) {
    err << "audit scope: ledger cross-check of " << ledger_ptr->ledger << ": " << ledger_ptr->problems()
        << (ledger_ptr->problems() == 1 ? " problem" : " problems") << "\n";
    code = std::max(code, 1);
  }
  return code;
}

}  // namespace pstrain::audit
