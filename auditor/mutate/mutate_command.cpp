// `audit mutate RUN_DIR`: the command line, the mutation run and the exit status.
#include "mutate/mutate_command.h"

#include <cstdlib>
#include <optional>
#include <ostream>

#include "mutate/mutate_engine.h"
#include "mutate/mutate_report.h"
#include "mutate/mutations.h"
#include "report/audit_error.h"
#include "report/command_options.h"
#include "report/work_dir.h"
#include "shards/run_layout.h"

namespace pstrain::audit {

namespace fs = std::filesystem;

const char* const kMutateUsage =
    "usage: audit mutate RUN_DIR [--pass N] [--foreign-run DIR] [--format text|json] [--out FILE]\n"
    "                   [--work-dir DIR] [--keep]\n"
    "\n"
    "Mutation-tests the validation of shard artifacts on a real finished pass of a pstrain run: for\n"
    "each mutation in the table (payload byte flipped, truncated or missing; artifact.json missing or\n"
    "malformed; stale pass; earlier pass replayed; artifact from another model, configuration or\n"
    "manifest; payloads swapped between shards; duplicate or missing coverage; inconsistent outcome\n"
    "lists; path escaping the shard directory; symlinked payload; broken multipron sidecar; ...) the\n"
    "pass is copied to a scratch directory, the copy is mutated and validated exactly as\n"
    "`pstrain validate` does. Each mutation is KILLED (rejected; the check and reason are shown),\n"
    "SURVIVED (accepted) or N/A (does not apply to this pass; the reason is shown, and it does not\n"
    "count). An unmodified copy is validated first and must be accepted.\n"
    "\n"
    "Options:\n"
    "  --pass N           the pass to mutate (default: the last complete pass, RUN_DIR/passes/NNN)\n"
    "  --foreign-run DIR  another run directory (another model, configuration, manifest or shard\n"
    "                     count): its shard of the same pass is transplanted into the pass by the\n"
    "                     foreign-run-artifact mutation (not applicable without this option)\n"
    "  --format F         text (default, for people) or json (for machines)\n"
    "  --out FILE         write the report to FILE (atomically) instead of standard output\n"
    "  --work-dir DIR     scratch directory for the copies, empty or new (a non-empty DIR is\n"
    "                     refused, exit 2); default: a new directory under\n"
    "                     $TMPDIR, removed afterwards); each mutation's copy is removed after it\n"
    "                     is judged\n"
    "  --keep             keep every mutated copy (and the default scratch directory)\n"
    "  -h, --help         show this help\n"
    "\n"
    "Exit status: 0 every applied mutation killed; 1 at least one survived; 2 trouble (bad option,\n"
    "unreadable run or pass, the unmodified copy rejected, a mutation that could not be applied,\n"
    "or no mutation applicable).\n";

namespace {

struct Options {
  std::vector<std::string> positional;
  std::optional<std::string> pass;
  std::string format = "text";
  std::optional<std::string> out;
  std::optional<std::string> work_dir;
  std::optional<std::string> foreign_run;
  bool keep = false;
  bool help = false;
};

void Parse(const std::vector<std::string>& args, Options& options) {
  CommandOptions()
      .Flag("help,h", options.help)
      .Flag("keep", options.keep)
      .Value("pass", options.pass)
      .Value("format", options.format)
      .Value("out", options.out)
      .Value("work-dir", options.work_dir)
      .Value("foreign-run", options.foreign_run)
      .Positional(options.positional)
      .Parse(args);
  if (options.help) return;
  RequireOneOf("format", options.format, {"text", "json"});
  if (options.positional.size() != 1) throw UsageError("expected one run directory, got " + std::to_string(options.positional.size()) + " arguments");
  if (options.pass) {
    const std::string& p = *options.pass;
    if (p.empty() || p.size() > 6 || p.find_first_not_of("0123456789") != std::string::npos || std::stoul(p) == 0) {
      throw UsageError("--pass must be a pass number (1, 2, ...), not '" + p + "'");
    }
  }
}

}  // namespace

int RunMutateCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Options options;
  Parse(args, options);
  if (options.help) {
    out << kMutateUsage;
    return 0;
  }
  const fs::path run_dir = options.positional[0];
  MutateReport report;
  {
    // Trouble escapes to main (exit 2). The auditor removes the copies it makes, so a --work-dir
    // must hold nothing else: it can never delete what it did not create.
    const std::uint32_t pass = options.pass ? static_cast<std::uint32_t>(std::stoul(*options.pass)) : LastCompletePass(run_dir);
    const WorkDir work(options.work_dir, WorkDir::Given::kMustBeEmpty, "audit-mutate", options.keep);
    if (options.foreign_run && !fs::is_directory(PassesDir(*options.foreign_run))) {
      throw AuditError(*options.foreign_run + ": --foreign-run is not a run directory (no passes/)");
    }
    report = RunMutations(run_dir, pass, Mutations(), RealPassValidator(), work.path(), options.keep,
                          options.foreign_run ? fs::path(*options.foreign_run) : fs::path());
    if (options.keep) err << "audit mutate: the mutated copies are kept in " << work.path().string() << "\n";
  }
  const std::string rendered = options.format == "json" ? RenderMutateJson(report) : RenderMutateText(report);
  WriteReport(rendered, options.out, out);
  if (report.Applicable() == 0) {
    err << "audit mutate: no mutation applies to this pass, so nothing was tested\n";
    return 2;
  }
  return MutateExitCode(report);
}

}  // namespace pstrain::audit
