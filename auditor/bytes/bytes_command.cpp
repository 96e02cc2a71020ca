// `audit bytes A B`: the command line, the comparison run and the exit status.
#include "bytes/bytes_command.h"

#include <optional>
#include <ostream>

#include "bytes/bytes_compare.h"
#include "bytes/bytes_report.h"
#include "report/audit_error.h"
#include "report/command_options.h"

namespace pstrain::audit {

const char* const kBytesUsage =
    "usage: audit bytes A B [--format text|json|html] [--out FILE] [--ignore-telemetry]\n"
    "\n"
    "Byte-compares two files or directory trees (artifact or model trees). Both are walked\n"
    "recursively in sorted name order; symlinks below A and B are entries of their own and are never\n"
    "followed (a symlink on one side and a file on the other is a difference). Reports files only in\n"
    "A, files only in B, differing files with the first differing byte offset, both sizes and both\n"
    "SHA-256s, and the number of identical files.\n"
    "\n"
    "Options:\n"
    "  --format F          text (default, for people), json (for machines) or html (a single\n"
    "                      self-contained page)\n"
    "  --out FILE          write the report to FILE (atomically) instead of standard output\n"
    "  --ignore-telemetry  skip files named telemetry.json and worker.stderr and files below a\n"
    "                      slurm/ directory (a pass's Slurm job records), which are not\n"
    "                      deterministic (docs/contract.md), and report how many were skipped\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 identical; 1 different (a file compared with a directory is different);\n"
    "2 trouble (bad option, missing or unreadable path, named in the message).\n";

namespace {

struct Options {
  std::vector<std::string> paths;
  std::string format = "text";
  std::optional<std::string> out;
  bool ignore_telemetry = false;
  bool help = false;
};

// Parses the options; throws UsageError on what it refuses.
void Parse(const std::vector<std::string>& args, Options& options) {
  CommandOptions()
      .Flag("help,h", options.help)
      .Flag("ignore-telemetry", options.ignore_telemetry)
      .Value("format", options.format)
      .Value("out", options.out)
      .Positional(options.paths)
      .Parse(args);
  if (options.help) return;
  RequireOneOf("format", options.format, {"text", "json", "html"});
  if (options.paths.size() != 2) {
    throw UsageError("expected two paths A and B, got " + std::to_string(options.paths.size()));
  }
}

}  // namespace

int RunBytesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& /*err: trouble is thrown*/) {
  Options options;
  Parse(args, options);
  if (options.help) {
    out << kBytesUsage;
    return 0;
  }
  const BytesReport report = CompareBytes(options.paths[0], options.paths[1], options.ignore_telemetry);  // trouble: main, exit 2
  const std::string rendered = options.format == "json"   ? RenderBytesJson(report)
                               : options.format == "html" ? RenderBytesHtml(report)
                                                          : RenderBytesText(report);
  WriteReport(rendered, options.out, out);
  return report.Different() ? 1 : 0;
}

}  // namespace pstrain::audit
