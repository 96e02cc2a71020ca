// `audit compare DIR_A DIR_B`: the command line and the exit status.
#include "compare/compare_command.h"

#include <cmath>
#include <optional>
#include <ostream>

#include "compare/compare_report.h"
#include "compare/model_compare.h"
#include "report/audit_error.h"
#include "report/command_options.h"

namespace pstrain::audit {

const char* const kCompareUsage =
    "usage: audit compare DIR_A DIR_B [--format text|json|html] [--out FILE] [--rtol X] [--atol X]\n"
    "\n"
    "Compares two model directories (e.g. runs/a/model runs/b/model), provenance.json included, and\n"
    "says how they differ and, from provenance.json, why. Every file: present in both, byte-identical,\n"
    "SHA-256. Parameter files (means, variances, mixture_weights, transition_matrices, mixw_counts,\n"
    "tmat_counts, gauden_counts) are parsed: dimensions, differing elements, largest absolute and\n"
    "relative difference and where (state, stream, density, dimension), elements outside the\n"
    "tolerance, the states that differ most. mdef and other text files: a line diff; two mdefs that\n"
    "differ are compared by triphone membership: \"same state tying, N of M senones renumbered\"\n"
    "(parameters then compared senone by senone through that pairing) or \"different state tying:\n"
    "K of T triphone states are in a different group\" (tied-state parameters not compared element\n"
    "by element). provenance.json: field by field, shard counts, reduction, version and build\n"
    "identity first, then fingerprints, configuration and per-pass likelihoods.\n"
    "\n"
    "Options:\n"
    "  --format F   text (default, for people), json (for machines) or html (one self-contained\n"
    "               page with a per-state heat map and the likelihood trajectories)\n"
    "  --out FILE   write the report to FILE (atomically) instead of standard output\n"
    "  --rtol X     relative tolerance (default 0): an element is outside when\n"
    "  --atol X     |A-B| > atol + rtol * max(|A|, |B|) (default 0: every differing value)\n"
    "  -h, --help   show this help\n"
    "\n"
    "Exit status: 0 identical (every file byte-identical); 1 different (any file, provenance.json\n"
    "included); 2 trouble (bad option, missing or unreadable directory, malformed file, named in the\n"
    "message).\n";

namespace {

struct Options {
  std::vector<std::string> paths;
  std::string format = "text";
  std::optional<std::string> out;
  std::string rtol = "0", atol = "0";
  bool help = false;
};

// A finite, non-negative number; throws UsageError otherwise.
double ParseTolerance(const std::string& name, const std::string& text) {
  double value = 0.0;
  std::size_t used = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !std::isfinite(value) || value < 0.0) {
    throw UsageError("--" + name + " must be a finite non-negative number, not '" + text + "'");
  }
  return value;
}

void Parse(const std::vector<std::string>& args, Options& options, Tolerance& tolerance) {
  CommandOptions()
      .Flag("help,h", options.help)
      .Value("format", options.format)
      .Value("out", options.out)
      .Value("rtol", options.rtol)
      .Value("atol", options.atol)
      .Positional(options.paths)
      .Parse(args);
  if (options.help) return;
  RequireOneOf("format", options.format, {"text", "json", "html"});
  tolerance.rtol = ParseTolerance("rtol", options.rtol);
  tolerance.atol = ParseTolerance("atol", options.atol);
  if (options.paths.size() != 2) {
    throw UsageError("expected two directories DIR_A and DIR_B, got " + std::to_string(options.paths.size()));
  }
}

}  // namespace

int RunCompareCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& /*err: trouble is thrown*/) {
  Options options;
  Tolerance tolerance;
  Parse(args, options, tolerance);
  if (options.help) {
    out << kCompareUsage;
    return 0;
  }
  const CompareReport report = CompareModels(options.paths[0], options.paths[1], tolerance);  // trouble: main, exit 2
  const std::string rendered = options.format == "json"   ? RenderCompareJson(report)
                               : options.format == "html" ? RenderCompareHtml(report)
                                                          : RenderCompareText(report);
  WriteReport(rendered, options.out, out);
  return report.Different() ? 1 : 0;
}

}  // namespace pstrain::audit
