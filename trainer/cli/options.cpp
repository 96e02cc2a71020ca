// The shared pieces of the pstrain commands' command lines: corpus inputs, parsing with --help, output checks.
#include "cli/options.h"

#include <iostream>

#include "cli/commands.h"
#include "cli/options/accumulate_options.h"
#include "common/error.h"
#include "common/short_flags.h"
#include "coordinator/worker_flags.h"

namespace pstrain::cli {

void AddOptions(po::options_description& desc, CorpusInputs& inputs) {
  desc.add_options()
      (worker_flag::kModel, po::value(&inputs.model)->required(), "input model directory (mdef, means, variances, mixture_weights, transition_matrices, feat.params, noisedict)")
      (worker_flag::kManifest, po::value(&inputs.manifest)->required(), "canonical manifest (see `pstrain manifest import`)")
      (worker_flag::kDict, po::value(&inputs.dict)->required(), "pronunciation dictionary")
      (worker_flag::kFiller, po::value(&inputs.filler)->required(), "filler dictionary (e.g. <s> SIL)")
      (worker_flag::kCorpusRoot, po::value(&inputs.corpus_root), "directory the manifest's feature paths are relative to (default: the manifest's directory)");
}

void ResolvePassInputs(const CorpusInputs& inputs, PassInputs& pass_inputs) {
  pass_inputs.model_dir = inputs.model;
  pass_inputs.manifest_path = inputs.manifest;
  pass_inputs.corpus_root = CorpusRoot(inputs).string();
  pass_inputs.dict = inputs.dict;
  pass_inputs.filler = inputs.filler;
  CheckOptions(pass_inputs.options);
}

bool ParseCommandLine(int argc, char** argv, const po::options_description& desc, const std::string& usage,
                      const po::positional_options_description* positional) {
  po::options_description with_help;
  with_help.add(desc).add_options()("help", "print this help (also -h)");
  auto parser = [&] {
    po::command_line_parser command_line(argc, argv);
    // "-h" is --help where it is not an option's value (`--out -h` names the directory "-h").
    command_line.options(with_help).extra_parser(ShortFlags{{"-h", "help"}});
    if (positional != nullptr) command_line.positional(*positional);
    return command_line;
  };
  po::variables_map vm;
  try {
    // First only the tokens: --help wins over an unknown option or a value that would be refused.
    const po::parsed_options tokens = parser().allow_unregistered().run();
    for (const po::option& option : tokens.options) {
      if (option.string_key == "help" && !option.unregistered) {
        std::cout << usage << "\n" << with_help << "\n";
        return false;
      }
    }
    po::store(parser().run(), vm);
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
