// `audit characterize`: the command line, the two training arms it runs and the report it writes.
#include "characterize/characterize_command.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <ostream>

#include "characterize/characterize_measure.h"
#include "characterize/characterize_report.h"
#include "common/file_io.h"
#include "report/child_process.h"
#include "report/audit_error.h"
#include "report/command_options.h"
#include "report/work_dir.h"
#include "report/report_text.h"

namespace pstrain::audit {

namespace fs = std::filesystem;

const char* const kCharacterizeUsage =
    "usage: audit characterize --manifest M --model DIR --dict DICT --filler FILLERDICT\n"
    "                          [--corpus-root DIR] [--shards A,B] [--passes N] [--budget REL]\n"
    "                          [--work-dir DIR] [--keep] [--pstrain PATH]\n"
    "                          [--format text|json|html] [--out FILE]\n"
    "\n"
    "Cross-count characterization: trains the same corpus four times with `pstrain train` — float32\n"
    "reduction with --jobs A and with --jobs B, and exact reduction (the control) with both — for\n"
    "exactly N passes each, then reports per pass and per mode: the largest relative difference of\n"
    "the re-estimated means between the two shard counts and how many elements exceed the budget,\n"
    "the same for the reduced raw mean numerators (accum/gauden_counts), the per-frame\n"
    "log-likelihood of each arm and their gap, and whether each arm's log-likelihood rose\n"
    "monotonically. The exact control must show zero difference. A handful of passes does not\n"
    "establish convergence to a common value.\n"
    "\n"
    "Options:\n"
    "  --manifest M       the training manifest (required)\n"
    "  --model DIR        the initial model directory (required)\n"
    "  --dict DICT        the dictionary (required)\n"
    "  --filler FILLER    the filler dictionary (required)\n"
    "  --corpus-root DIR  passed to pstrain train (feature paths relative to DIR)\n"
    "  --shards A,B       the two requested job counts, A != B (default 1,2)\n"
    "  --passes N         passes per run (--min-passes N --max-passes N; default 3)\n"
    "  --budget REL       relative-difference budget for the element counts (default 1e-6)\n"
    "  --work-dir DIR     where the four runs go (DIR/float32-jobs-A, ...; a finished run with the same\n"
    "                     training fingerprint is reused by pstrain). Default: a new directory under\n"
    "                     $TMPDIR, removed afterwards unless --keep\n"
    "  --keep             keep the default work directory\n"
    "  --pstrain PATH     the pstrain binary (default: ../trainer/pstrain next to this audit binary,\n"
    "                     else pstrain on PATH)\n"
    "  --format F         text (default), json or html (one self-contained page with the curves)\n"
    "  --out FILE         write the report to FILE (atomically) instead of standard output\n"
    "  -h, --help         show this help\n"
    "\n"
    "Exit status: 0 report written and the exact control showed zero difference; 1 report written but\n"
    "the exact control showed a difference; 2 trouble (bad option, a training run failed — its log is\n"
    "named — or its output unreadable).\n";

namespace {

struct Options {
  std::optional<std::string> manifest, model, dict, filler, corpus_root, work_dir, pstrain, out;
  std::string shards = "1,2";
  std::string passes = "3";
  std::string budget = "1e-6";
  std::string format = "text";
  bool keep = false;
  bool help = false;
  // Parsed.
  std::uint32_t jobs_a = 0, jobs_b = 0, pass_count = 0;
  double budget_value = 0;
};

std::optional<std::uint32_t> ParseCount(const std::string& text) {
  if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const unsigned long v = std::stoul(text);
  if (v == 0) return std::nullopt;
  return static_cast<std::uint32_t>(v);
}

void Parse(const std::vector<std::string>& args, Options& o) {
  std::vector<std::string> positional;
  CommandOptions()
      .Flag("help,h", o.help)
      .Flag("keep", o.keep)
      .Value("manifest", o.manifest)
      .Value("model", o.model)
      .Value("dict", o.dict)
      .Value("filler", o.filler)
      .Value("corpus-root", o.corpus_root)
      .Value("shards", o.shards)
      .Value("passes", o.passes)
      .Value("budget", o.budget)
      .Value("work-dir", o.work_dir)
      .Value("pstrain", o.pstrain)
      .Value("format", o.format)
      .Value("out", o.out)
      .Positional(positional)
      .Parse(args);
  if (o.help) return;
  if (!positional.empty()) throw UsageError("unexpected argument '" + positional[0] + "'");
  for (const auto& [name, value] : {std::pair{"--manifest", &o.manifest}, std::pair{"--model", &o.model}, std::pair{"--dict", &o.dict},
                                    std::pair{"--filler", &o.filler}}) {
    if (!*value) throw UsageError(std::string(name) + " is required");
  }
  RequireOneOf("format", o.format, {"text", "json", "html"});
  const std::size_t comma = o.shards.find(',');
  const auto a = comma == std::string::npos ? std::nullopt : ParseCount(o.shards.substr(0, comma));
  const auto b = comma == std::string::npos ? std::nullopt : ParseCount(o.shards.substr(comma + 1));
  if (!a || !b || *a == *b) throw UsageError("--shards must be two different job counts A,B (e.g. 1,2), not '" + o.shards + "'");
  o.jobs_a = *a;
  o.jobs_b = *b;
  const auto passes = ParseCount(o.passes);
  if (!passes || *passes > 1000) throw UsageError("--passes must be a number of passes from 1 to 1000, not '" + o.passes + "'");
  o.pass_count = *passes;
  char* end = nullptr;
  o.budget_value = std::strtod(o.budget.c_str(), &end);
  if (end == o.budget.c_str() || *end != '\0' || !std::isfinite(o.budget_value) || o.budget_value < 0) {
    throw UsageError("--budget must be a non-negative relative difference such as 1e-6, not '" + o.budget + "'");
  }
}

std::string DefaultPstrain() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path sibling = self.parent_path().parent_path() / "trainer" / "pstrain";
    if (::access(sibling.c_str(), X_OK) == 0) return sibling.string();
  }
  return "pstrain";
}

// Runs `argv` with standard output and error to `log`; throws AuditError when it cannot be
// started or does not exit 0, with the tail of the log.
void RunLogged(const std::vector<std::string>& argv, const fs::path& log) {
  const ChildOutcome outcome = RunChild({argv, {}, {}, log, nullptr});
  if (outcome.Succeeded()) return;
  std::string tail;
  try {
    tail = LastLines(ReadFileText(log), 5);
  } catch (const std::exception&) {
  }
  throw AuditError(argv[0] + " train " + outcome.Describe() + " (log: " + log.string() + ")" + (tail.empty() ? "" : ":\n" + tail));
}

fs::path Train(const Options& o, const std::string& pstrain, const fs::path& work_dir, const char* reduction, std::uint32_t jobs) {
  const fs::path run = work_dir / (std::string(reduction) + "-jobs-" + std::to_string(jobs));
  std::vector<std::string> argv = {pstrain, "train", "--model", *o.model, "--manifest", *o.manifest, "--dict", *o.dict, "--filler", *o.filler};
  if (o.corpus_root) argv.insert(argv.end(), {"--corpus-root", *o.corpus_root});
  const std::string passes = std::to_string(o.pass_count);
  argv.insert(argv.end(), {"--out", run.string(), "--jobs", std::to_string(jobs), "--reduction", reduction, "--min-passes", passes,
                           "--max-passes", passes, "--quiet"});
  RunLogged(argv, work_dir / (run.filename().string() + ".log"));
  return run;
}

}  // namespace

int RunCharacterizeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Options o;
  Parse(args, o);
  if (o.help) {
    out << kCharacterizeUsage;
    return 0;
  }
  CharacterizeReport report;
  {
    // Trouble escapes to main (exit 2); the default work directory goes with it unless --keep.
    const WorkDir work(o.work_dir, WorkDir::Given::kMayHoldFiles, "audit-characterize", o.keep);
    const std::string pstrain = o.pstrain ? *o.pstrain : DefaultPstrain();
    report.manifest = *o.manifest;
    report.model = *o.model;
    report.jobs_a = o.jobs_a;
    report.jobs_b = o.jobs_b;
    report.passes = o.pass_count;
    report.budget = o.budget_value;
    for (const char* reduction : {"float32", "exact"}) {
      const fs::path a = Train(o, pstrain, work.path(), reduction, o.jobs_a);
      const fs::path b = Train(o, pstrain, work.path(), reduction, o.jobs_b);
      (std::string(reduction) == "float32" ? report.float32 : report.exact) =
          CompareRuns(reduction, a, o.jobs_a, b, o.jobs_b, o.pass_count, o.budget_value);
    }
    if (work.created() && work.kept()) err << "audit characterize: the runs are kept in " << work.path().string() << "\n";
  }
  const std::string rendered = o.format == "json"   ? RenderCharacterizeJson(report)
                               : o.format == "html" ? RenderCharacterizeHtml(report)
                                                    : RenderCharacterizeText(report);
  WriteReport(rendered, o.out, out);
  return report.exact.AllZero() ? 0 : 1;
}

}  // namespace pstrain::audit
