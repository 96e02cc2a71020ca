// Tests for pstrain's command-line options (trainer/cli/options.h, trainer/cli/options/): -h as an
// option's value, refused yes/no and enum values naming the option, and every default --help
// prints being the options struct's own default.
#include <gtest/gtest.h>

#include <iostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/options/accumulate_options.h"
#include "cli/options/option_values.h"
#include "cli/options/train_options.h"
#include "provenance/fingerprints.h"

namespace pstrain::cli {
namespace {

// Runs ParseCommandLine on `args` (argv[0] is added) and returns its result; `printed` gets what it
// wrote to std::cout.
bool Parse(const po::options_description& desc, std::vector<std::string> args, std::string* printed = nullptr,
           const po::positional_options_description* positional = nullptr) {
  args.insert(args.begin(), "pstrain-test");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  std::ostringstream captured;
  std::streambuf* const saved = std::cout.rdbuf(captured.rdbuf());
  bool result = false;
  try {
    result = ParseCommandLine(static_cast<int>(argv.size()), argv.data(), desc, "usage: test", positional);
  } catch (...) {
    std::cout.rdbuf(saved);
    throw;
  }
  std::cout.rdbuf(saved);
  if (printed != nullptr) *printed = captured.str();
  return result;
}

// The options of `pstrain train`, bound to `inputs`, `out` and `options` (as cmd_train.cpp does).
po::options_description TrainDescription(CorpusInputs& inputs, std::string& out, TrainOptions& options) {
  po::options_description desc("train");
  AddOptions(desc, inputs);
  desc.add_options()("out", po::value(&out)->required(), "output");
  AddOptions(desc, options);
  return desc;
}

// Everything the options of TrainOptions set, as text (CanonicalConfig covers AccumulateOptions).
std::string Describe(const TrainOptions& o) {
  std::string text = CanonicalConfig(o.inputs.options, o.inputs.reduction, "-");
  text += "min_passes=" + std::to_string(o.stop.min_passes) + "\nmax_passes=" + std::to_string(o.stop.max_passes) +
          "\nconvergence=" + ShortestText(o.stop.convergence) + "\njobs=" + std::to_string(o.launch.jobs) +
          "\nlauncher=" + LauncherKindName(o.launch.launcher) + "\nslurm_partition=" + o.launch.slurm.partition +
          "\nslurm_args=" + std::to_string(o.launch.slurm.sbatch_args.size()) +
          "\nretry_failed=" + (o.launch.slurm.retry_failed ? "yes" : "no") + "\n";
  return text;
}

const std::vector<std::string> kRequired = {"--model", "m", "--manifest", "f", "--dict", "d", "--filler", "g", "--out", "o"};

TEST(CliOptionsTest, DashHGivenAsAnOptionsValueIsTheValue) {
  for (const std::string value : {"-h", "--help"}) {
    SCOPED_TRACE(value);
    CorpusInputs inputs;
    std::string out;
    TrainOptions options;
    const po::options_description desc = TrainDescription(inputs, out, options);
    std::string printed;
    EXPECT_TRUE(Parse(desc, {"--model", "m", "--manifest", "f", "--dict", "d", "--filler", "g", "--out", value}, &printed));
    EXPECT_EQ(out, value);
    EXPECT_EQ(printed, "") << "help was printed for an option's value";
  }
  // --name=-h as well, and for an option of an options struct.
  CorpusInputs inputs;
  std::string out;
  TrainOptions options;
  const po::options_description desc = TrainDescription(inputs, out, options);
  EXPECT_TRUE(Parse(desc, {"--model", "-h", "--manifest", "f", "--dict", "d", "--filler", "g", "--out=-h", "--slurm-partition", "-h"}));
  EXPECT_EQ(inputs.model, "-h");
  EXPECT_EQ(out, "-h");
  EXPECT_EQ(options.launch.slurm.partition, "-h");
}

TEST(CliOptionsTest, DashHAndDashDashHelpAsOptionsPrintTheHelp) {
  const std::vector<std::vector<std::string>> cases = {
      {"-h"}, {"--help"}, {"--out", "x", "-h"}, {"-h", "--out", "x"}, {"--jobs", "-1", "--help"}, {"--no-such-option", "-h"}};
  for (const std::vector<std::string>& args : cases) {
    SCOPED_TRACE(args.front() + " ... (" + std::to_string(args.size()) + " arguments)");
    CorpusInputs inputs;
    std::string out;
    TrainOptions options;
    const po::options_description desc = TrainDescription(inputs, out, options);
    std::string printed;
    EXPECT_FALSE(Parse(desc, args, &printed));
    EXPECT_NE(printed.find("usage: test"), std::string::npos) << printed;
    EXPECT_NE(printed.find("--abeam"), std::string::npos) << printed;
  }
  // With a positional argument (`pstrain manifest check MANIFEST`): "-h" as the only argument is help.
  std::string manifest;
  po::options_description desc("check");
  desc.add_options()("manifest", po::value(&manifest)->required(), "manifest");
  po::positional_options_description positional;
  positional.add("manifest", 1);
  std::string printed;
  EXPECT_FALSE(Parse(desc, {"-h"}, &printed, &positional));
  EXPECT_NE(printed.find("usage: test"), std::string::npos);
  EXPECT_TRUE(Parse(desc, {"--manifest", "-h"}, nullptr, &positional));
  EXPECT_EQ(manifest, "-h");
}

TEST(CliOptionsTest, RefusedYesNoAndEnumValuesNameTheOptionAndTheValue) {
  struct Case {
    std::string option, value, reason;
  };
  const Case cases[] = {
      {"--varnorm", "maybe", "expected yes or no"},
      {"--2passvar", "1", "expected yes or no"},
      {"--multipron", "sure", "expected yes or no"},
      {"--cmn", "live", "live CMN carries a running mean"},
      {"--cmn", "prior", "is invalid"},
      {"--cmn", "Batch", "expected batch, current or none"},
      {"--reduction", "exact32", "expected exact or float32"},
      {"--launcher", "bogus", "available: local, slurm"},
      {"--retry-beams", "1e-150", "is not ABEAM:BBEAM"},
      {"--jobs", "-1", "expected a whole number from 1 to 4294967295"},
      {"--topn", "-4", "expected a whole number from 0 to 4294967295"},
      {"--max-passes", "0", "expected a whole number from 1 to 4294967295"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.option + " " + c.value);
    CorpusInputs inputs;
    std::string out;
    TrainOptions options;
    const po::options_description desc = TrainDescription(inputs, out, options);
    std::vector<std::string> args = kRequired;
    args.push_back(c.option + "=" + c.value);
    try {
      Parse(desc, args);
      ADD_FAILURE() << "accepted";
    } catch (const UsageError& error) {  // main.cpp: exit status 2
      const std::string message = error.what();
      EXPECT_NE(message.find("the argument ('" + c.value + "') for option '" + c.option + "' is invalid"), std::string::npos) << message;
      EXPECT_NE(message.find(c.reason), std::string::npos) << message;
    }
  }
}

TEST(CliOptionsTest, YesNoAndEnumValuesReachTheStructs) {
  CorpusInputs inputs;
  std::string out;
  TrainOptions options;
  const po::options_description desc = TrainDescription(inputs, out, options);
  std::vector<std::string> args = kRequired;
  for (const char* arg : {"--varnorm", "yes", "--2passvar", "yes", "--multipron", "--cmn", "current", "--reduction", "float32",
                          "--launcher", "slurm", "--retry-beams", "none", "--jobs", "3", "--abeam", "1e-50"}) {
    args.push_back(arg);
  }
  ASSERT_TRUE(Parse(desc, args));
  EXPECT_TRUE(options.inputs.options.features.varnorm);
  EXPECT_TRUE(options.inputs.options.fb.pass2var);
  EXPECT_TRUE(options.inputs.options.multipron);  // given alone: yes
  EXPECT_EQ(options.inputs.options.features.cmn, CmnMode::kBatch);
  EXPECT_EQ(options.inputs.reduction, ReductionMode::kFloat32);
  EXPECT_EQ(options.launch.launcher, LauncherKind::kSlurm);
  EXPECT_TRUE(options.inputs.options.retry_beams.empty());
  EXPECT_EQ(options.launch.jobs, 3u);
  EXPECT_EQ(options.inputs.options.fb.beams.abeam, 1e-50);
  EXPECT_NE(Describe(options), Describe(TrainOptions{}));
}

// The default of every option is the struct's member initializer: parsing no option leaves a
// default-constructed struct, and each default --help prints, given back as the option's value,
// gives that struct again (a printed default that differs from the struct's would change it).
TEST(CliOptionsTest, EveryDefaultHelpPrintsIsTheStructsDefault) {
  const std::string defaults = Describe(TrainOptions{});
  {
    CorpusInputs inputs;
    std::string out;
    TrainOptions options;
    const po::options_description desc = TrainDescription(inputs, out, options);
    ASSERT_TRUE(Parse(desc, kRequired));
    EXPECT_EQ(Describe(options), defaults);
  }
  CorpusInputs probe_inputs;
  std::string probe_out;
  TrainOptions probe;
  const po::options_description probe_desc = TrainDescription(probe_inputs, probe_out, probe);
  std::ostringstream help;
  help << probe_desc;
  const std::regex printed_default(R"(\(=([^()]*)\)$)");
  std::set<std::string> with_default;
  for (const auto& option : probe_desc.options()) {
    const std::string name = option->long_name();
    const std::string parameter = option->format_parameter();
    std::smatch match;
    if (!std::regex_search(parameter, match, printed_default)) continue;
    SCOPED_TRACE("--" + name + " " + parameter);
    with_default.insert(name);
    EXPECT_NE(help.str().find("--" + name + " " + parameter), std::string::npos) << "--help does not print " << parameter;
    CorpusInputs inputs;
    std::string out;
    TrainOptions options;
    const po::options_description desc = TrainDescription(inputs, out, options);
    std::vector<std::string> args = kRequired;
    args.push_back("--" + name + "=" + match[1].str());
    ASSERT_TRUE(Parse(desc, args));
    EXPECT_EQ(Describe(options), defaults);
  }
  // Every option with a value that is not a path or a Slurm pass-through shows its default.
  for (const char* name : {"min-passes", "max-passes", "convergence", "jobs", "launcher", "reduction", "cmn", "varnorm", "topn",
                           "varfloor", "mwfloor", "tpfloor", "abeam", "bbeam", "2passvar", "spthresh", "retry-beams", "multipron"}) {
    EXPECT_EQ(with_default.count(name), 1u) << "--" << name << " shows no default";
  }
}

TEST(CliOptionsTest, CheckOptionsRefusesOutOfRangeBeamsAndFloors) {
  AccumulateOptions options;
  EXPECT_NO_THROW(CheckOptions(options));
  options.fb.beams.abeam = 0.0;
  EXPECT_THROW(CheckOptions(options), UsageError);
  options = AccumulateOptions{};
  options.fb.beams.bbeam = 2.0;
  EXPECT_THROW(CheckOptions(options), UsageError);
  options = AccumulateOptions{};
  options.model.varfloor = 0.0f;
  EXPECT_THROW(CheckOptions(options), UsageError);
  options = AccumulateOptions{};
  options.features.cmn = CmnMode::kNone;
  options.features.varnorm = true;
  EXPECT_THROW(CheckOptions(options), UsageError);
}

}  // namespace
}  // namespace pstrain::cli
