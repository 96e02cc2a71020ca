// `bw` (pstrain invoked as `bw`, or `pstrain bw`): SphinxTrain's bw command line over pstrain's
// E-step. One run processes one -part of the control file and writes bw's accumulator files plus
// exact_counts, so that `norm` (pstrain's) can reduce the parts exactly (docs/sphinxtrain.md).
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/options/accumulate_options.h"
#include "cli/sphinxtrain_flags.h"
#include "common/file_io.h"
#include "formats/control_file.h"
#include "manifest/manifest.h"
#include "model/model_checks.h"
#include "shards/bw_partition.h"
#include "estep/corpus_pass.h"

namespace pstrain::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kBwUsage =
    "usage: bw -moddeffn MDEF -meanfn F -varfn F -mixwfn F -tmatfn F -dictfn DICT -fdictfn FILLER\n"
    "          -ctlfn FILEIDS -lsnfn TRANSCRIPTION -cepdir DIR -cepext EXT -accumdir DIR [flags]\n"
    "pstrain's bw: SphinxTrain's bw command line (what SphinxTrain's stages pass), pstrain's E-step.\n"
    "Writes gauden_counts, mixw_counts, tmat_counts (bw's format) and exact_counts into -accumdir.\n"
    "Flags (a flag marked refused, or a value outside the supported list, is an error):\n";

// The number of raw lines of a control file, as bw counts them (comments and blank lines too).
std::size_t RawLineCount(const std::string& text) {
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  if (!text.empty() && text.back() != '\n') ++lines;
  return lines;
}

// bw's built-in defaults where they differ from pstrain's (which are SphinxTrain's script values).
constexpr std::uint32_t kBwTopn = 4;
constexpr double kBwBeam = 1e-100;  // -abeam and -bbeam
constexpr double kBwVarfloor = 1e-5;
constexpr double kBwMwfloor = 1e-5;

// A yes|no flag (the flag table refuses any other value), `fallback` when absent.
bool YesNoFlag(const SphinxFlags& flags, const char* name, bool fallback) {
  const std::optional<std::string> value = flags.Get(name);
  return value ? *value == "yes" : fallback;
}

int RunBwChecked(int argc, char** argv) {
  const SphinxFlags flags = SphinxFlags::Parse(argc, argv, BwFlagTable(), "bw");
  const ModelPaths paths{flags.Require("-moddeffn"), flags.Require("-meanfn"), flags.Require("-varfn"), flags.Require("-mixwfn"),
                         flags.Require("-tmatfn")};
  const std::string ctlfn = flags.Require("-ctlfn"), lsnfn = flags.Require("-lsnfn"), accumdir = flags.Require("-accumdir");
  const std::string cepdir = flags.GetOr("-cepdir", "."), cepext = flags.GetOr("-cepext", "");

  // Where a flag is absent: bw's built-in default where it differs from pstrain's (kBw*), else
  // pstrain's, which is the options structs' (cli/options/); -cmn has no usable default.
  AccumulateOptions options;
  if (!flags.Get("-cmn")) throw SphinxFlagError("flag -cmn is required: bw's default, live, depends on utterance order (pass -cmn batch)");
  options.features.cmn = ParseCmnMode(*flags.Get("-cmn"));
  options.features.varnorm = YesNoFlag(flags, "-varnorm", options.features.varnorm);
  options.model.topn = static_cast<std::uint32_t>(flags.Count("-topn").value_or(kBwTopn));
  options.fb.beams.abeam = flags.Number("-abeam", kBwBeam);
  options.fb.beams.bbeam = flags.Number("-bbeam", kBwBeam);
  options.fb.pass2var = YesNoFlag(flags, "-2passvar", options.fb.pass2var);
  options.model.varfloor = static_cast<float>(flags.Number("-varfloor", kBwVarfloor));
  options.model.mwfloor = static_cast<float>(flags.Number("-mwfloor", kBwMwfloor));
  options.model.tpfloor = static_cast<float>(flags.Number("-tpfloor", options.model.tpfloor));
  options.fb.spthresh = flags.Number("-spthresh", options.fb.spthresh);
  options.retry_beams.clear();  // bw skips an utterance that does not align
  CheckOptions(options);

  const ModelFiles model = ModelFiles::LoadFiles(paths);
  CheckParameterFiles(model, paths);
  const Dictionary dictionary = LoadMergedDictionary(CorpusInputs{"", "", flags.Require("-dictfn"), flags.Require("-fdictfn"), ""});
  // The part's raw control lines, then the manifest entries (= non-comment control lines) in them.
  const std::size_t n_lines = RawLineCount(ReadFileText(ctlfn));
  ShardRange lines;
  const std::optional<std::uint64_t> nskip = flags.Count("-nskip");
  const std::optional<std::string> runlen_text = flags.Get("-runlen");
  if (nskip && runlen_text) {
    std::optional<std::size_t> runlen;
    if (*runlen_text != "-1") runlen = flags.Count("-runlen");
    lines = BwSkipRunLines(n_lines, *nskip, runlen);
  } else {
    const std::uint64_t npart = flags.Count("-npart").value_or(1);
    const std::uint64_t part = flags.Count("-part").value_or(1);
    if (npart < 1 || part < 1 || part > npart || npart > UINT32_MAX) {
      throw SphinxFlagError("-part " + std::to_string(part) + " -npart " + std::to_string(npart) + ": need 1 <= part <= npart");
    }
    lines = BwPartLines(n_lines, static_cast<std::uint32_t>(part), static_cast<std::uint32_t>(npart));
  }
  // The part's utterances, and how many come before them (its utt> lines are numbered in the whole
  // control file, as before the import kept the part only).
  std::size_t n_before = 0, n_in_part = 0, first_line = 0;
  for (const ControlEntry& control : LoadControlFile(ctlfn)) {
    if (first_line == 0) first_line = control.line_number;
    if (control.line_number <= lines.begin) ++n_before;
    else if (control.line_number <= lines.end) ++n_in_part;
  }
  // Every line of the control file is paired and checked and every feature file must exist, in
  // every part; only the part's own files are read (hashed by the import, checked again as the pass
  // reads them) and only its words are looked up, as bw does: N parts no longer hash the corpus N
  // times. A manifest holds at least one utterance: a part without any keeps the first one, unread
  // by the pass and unchecked (ImportSphinx itself throws when the control file lists none).
  const Manifest manifest = ImportSphinx(ctlfn, lsnfn, cepdir, cepext,
                                         n_in_part > 0 ? ImportLines{lines.begin + 1, lines.end} : ImportLines{first_line, first_line});
  if (n_in_part > 0) CheckWords(manifest, dictionary);
  const std::size_t begin = 0, end = n_in_part > 0 ? manifest.size() : 0;
  std::printf("pstrain bw: control lines %zu..%zu of %zu: %zu utterances\n", lines.begin + 1, lines.end, n_lines, end - begin);
  std::fflush(stdout);

  const CorpusPassResult result = RunCorpusPass(model, manifest, begin, end, cepdir, dictionary, options, &std::cout, n_before);
  std::cout.flush();
  result.accumulators.Write(accumdir);
  const double total = result.total_log_likelihood.value();
  const std::uint64_t frames = result.total_frames;
  std::printf("overall> stats %llu (-0) %e %e\n", static_cast<unsigned long long>(frames), frames ? total / double(frames) : 0.0, total);
  std::printf("outcomes> processed %u skipped %u\n", result.n_processed, result.n_skipped);
  std::printf("Counts saved to %s\n", accumdir.c_str());
  return 0;
}

}  // namespace

int RunBw(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-help" || arg == "--help" || arg == "-h") {
      std::cout << kBwUsage << DescribeFlags(BwFlagTable());
      return 0;
    }
  }
  return RunSphinxTool("bw", [&] { return RunBwChecked(argc, argv); });
}

}  // namespace pstrain::cli
