// Command-line options shared by `pstrain accumulate` and `pstrain train`: the options that mirror
// bw's keep bw's names; defaults are SphinxTrain's CI-stage script values where those differ from
// bw's built-in ones (documented in docs/cli.md).
#pragma once

#include <boost/program_options.hpp>
#include <charconv>
#include <cstdint>
#include <limits>
#include <ostream>
#include <type_traits>
#include <utility>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/dictionary.h"
#include "manifest/manifest.h"
#include "coordinator/slurm_launcher.h"
#include "shards/shard_worker.h"
#include "estep/corpus_pass.h"

namespace pstrain::cli {

namespace po = boost::program_options;

// The value of an unsigned integer option (--jobs, --topn, --max-passes, ...), at least `Min`.
// Boost's default parser (lexical_cast) reads "-1" for an unsigned type as 4294967295; this type
// accepts decimal digits only and refuses a value below Min or beyond T's range with the option's
// name and the value given ("the argument ('-1') for option '--jobs' is invalid: expected a whole
// number from 1 to 4294967295"), which `pstrain` reports with exit status 2.
template <typename T, T Min = 0>
struct UnsignedArg {
  T value{};
};

template <typename T, T Min>
std::ostream& operator<<(std::ostream& out, const UnsignedArg<T, Min>& arg) {
  return out << arg.value;
}

// The validation error for a bad value: Boost fills in the option's name.
class UnsignedArgError : public po::validation_error {
 public:
  UnsignedArgError(const std::string& token, std::uintmax_t min, std::uintmax_t max)
      : po::validation_error(po::validation_error::invalid_option_value) {
    set_substitute("value", token);
    m_error_template += ": expected a whole number from " + std::to_string(min) + " to " + std::to_string(max);
  }
};

// Boost.Program_options' custom validator for UnsignedArg (found by argument-dependent lookup).
template <typename T, T Min>
void validate(boost::any& store, const std::vector<std::string>& tokens, UnsignedArg<T, Min>*, int) {
  static_assert(std::is_integral_v<T>);
  po::validators::check_first_occurrence(store);
  const std::string& token = po::validators::get_single_string(tokens);
  T value{};
  const bool digits = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (!digits || ec != std::errc() || end != token.data() + token.size() || std::cmp_less(value, Min)) {
    throw UnsignedArgError(token, static_cast<std::uintmax_t>(Min), static_cast<std::uintmax_t>(std::numeric_limits<T>::max()));
  }
  store = UnsignedArg<T, Min>{value};
}

// An unsigned option stored into `*target`, whose current value is the default shown by --help.
template <std::uintmax_t Min = 0, typename T>
po::typed_value<UnsignedArg<T, static_cast<T>(Min)>>* UnsignedOption(T* target) {
  using Arg = UnsignedArg<T, static_cast<T>(Min)>;
  return po::value<Arg>()->default_value(Arg{*target})->notifier([target](const Arg& arg) { *target = arg.value; });
}
// The same for a required option (no default).
template <std::uintmax_t Min = 0, typename T>
po::typed_value<UnsignedArg<T, static_cast<T>(Min)>>* RequiredUnsignedOption(T* target) {
  using Arg = UnsignedArg<T, static_cast<T>(Min)>;
  return po::value<Arg>()->required()->notifier([target](const Arg& arg) { *target = arg.value; });
}

struct CorpusInputs {
  std::string model, manifest, dict, filler, corpus_root;
};

struct AccumulateFlags {
  std::string cmn = "batch";
  std::string varnorm = "no";
  std::uint32_t topn = 0;
  double abeam = 1e-90;
  double bbeam = 1e-10;
  std::string pass2var = "no";
  float varfloor = 1e-4f;
  float mwfloor = 1e-8f;
  float tpfloor = 1e-4f;
  double spthresh = 0.0;
  std::string retry_beams = "1e-150:1e-30,1e-300:1e-100";
  std::string multipron = "no";
};

void AddCorpusInputOptions(po::options_description& desc, CorpusInputs& inputs);
// --slurm-partition, --slurm-opt (repeatable), --retry-failed-shards: for --launcher slurm.
void AddSlurmOptions(po::options_description& desc, SlurmOptions& slurm);
void AddAccumulateOptions(po::options_description& desc, AccumulateFlags& flags);
AccumulateOptions ResolveAccumulateOptions(const AccumulateFlags& flags);
// The inputs of a pass from the command line (corpus root resolved, options checked).
PassInputs ResolvePassInputs(const CorpusInputs& inputs, const AccumulateFlags& flags, const std::string& reduction);

// Parses argv (argv[0] is the command name). Returns false after printing help for --help.
bool ParseCommandLine(int argc, char** argv, const po::options_description& desc, const std::string& usage,
                      po::variables_map& vm);

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
