// What the `pstrain` commands' command lines share: the corpus inputs, parsing with --help, and
// the checks that keep an output apart from the inputs. The options of each options struct are
// registered next to it in cli/options/ (one file per struct; docs/architecture.md).
#pragma once

#include <boost/program_options.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/dictionary.h"
#include "shards/shard_worker.h"

namespace pstrain::cli {

namespace po = boost::program_options;

struct CorpusInputs {
  std::string model, manifest, dict, filler, corpus_root;
};

// --model, --manifest, --dict, --filler (required) and --corpus-root.
void AddOptions(po::options_description& desc, CorpusInputs& inputs);
// Fills the paths of `pass_inputs` from `inputs` (corpus root resolved) and checks its options
// (CheckOptions, cli/options/accumulate_options.h); the rest of `pass_inputs` is its options'.
void ResolvePassInputs(const CorpusInputs& inputs, PassInputs& pass_inputs);

// Parses argv (argv[0] is the command name) into `desc`'s targets. Returns false after printing
// `usage` and the options for --help or -h given as an option (not as an option's value: `--out -h`
// names the directory "-h"). A bad option or value is a UsageError (exit 2) naming the option.
bool ParseCommandLine(int argc, char** argv, const po::options_description& desc, const std::string& usage,
                      const po::positional_options_description* positional = nullptr);

// Loads the dictionary and filler dictionary and merges them (main first, as bw does).
Dictionary LoadMergedDictionary(const CorpusInputs& inputs);
// The corpus root: --corpus-root when given, else the directory that holds the manifest.
std::filesystem::path CorpusRoot(const CorpusInputs& inputs);

// How an output path relates to an input path once both are resolved (std::filesystem's
// weakly_canonical: symbolic links and ".." resolved, missing tails kept).
enum class PathOverlap { kNone, kSame, kOutputContainsInput, kOutputInsideInput };
PathOverlap ResolvedOverlap(const std::filesystem::path& output, const std::filesystem::path& input);

// Refuses (UsageError, exit 2) an empty `out` ("--out" writes into the current directory).
void RequireOutput(const std::string& out_option, const std::string& out);
// Refuses (UsageError, exit 2) an output that is, contains or lies inside an input directory: the
// output would overwrite or remove it. `what` names the input ("the input model directory").
void RefuseOutputOverlapping(const std::string& out_option, const std::string& out, const std::string& what,
                             const std::string& input_option, const std::string& input);
// Refuses an output that is or contains an input file or directory (`what` names it), which
// replacing the output directory as a whole would remove.
void RefuseOutputContaining(const std::string& out_option, const std::string& out, const std::string& what,
                            const std::string& input_option, const std::string& input);
// The checks of `pstrain accumulate --out` and `pstrain train --out` (`out_subdirs`: the
// directories under `out` that the command replaces, empty when it replaces `out` itself):
// not empty, apart from the model, and no other input inside what is replaced.
void CheckOutputApartFromInputs(const std::string& out, const CorpusInputs& inputs, const std::vector<std::string>& out_subdirs);

}  // namespace pstrain::cli
