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
      ("topn", po::value(&flags.topn)->default_value(flags.topn), "densities evaluated per mixture (0 = all, SphinxTrain's CI setting)")
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
  throw UsageError(std::string("--") + option + " must be yes or no, got \"" + value + "\"");
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

std::filesystem::path CorpusRoot(const CorpusInputs& inputs) {
  if (!inputs.corpus_root.empty()) return inputs.corpus_root;
  std::filesystem::path parent = std::filesystem::path(inputs.manifest).parent_path();
  return parent.empty() ? std::filesystem::path(".") : parent;
}

}  // namespace pstrain::cli
