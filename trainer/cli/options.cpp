// The shared pieces of the pstrain commands' command lines: corpus inputs, parsing with --help, output checks.
#include "cli/options.h"

#include <iostream>

#include "cli/commands.h"
#include "common/error.h"

namespace pstrain::cli {

void AddCorpusInputOptions(po::options_description& desc, CorpusInputs& inputs) {
  desc.add_options()
      ("model", po::value(&inputs.model)->required(), "input model directory (mdef, means, variances, mixture_weights, transition_matrices, feat.params, noisedict)")
      ("manifest", po::value(&inputs.manifest)->required(), "canonical manifest (see `pstrain manifest import`)")
      ("dict", po::value(&inputs.dict)->required(), "pronunciation dictionary")
      ("filler", po::value(&inputs.filler)->required(), "filler dictionary (e.g. <s> SIL)")
      ("corpus-root", po::value(&inputs.corpus_root), "directory the manifest's feature paths are relative to (default: the manifest's directory)");
}

void AddAccumulateOptions(po::options_description& desc, AccumulateFlags& flags) {
  desc.add_options()
      ("cmn", po::value(&flags.cmn)->default_value(flags.cmn), "cepstral mean normalization: batch (= current) or none. live is refused (order-dependent)")
      ("varnorm", po::value(&flags.varnorm)->default_value(flags.varnorm), "variance normalization with batch CMN: yes|no")
      ("topn", UnsignedOption(&flags.topn), "densities evaluated per mixture (0 = all, SphinxTrain's CI setting)")
      ("abeam", po::value(&flags.abeam)->default_value(flags.abeam, "1e-90"), "forward (alpha) beam, relative to the best state")
      ("bbeam", po::value(&flags.bbeam)->default_value(flags.bbeam, "1e-10"), "backward (beta) beam, relative to the final alpha")
      ("2passvar", po::value(&flags.pass2var)->default_value(flags.pass2var), "accumulate variances around the input means: yes|no")
      ("varfloor", po::value(&flags.varfloor)->default_value(flags.varfloor, "1e-4"), "variance floor applied when loading the model")
      ("mwfloor", po::value(&flags.mwfloor)->default_value(flags.mwfloor, "1e-8"), "mixture-weight floor applied when loading the model")
      ("tpfloor", po::value(&flags.tpfloor)->default_value(flags.tpfloor, "1e-4"), "floor of non-zero transition probabilities when loading")
      ("spthresh", po::value(&flags.spthresh)->default_value(flags.spthresh), "state posteriors at or below this add no counts")
      ("retry-beams", po::value(&flags.retry_beams)->default_value(flags.retry_beams),
       "after a failed alignment, retry with these ABEAM:BBEAM pairs in order (comma-separated), or none")
      ("multipron", po::value(&flags.multipron)->default_value(flags.multipron)->implicit_value("yes"),
       "train over every dictionary pronunciation of each word (WORD, WORD(2), ...): yes|no (docs/multipron.md)");
}

namespace {

bool ParseYesNo(const std::string& value, const char* option) {
  if (value == "yes") return true;
  if (value == "no") return false;
  throw UsageError(std::string("--") + option + " must be yes or no, got " + Quoted(value));
}

}  // namespace

AccumulateOptions ResolveAccumulateOptions(const AccumulateFlags& flags) {
  AccumulateOptions options;
  options.features.cmn = ParseCmnMode(flags.cmn);
  options.features.varnorm = ParseYesNo(flags.varnorm, "varnorm");
  if (options.features.varnorm && options.features.cmn == CmnMode::kNone) throw UsageError("--varnorm yes needs --cmn batch");
  options.model.topn = flags.topn;
  options.model.varfloor = flags.varfloor;
  options.model.mwfloor = flags.mwfloor;
  options.model.tpfloor = flags.tpfloor;
  if (!(flags.abeam > 0 && flags.abeam <= 1)) throw UsageError("--abeam must be in (0, 1]");
  if (!(flags.bbeam > 0 && flags.bbeam <= 1)) throw UsageError("--bbeam must be in (0, 1]");
  if (!(flags.varfloor > 0)) throw UsageError("--varfloor must be positive");
  options.fb.beams = {flags.abeam, flags.bbeam};
  options.fb.spthresh = flags.spthresh;
  options.fb.pass2var = ParseYesNo(flags.pass2var, "2passvar");
  options.retry_beams = ParseRetryBeams(flags.retry_beams);
  options.multipron = ParseYesNo(flags.multipron, "multipron");
  return options;
}

PassInputs ResolvePassInputs(const CorpusInputs& inputs, const AccumulateFlags& flags, const std::string& reduction) {
  PassInputs pass_inputs;
  pass_inputs.model_dir = inputs.model;
  pass_inputs.manifest_path = inputs.manifest;
  pass_inputs.corpus_root = CorpusRoot(inputs).string();
  pass_inputs.dict = inputs.dict;
  pass_inputs.filler = inputs.filler;
  pass_inputs.options = ResolveAccumulateOptions(flags);
  pass_inputs.reduction = ParseReductionMode(reduction);
  return pass_inputs;
}

void AddSlurmOptions(po::options_description& desc, SlurmOptions& slurm) {
  desc.add_options()
      ("slurm-partition", po::value(&slurm.partition), "--launcher slurm: the partition to submit to (default: the cluster's)")
      ("slurm-opt", po::value(&slurm.sbatch_args)->composing(),
       "--launcher slurm: one more sbatch argument, e.g. --slurm-opt=--account=A --slurm-opt=--time=30 (repeatable)")
      ("retry-failed-shards", po::bool_switch(&slurm.retry_failed),
       "--launcher slurm: resubmit the failed tasks of a pass once before failing it (recorded in passes/NNN/slurm/job.json)");
}

bool ParseCommandLine(int argc, char** argv, const po::options_description& desc, const std::string& usage,
                      po::variables_map& vm) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::cout << usage << "\n" << desc << "\n";
      return false;
    }
  }
  try {
    po::store(po::command_line_parser(argc, argv).options(desc).run(), vm);
    po::notify(vm);
  } catch (const po::error& error) {
    throw UsageError(error.what());
  }
  return true;
}

Dictionary LoadMergedDictionary(const CorpusInputs& inputs) {
  Dictionary dictionary = Dictionary::Load(inputs.dict, false);
  dictionary.Merge(Dictionary::Load(inputs.filler, true));
  return dictionary;
}

namespace {

namespace fs = std::filesystem;

fs::path Resolved(const fs::path& path) {
  std::error_code ec;
  fs::path resolved = fs::weakly_canonical(fs::absolute(path), ec);
  if (ec) resolved = fs::absolute(path);
  resolved = resolved.lexically_normal();
  if (!resolved.has_filename() && resolved.has_relative_path()) resolved = resolved.parent_path();  // "dir/" -> "dir"
  return resolved;
}

// Whether `inner` is `outer` or lies below it (both resolved).
bool IsWithin(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

}  // namespace

PathOverlap ResolvedOverlap(const fs::path& output, const fs::path& input) {
  const fs::path out = Resolved(output), in = Resolved(input);
  const bool out_in_in = IsWithin(out, in), in_in_out = IsWithin(in, out);
  if (out_in_in && in_in_out) return PathOverlap::kSame;
  if (in_in_out) return PathOverlap::kOutputContainsInput;
  if (out_in_in) return PathOverlap::kOutputInsideInput;
  return PathOverlap::kNone;
}

void RequireOutput(const std::string& out_option, const std::string& out) {
  if (out.empty()) throw UsageError(out_option + " is empty (it would write into the current directory); name an output directory");
}

namespace {

// `output_label` and `input_label` name the two paths in the message ("--out D", "the input model
// directory --model M").
void RefuseOverlap(const std::string& output_label, const fs::path& output, const std::string& input_label, const fs::path& input,
                   bool inside_too) {
  const PathOverlap overlap = ResolvedOverlap(output, input);
  if (overlap == PathOverlap::kNone || (overlap == PathOverlap::kOutputInsideInput && !inside_too)) return;
  const std::string resolved_out = Resolved(output).string(), resolved_in = Resolved(input).string();
  std::string relation, detail;
  switch (overlap) {
    case PathOverlap::kSame: relation = "is"; detail = "both are " + resolved_in; break;
    case PathOverlap::kOutputContainsInput: relation = "contains"; detail = resolved_out + " contains " + resolved_in; break;
    case PathOverlap::kOutputInsideInput: relation = "lies inside"; detail = resolved_out + " is inside " + resolved_in; break;
    case PathOverlap::kNone: return;
  }
  throw UsageError(Printable(output_label) + " " + relation + " " + Printable(input_label) + " (" + Printable(detail) +
                   "): writing the output there would overwrite or remove the input; choose an output apart from the inputs");
}

}  // namespace

void RefuseOutputOverlapping(const std::string& out_option, const std::string& out, const std::string& what,
                             const std::string& input_option, const std::string& input) {
  RefuseOverlap(out_option + " " + out, out, what + " " + input_option + " " + input, input, true);
}

void RefuseOutputContaining(const std::string& out_option, const std::string& out, const std::string& what,
                            const std::string& input_option, const std::string& input) {
  RefuseOverlap(out_option + " " + out, out, what + " " + input_option + " " + input, input, false);
}

void CheckOutputApartFromInputs(const std::string& out, const CorpusInputs& inputs, const std::vector<std::string>& out_subdirs) {
  RequireOutput("--out", out);
  RefuseOutputOverlapping("--out", out, "the input model directory", "--model", inputs.model);
  // The other inputs are only read: they are in danger when they lie in a directory that is
  // replaced (or removed) as a whole.
  struct Input {
    std::string label;
    fs::path path;
  };
  std::vector<Input> others = {{"the manifest --manifest " + inputs.manifest, inputs.manifest},
                               {"the dictionary --dict " + inputs.dict, inputs.dict},
                               {"the filler dictionary --filler " + inputs.filler, inputs.filler}};
  if (!inputs.corpus_root.empty()) others.push_back({"the corpus root --corpus-root " + inputs.corpus_root, inputs.corpus_root});
  else others.push_back({"the corpus root " + CorpusRoot(inputs).string() + " (the manifest's directory)", CorpusRoot(inputs)});
  for (const Input& input : others) {
    if (input.path.empty()) continue;
    if (out_subdirs.empty()) {
      RefuseOverlap("--out " + out, out, input.label, input.path, false);
      continue;
    }
    for (const std::string& sub : out_subdirs) {
      const fs::path replaced = fs::path(out) / sub;
      RefuseOverlap(replaced.string() + " (replaced by --out " + out + ")", replaced, input.label, input.path, false);
    }
  }
}

std::filesystem::path CorpusRoot(const CorpusInputs& inputs) {
  if (!inputs.corpus_root.empty()) return inputs.corpus_root;
  std::filesystem::path parent = std::filesystem::path(inputs.manifest).parent_path();
  return parent.empty() ? std::filesystem::path(".") : parent;
}

}  // namespace pstrain::cli
