// `audit gates run`: the command line, running the gate binary in a profile and summarizing it.
#include "gates/gates_command.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>

#include "common/file_io.h"
#include "gates/gates_summary.h"
#include "manifest/manifest.h"
#include "report/audit_error.h"
#include "report/child_process.h"
#include "report/command_options.h"
#include "report/report_text.h"
#include "scope/scope_extractor.h"

#ifndef PSTRAIN_AUDIT_SOURCE_DIR
#define PSTRAIN_AUDIT_SOURCE_DIR "."
#endif

namespace pstrain::audit {

namespace fs = std::filesystem;

const char* const kGatesUsage =
    "usage: audit gates run [--profile quick|full] [--only KIND...] [--shards 1,2,4] [--passes N]\n"
    "                       [--corpus MANIFEST [--corpus-root DIR] [--dict FILE] [--filler FILE]]\n"
    "                       [--pstrain PATH] [--json FILE] [--junit FILE] [--ledger FILE]\n"
    "                       [--gate-binary PATH] [--gates DIR] [--compile-commands FILE]\n"
    "                       [--work-dir DIR] [--verbose]\n"
    "\n"
    "Runs the built determinism gates (GoogleTest binary gate_tests) with PSTRAIN_GATE_PROFILE and a\n"
    "fresh run ledger (PSTRAIN_GATE_LEDGER), reads GoogleTest's XML report and the ledger, and prints\n"
    "per gate: PASS/FAIL/NOT RUN, what its declaration describes (kind, shard counts, passes), how\n"
    "many checks the kit recorded and how many failed, and the first failed check (helper, subjects,\n"
    "detail: what was compared and where the first difference is).\n"
    "\n"
    "First, when the gate binary is in a build tree (BUILD/gates/gate_tests, BUILD/CMakeCache.txt),\n"
    "it prepares the default corpus the gates use: bash scripts/prepare-corpus.sh BUILD/corpus/default\n"
    "(nothing to do when it is up to date; a failure exits 2 before any gate runs). A gate that fails\n"
    "only because its corpus is missing is NOT RUN (exit 2), with the command that prepares it.\n"
    "\n"
    "Options:\n"
    "  --profile P        quick (default: the default corpus, declared counts) or full (the benchmark\n"
    "                     corpus, more passes; build it first with scripts/prepare-bench-corpus.sh)\n"
    "  --only KIND...     only the gates declaring these kinds (e.g. fixed-count-reproducibility\n"
    "                     cross-count-exact; repeatable, comma-separated also accepted). Kinds are\n"
    "                     mapped to test names by reading the gates' declarations in the sources\n"
    "                     (--gates) with the `audit scope` extractor\n"
    "  --shards LIST      shard counts instead of each gate's own (comma-separated positive\n"
    "                     integers). Cross-count gates (cross-count-exact, cross-count-discrete-state,\n"
    "                     multipron-sharding) run every count and compare each with the first (at\n"
    "                     least 2 distinct counts); fixed-count-reproducibility runs each count twice;\n"
    "                     provenance-comparison the first two distinct counts; completion-order the\n"
    "                     largest (at least 2). one-shard-reference, peer-agreement (1 shard) and\n"
    "                     artifact-validation (3 shards) ignore it, and the run says so\n"
    "  --passes N         passes per run instead of each gate's own (one-shard-reference,\n"
    "                     peer-agreement and artifact-validation ignore it)\n"
    "  --corpus MANIFEST  run the gates on this training manifest instead of the profile's corpus\n"
    "  --corpus-root DIR  its corpus root (default: the manifest's directory)\n"
    "  --dict FILE        its dictionary (default: CORPUS_ROOT/corpus.dic)\n"
    "  --filler FILE      its filler dictionary (default: CORPUS_ROOT/corpus.filler)\n"
    "  --pstrain PATH     the pstrain binary the gates train, accumulate and validate with (default:\n"
    "                     the built one), e.g. another build or a wrapper\n"
    "  --json FILE        write the JSON summary to FILE\n"
    "  --junit FILE       write a JUnit XML report to FILE (GoogleTest's own XML report, which is\n"
    "                     JUnit-compatible; a report made from the summary when GoogleTest wrote none)\n"
    "  --ledger FILE      the run ledger (removed first; default WORK_DIR/gate-ledger.jsonl)\n"
    "  --gate-binary PATH the gate binary (default: gates/gate_tests in the build tree of this audit)\n"
    "  --gates DIR        the gate sources (default: " PSTRAIN_AUDIT_SOURCE_DIR "/gates)\n"
    "  --compile-commands FILE\n"
    "                     the compilation database the sources are read with (default: the\n"
    "                     compile_commands.json of the gate binary's build tree, BUILD/ for\n"
    "                     BUILD/gates/gate_tests, else that of this audit's build tree)\n"
    "  --work-dir DIR     where the XML report and the gate output (gate-output.log) go (default: a\n"
    "                     new directory under $TMPDIR or /tmp; kept, its path is printed)\n"
    "  --verbose          also copy the gate binary's output to standard error while it runs\n"
    "  -h, --help         show this help\n"
    "\n"
    "The overrides reach the gates as PSTRAIN_GATE_SHARDS, _PASSES, _CORPUS, _CORPUS_ROOT, _DICT,\n"
    "_FILLER and _PSTRAIN (gates/gate_fixture.h). Values are checked before any gate runs: a bad\n"
    "number, a shard list a selected gate cannot use, a manifest that does not load, a missing\n"
    "root, dictionary, filler or pstrain exit 2. Each gate records what it really ran (shard counts,\n"
    "passes, corpus manifest with its utterance count and fingerprint, pstrain, overrides applied\n"
    "and ignored) in the ledger; the summary prints it per gate (text, JSON \"run\", JUnit\n"
    "properties). The declarations still only describe the gates' own settings. With --corpus the\n"
    "profile still sets the passes (unless --passes) and completion-order's delays.\n"
    "\n"
    "Exit status: 0 every selected gate passed; 1 a gate failed; 2 the gates could not run (bad\n"
    "option or override, gate binary missing, no gate selected, a selected gate did not run or was\n"
    "skipped, the binary ended without an XML report, e.g. a crash).\n";

namespace {

struct Options {
  std::string profile = "quick";
  std::vector<std::string> only;
  std::optional<std::string> json, junit, ledger, gate_binary, work_dir, compile_commands;
  std::optional<std::string> shards, passes, corpus, corpus_root, dict, filler, pstrain;
  std::vector<std::uint32_t> shard_list;
  std::string gates = std::string(PSTRAIN_AUDIT_SOURCE_DIR) + "/gates";
  bool only_given = false;
  bool verbose = false;
  bool help = false;
};

}  // namespace

std::uint32_t ParsePositive(const std::string& text, const std::string& option, std::string& problem) {
  const bool digits = !text.empty() && text.size() <= 6 && text.find_first_not_of("0123456789") == std::string::npos;
  const unsigned long value = digits ? std::stoul(text) : 0;
  if (value == 0) problem = option + ": '" + text + "' is not a positive integer (at most 6 digits)";
  return static_cast<std::uint32_t>(value);
}

std::vector<std::uint32_t> ParseShardCounts(const std::string& text, std::string& problem) {
  std::vector<std::uint32_t> counts;
  if (text.empty() || text.back() == ',') {
    problem = "--shards: '" + text + "' is not a comma-separated list of positive integers (e.g. 1,2,4)";
    return {};
  }
  std::stringstream parts(text);
  for (std::string part; std::getline(parts, part, ',');) {
    const std::uint32_t count = ParsePositive(part, "--shards", problem);
    if (!problem.empty()) {
      problem += " in '" + text + "'";
      return {};
    }
    if (std::find(counts.begin(), counts.end(), count) == counts.end()) counts.push_back(count);
  }
  return counts;
}

std::string ShardOverrideProblem(const std::string& kind, const std::vector<std::uint32_t>& counts) {
  const std::uint32_t largest = counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
  if (kind == "cross-count-exact" || kind == "cross-count-discrete-state" || kind == "multipron-sharding") {
    if (counts.size() < 2) return kind + " compares every count with the first and needs at least 2 distinct counts";
  } else if (kind == "provenance-comparison") {
    if (counts.size() < 2) return kind + " compares the first two distinct counts and needs at least 2";
  } else if (kind == "completion-order") {
    if (largest < 2) return kind + " orders the shards of the largest count and needs a count of at least 2";
  }
  return "";
}

std::string IgnoredOverride(const std::string& kind, const std::string& option) {
  if (kind == "one-shard-reference" || kind == "peer-agreement") {
    return kind + " ignores " + option + (option == "--shards" ? " (one shard by definition)" : " (one E-step by definition)");
  }
  if (kind == "artifact-validation") {
    return kind + " ignores " + option + (option == "--shards" ? " (3 shards by definition)" : " (2 passes and a 1-pass run by definition)");
  }
  return "";
}

namespace {

void AddKinds(const std::string& value, std::vector<std::string>& kinds) {
  std::stringstream parts(value);
  for (std::string kind; std::getline(parts, kind, ',');) {
    if (!kind.empty() && std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
  }
}

// Parses the options after "run"; throws UsageError on what it refuses.
void Parse(const std::vector<std::string>& args, Options& options) {
  CommandOptions parser;
  parser.Flag("help,h", options.help).Flag("verbose", options.verbose);
  parser.Values("only", [&options](const std::vector<std::string>& kinds) {
    options.only_given = true;
    for (const std::string& kind : kinds) AddKinds(kind, options.only);
    if (options.only.empty()) throw UsageError("--only needs at least one gate kind");
  });
  parser.Value("profile", options.profile)
      .Value("gates", options.gates)
      .Value("compile-commands", options.compile_commands)
      .Value("json", options.json)
      .Value("junit", options.junit)
      .Value("ledger", options.ledger)
      .Value("gate-binary", options.gate_binary)
      .Value("work-dir", options.work_dir)
      .Value("shards", options.shards)
      .Value("passes", options.passes)
      .Value("corpus", options.corpus)
      .Value("corpus-root", options.corpus_root)
      .Value("dict", options.dict)
      .Value("filler", options.filler)
      .Value("pstrain", options.pstrain)
      .Parse(args);
  RequireOneOf("profile", options.profile, {"quick", "full"});
  if (options.shards) {
    std::string problem;
    options.shard_list = ParseShardCounts(*options.shards, problem);
    if (!problem.empty()) throw UsageError(problem);
  }
  if (options.passes) {
    std::string problem;
    ParsePositive(*options.passes, "--passes", problem);
    if (!problem.empty()) throw UsageError(problem);
  }
  if (!options.corpus) {
    for (const auto& [name, value] : {std::pair{"--corpus-root", &options.corpus_root}, {"--dict", &options.dict}, {"--filler", &options.filler}}) {
      if (*value) throw UsageError(std::string(name) + " needs --corpus MANIFEST (it describes the corpus of that manifest)");
    }
  }
}

// A validated corpus override: the absolute paths passed to the gates.
struct CorpusOverride {
  fs::path manifest, root, dict, filler;
  std::size_t utterances = 0;
  std::string fingerprint;
};

// Checks --corpus (and --corpus-root, --dict, --filler); throws AuditError naming the option and
// the file.
CorpusOverride CheckCorpus(const Options& options) {
  CorpusOverride corpus;
  corpus.manifest = fs::absolute(*options.corpus);
  corpus.root = options.corpus_root ? fs::absolute(*options.corpus_root) : corpus.manifest.parent_path();
  corpus.dict = options.dict ? fs::absolute(*options.dict) : corpus.root / "corpus.dic";
  corpus.filler = options.filler ? fs::absolute(*options.filler) : corpus.root / "corpus.filler";
  std::error_code ec;
  if (!fs::is_regular_file(corpus.manifest, ec)) throw AuditError("--corpus: the manifest " + corpus.manifest.string() + " does not exist");
  try {
    const Manifest manifest = Manifest::Load(corpus.manifest);
    corpus.utterances = manifest.size();
    corpus.fingerprint = manifest.Fingerprint();
  } catch (const std::exception& e) {
    // Not handled here: rethrown with the option that named the file.
    throw AuditError(std::string("--corpus: the manifest does not load: ") + e.what());
  }
  if (!fs::is_directory(corpus.root, ec)) {
    throw AuditError(std::string(options.corpus_root ? "--corpus-root" : "--corpus") + ": the corpus root " + corpus.root.string() +
                     " is not a directory");
  }
  if (!fs::is_regular_file(corpus.dict, ec)) {
    throw AuditError(std::string(options.dict ? "--dict" : "--corpus-root") + ": the dictionary " + corpus.dict.string() +
                     " does not exist" + (options.dict ? "" : " (give --dict FILE)"));
  }
  if (!fs::is_regular_file(corpus.filler, ec)) {
    throw AuditError(std::string(options.filler ? "--filler" : "--corpus-root") + ": the filler dictionary " + corpus.filler.string() +
                     " does not exist" + (options.filler ? "" : " (give --filler FILE)"));
  }
  return corpus;
}

// <build>/gates/gate_tests for this audit at <build>/auditor/audit.
fs::path DefaultGateBinary() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "gates/gate_tests";
  return self.parent_path().parent_path() / "gates" / "gate_tests";
}

std::vector<SourceGate> SourceGates(const ScopeReport& report) {
  std::vector<SourceGate> gates;
  for (const FileScope& file : report.files) {
    for (const GateScope& gate : file.gates) {
      SourceGate s;
      s.name = gate.FullName();
      s.file = gate.file + ":" + std::to_string(gate.line);
      if (!gate.declarations.empty()) {
        const Declaration& d = gate.declarations.front();
        if (d.kind && d.kind->literal) s.kind = d.kind->text;
        // A literal that is not a number (or out of range) says nothing here: the field (or the
        // count) stays unset, and the run goes on.
        if (d.passes && d.passes->literal) {
          try {
            s.passes = static_cast<std::uint32_t>(std::stoul(d.passes->text));
          } catch (const std::exception&) {
          }
        }
        if (d.shard_counts && d.shard_counts->braced) {
          for (const SourceValue& v : d.shard_counts->items) {
            if (!v.literal) continue;
            try {
              s.shard_counts.push_back(static_cast<std::uint32_t>(std::stoul(v.text)));
            } catch (const std::exception&) {
            }
          }
        }
      }
      gates.push_back(std::move(s));
    }
  }
  return gates;
}

constexpr const char* kOverrideVariables[] = {"PSTRAIN_GATE_SHARDS", "PSTRAIN_GATE_PASSES",      "PSTRAIN_GATE_CORPUS",
                                              "PSTRAIN_GATE_CORPUS_ROOT", "PSTRAIN_GATE_DICT", "PSTRAIN_GATE_FILLER",
                                              "PSTRAIN_GATE_PSTRAIN"};

// Runs the gate binary with the gate environment; its output goes to `log` (and to `echo` when set).
ChildOutcome RunGateBinary(const std::vector<std::string>& argv, const std::string& profile, const fs::path& ledger,
                           const std::vector<std::pair<std::string, std::string>>& overrides, const fs::path& log,
                           std::ostream* echo) {
  ChildCommand command;
  command.argv = argv;
  command.log = log;
  command.echo = echo;
  // Only the overrides of this command line reach the gates, not ones exported in the shell.
  command.unset_env.assign(std::begin(kOverrideVariables), std::end(kOverrideVariables));
  command.set_env = overrides;
  command.set_env.emplace_back("PSTRAIN_GATE_PROFILE", profile);
  command.set_env.emplace_back("PSTRAIN_GATE_LEDGER", ledger.string());
  // The gates' scratch directories go below the ledger's directory (the work directory by
  // default), not below the build tree, which ctest's own gate runs use.
  command.set_env.emplace_back("PSTRAIN_GATE_SCRATCH", (fs::absolute(ledger).parent_path() / "gate-scratch").string());
  return RunChild(command);
}

// The last lines of a child's log for a message; none when the child wrote no log (it may not have
// started), which is not an error of its own.
std::string LastLinesOf(const fs::path& file, std::size_t count) {
  std::string text;
  try {
    text = ReadFileText(file);
  } catch (const std::exception&) {
    return "";
  }
  return LastLines(text, count);
}

// A message that ends with a child's last lines, without the final newline the runner adds.
std::string WithoutFinalNewline(std::string text) {
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

int RunGates(const Options& options, std::ostream& out, std::ostream& err) {
  const fs::path binary = options.gate_binary ? fs::path(*options.gate_binary) : DefaultGateBinary();
  if (::access(binary.c_str(), X_OK) != 0) {
    throw AuditError("the gate binary " + binary.string() + " is missing or not executable (" + std::strerror(errno) +
                     "); build it (cmake --build BUILD --target gate_tests) or pass --gate-binary");
  }

  // The gate sources: --only needs them; otherwise they only supply declarations of gates that did
  // not run.
  std::vector<SourceGate> sources;
  std::string source_error;
  try {
    // The declarations are read with the compilation database of the gate binary's build tree, or
    // (a gate binary outside a build tree) of this audit binary's.
    fs::path database = binary.parent_path().parent_path() / "compile_commands.json";
    std::error_code exists_error;
    if (options.compile_commands) {
      database = *options.compile_commands;
    } else if (!fs::exists(database, exists_error)) {
      database = DefaultCompileCommands();
    }
    sources = SourceGates(ExtractScope(options.gates, database));
  } catch (const std::exception& e) {
    // Without --only the run goes on: the sources only add declarations of gates that did not run.
    source_error = e.what();
  }
  std::vector<std::string> selected;
  if (options.only_given) {
    if (!source_error.empty()) throw AuditError("--only needs the gate sources: " + source_error);
    std::set<std::string> known;
    for (const SourceGate& s : sources) {
      if (!s.kind.empty()) known.insert(s.kind);
    }
    for (const std::string& kind : options.only) {
      if (!known.count(kind)) {
        std::string message = "no gate in " + options.gates + " declares the kind '" + kind + "'; known kinds:";
        for (const std::string& k : known) message += " " + k;
        throw AuditError(message);
      }
      for (const SourceGate& s : sources) {
        if (s.kind == kind && std::find(selected.begin(), selected.end(), s.name) == selected.end()) {
          selected.push_back(s.name);
        }
      }
    }
    if (selected.empty()) throw AuditError("--only selected no gate");
  }

  // The overrides, checked before anything runs.
  std::vector<std::pair<std::string, std::string>> overrides;
  std::vector<std::string> notes;
  {
    std::vector<std::string> kinds;  // of the gates that will run (as far as the sources say)
    for (const SourceGate& s : sources) {
      if (selected.empty() || std::find(selected.begin(), selected.end(), s.name) != selected.end()) kinds.push_back(s.kind);
    }
    if (options.shards) {
      for (const std::string& kind : kinds) {
        if (const std::string problem = ShardOverrideProblem(kind, options.shard_list); !problem.empty()) {
          throw AuditError("--shards " + *options.shards + " cannot be used: " + problem + " (leave it out with --only, or give more counts)");
        }
        if (const std::string note = IgnoredOverride(kind, "--shards"); !note.empty()) notes.push_back(note);
      }
      overrides.emplace_back("PSTRAIN_GATE_SHARDS", *options.shards);
    }
    if (options.passes) {
      for (const std::string& kind : kinds) {
        if (const std::string note = IgnoredOverride(kind, "--passes"); !note.empty()) notes.push_back(note);
      }
      overrides.emplace_back("PSTRAIN_GATE_PASSES", *options.passes);
    }
    if (options.corpus) {
      const CorpusOverride corpus = CheckCorpus(options);
      overrides.emplace_back("PSTRAIN_GATE_CORPUS", corpus.manifest.string());
      overrides.emplace_back("PSTRAIN_GATE_CORPUS_ROOT", corpus.root.string());
      overrides.emplace_back("PSTRAIN_GATE_DICT", corpus.dict.string());
      overrides.emplace_back("PSTRAIN_GATE_FILLER", corpus.filler.string());
      notes.push_back("corpus " + corpus.manifest.string() + ": " + std::to_string(corpus.utterances) + " utterances, fingerprint " +
                      corpus.fingerprint.substr(0, 12) + ", root " + corpus.root.string());
    }
    if (options.pstrain) {
      const fs::path pstrain = fs::absolute(*options.pstrain);
      if (!fs::is_regular_file(pstrain) || ::access(pstrain.c_str(), X_OK) != 0) {
        throw AuditError("--pstrain: " + pstrain.string() + " is not an executable file");
      }
      overrides.emplace_back("PSTRAIN_GATE_PSTRAIN", pstrain.string());
    }
  }

  fs::path work;
  std::error_code ec;
  if (options.work_dir) {
    work = fs::absolute(*options.work_dir);
    fs::create_directories(work, ec);
    if (ec) throw AuditError("cannot create " + work.string() + ": " + ec.message());
  } else {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/audit-gates-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw AuditError("cannot create a work directory " + pattern + ": " + std::strerror(errno));
    work = pattern;
  }
  const fs::path xml = work / "gtest-report.xml";
  const fs::path log = work / "gate-output.log";
  const fs::path ledger = fs::absolute(options.ledger ? fs::path(*options.ledger) : work / "gate-ledger.jsonl");
  fs::remove(xml, ec);
  fs::remove(ledger, ec);
  if (ec) throw AuditError("cannot remove the old ledger " + ledger.string() + ": " + ec.message());

  // The gates' default corpus (<build>/corpus/default, compiled into the gate binary) is what the
  // prepare_default_corpus ctest fixture builds; right after a build it is missing and every gate
  // would fail for lack of it. Prepare it first (the script does nothing when it is up to date)
  // when the gate binary is in a build tree (<build>/gates/gate_tests next to <build>/CMakeCache.txt).
  {
    const fs::path build = fs::absolute(binary).lexically_normal().parent_path().parent_path();
    if (fs::exists(build / "CMakeCache.txt", ec)) {
      const fs::path corpus = build / "corpus" / "default";
      const fs::path script = fs::path(PSTRAIN_AUDIT_SOURCE_DIR) / "scripts" / "prepare-corpus.sh";
      const fs::path corpus_log = work / "prepare-corpus.log";
      out << "audit gates: preparing the default corpus: bash " << script.string() << " " << corpus.string()
          << " (nothing to do when it is up to date; output in " << corpus_log.string() << ")\n";
      out.flush();
      const ChildOutcome prepared = RunChild({{"bash", script.string(), corpus.string()}, {}, {}, corpus_log, nullptr});
      if (!prepared.Succeeded()) {
        throw AuditError(WithoutFinalNewline("cannot prepare the default corpus the gates need: bash " + script.string() + " " +
                                             corpus.string() + " " + prepared.Describe() + "; no gate was run. Its last output (" +
                                             corpus_log.string() + "):\n" + LastLinesOf(corpus_log, 15)));
      }
      out << "audit gates: default corpus ready at " << corpus.string() << "\n";
    } else {
      out << "audit gates: " << binary.string()
          << " is not in a build tree (no CMakeCache.txt two levels up): the default corpus is not prepared\n";
    }
  }

  std::vector<std::string> argv = {fs::absolute(binary).string(), "--gtest_output=xml:" + xml.string(),
                                   "--gtest_color=no"};
  std::string filter;
  for (const std::string& name : selected) filter += (filter.empty() ? "" : ":") + name;
  if (!filter.empty()) argv.push_back("--gtest_filter=" + filter);

  out << "audit gates: running " << binary.string() << " (profile " << options.profile << "; "
      << (selected.empty() ? std::string("every gate") : std::to_string(selected.size()) + " selected: " + filter)
      << ")\n";
  for (const auto& [name, value] : overrides) out << "audit gates: override " << name << "=" << value << "\n";
  for (const std::string& note : notes) out << "audit gates: " << note << "\n";
  out << "audit gates: work directory " << work.string() << " (gate output in " << log.filename().string()
      << "), ledger " << ledger.string() << "\n";
  out.flush();
  const ChildOutcome child = RunGateBinary(argv, options.profile, ledger, overrides, log, options.verbose ? &err : nullptr);

  SummarizeInput input;
  input.profile = options.profile;
  input.gate_binary = binary.string();
  input.xml = xml;
  input.ledger = ledger;
  input.only = options.only;
  for (const auto& [name, value] : overrides) input.overrides.push_back(name + "=" + value);
  input.selected = selected;
  input.sources = sources;
  if (!child.started) {
    input.run_problem = "cannot run the gate binary: " + child.error;
  } else if (!fs::exists(xml, ec)) {
    input.run_problem = "the gate binary " + child.Describe() + " without an XML report; its last output:\n" +
                        LastLinesOf(log, 15);
  }
  const GatesRunSummary summary = Summarize(input);

  out << "\naudit gates: summary\n" << RenderGatesText(summary);
  const int code = summary.exit_code;
  if (options.json) WriteFileAtomic(*options.json, RenderGatesJson(summary));
  if (options.junit) {
    bool copied = false;
    if (fs::exists(xml, ec)) {
      try {
        ParseGtestXml(xml);
        WriteFileAtomic(*options.junit, ReadFileText(xml));
        copied = true;
      } catch (const std::exception&) {
        // GoogleTest's own report is unreadable (a crashed gate binary): the summary's JUnit is
        // written instead below (a file that cannot be written fails there, as an error).
      }
    }
    if (!copied) WriteFileAtomic(*options.junit, RenderGatesJunit(summary));
  }
  if (code == 1) err << "audit gates: " << summary.Count("fail") << " of " << summary.gates.size() << " gates failed\n";
  if (code == 2) err << "audit gates: the gates could not run (see \"could not run\" above)\n";
  return code;
}

}  // namespace

int RunGatesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  // `audit gates` alone prints the usage (on stderr, exit 2, as `audit` alone does): not an error
  // message, so not thrown.
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    (args.empty() ? err : out) << kGatesUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] != "run") throw AuditError("unknown subcommand '" + args[0] + "' (only `audit gates run`; see audit gates --help)");
  Options options;
  Parse(std::vector<std::string>(args.begin() + 1, args.end()), options);
  if (options.help) {
    out << kGatesUsage;
    return 0;
  }
  return RunGates(options, out, err);
}

}  // namespace pstrain::audit
