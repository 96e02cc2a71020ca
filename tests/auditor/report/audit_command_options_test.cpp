// The audit commands' option parser (report/command_options.h): `-h` or `--help` where an option
// takes a value is that value, not a help request, in every command family (run through
// RunReportingErrors as `audit`'s main runs them); alone, it is the help.
#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bytes/bytes_command.h"
#include "characterize/characterize_command.h"
#include "compare/compare_command.h"
#include "gates/gates_command.h"
#include "mutate/mutate_command.h"
#include "report/audit_error.h"
#include "report/command_options.h"
#include "report/command_runner.h"
#include "scope/scope_command.h"

namespace pstrain::audit {
namespace {

struct Parsed {
  std::string error;
  bool help = false;
  std::optional<std::string> out;
  std::vector<std::string> positional;
};

Parsed ParseArgs(const std::vector<std::string>& args) {
  Parsed p;
  try {
    CommandOptions().Flag("help,h", p.help).Value("out", p.out).Positional(p.positional).Parse(args);
  } catch (const UsageError& error) {  // what Parse refuses it throws, as a usage error
    p.error = error.what();
  }
  return p;
}

TEST(AuditCommandOptionsTest, AShortOrLongHelpTakenAsAnOptionsValueIsThatValue) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--out", "-h"}, {"--out=-h"}, {"a", "--out", "-h", "b"}}) {
    const Parsed p = ParseArgs(args);
    EXPECT_EQ(p.error, "") << args.size();
    EXPECT_FALSE(p.help) << args.size();
    EXPECT_EQ(p.out, std::optional<std::string>("-h")) << args.size();
  }
  const Parsed long_help = ParseArgs({"--out", "--help"});
  EXPECT_EQ(long_help.error, "");
  EXPECT_FALSE(long_help.help);
  EXPECT_EQ(long_help.out, std::optional<std::string>("--help"));
}

TEST(AuditCommandOptionsTest, AloneTheyAreTheHelp) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"-h"}, {"--help"}, {"a", "-h"}, {"--out", "x", "-h"}}) {
    const Parsed p = ParseArgs(args);
    EXPECT_EQ(p.error, "") << args.back();
    EXPECT_TRUE(p.help) << args.back();
  }
  EXPECT_EQ(ParseArgs({"--out"}).error, "--out needs a value");
  EXPECT_EQ(ParseArgs({"-x"}).error, "unknown argument '-x'");
  EXPECT_EQ(ParseArgs({"-h=1"}).error, "unknown argument '-h=1'");
}

// What Parse refuses, as the UsageError's message ("accepted" when it throws nothing).
std::string Refusal(const CommandOptions& options, const std::vector<std::string>& args) {
  try {
    options.Parse(args);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(AuditCommandOptionsTest, EveryRefusalIsAUsageErrorWithItsMessage) {
  std::vector<std::string> only;
  std::string out;
  CommandOptions options;
  options.Value("out", out).Refused("old", "--old is gone; use --out").Values("only", [&only](const std::vector<std::string>& values) {
    if (values.empty() || values[0].empty()) throw UsageError("--only needs a kind");
    only = values;
  });
  EXPECT_EQ(Refusal(options, {"--out="}), "--out needs a non-empty value");
  EXPECT_EQ(Refusal(options, {"--out", ""}), "--out needs a non-empty value");
  EXPECT_EQ(Refusal(options, {"--old"}), "--old is gone; use --out");
  EXPECT_EQ(Refusal(options, {"--old=x"}), "--old is gone; use --out");
  EXPECT_EQ(Refusal(options, {"--only"}), "--only needs a kind");
  EXPECT_EQ(Refusal(options, {"--only="}), "--only needs a kind");
  EXPECT_EQ(Refusal(options, {"positional"}), "unknown argument 'positional'");
  EXPECT_EQ(Refusal(options, {"--only", "a", "b", "--out", "f"}), "accepted");
  EXPECT_EQ(only, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(out, "f");
}

// One command run as `audit NAME ARGS`: exit code, standard output, standard error.
struct Run {
  int code = -1;
  std::string out, err;
};

Run RunCommand(const char* name, CommandFunction command, const std::vector<std::string>& args) {
  std::ostringstream out, err;
  Run r;
  r.code = RunReportingErrors(name, command, args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// `-h` as the value of an option that checks its value is refused as that value: a usage error
// naming '-h' (exit 2, no help text); `-h` alone prints the help (exit 0).
void ExpectHelpIsAValue(const char* name, CommandFunction command, const std::vector<std::string>& args, const std::string& refusal,
                        const std::vector<std::string>& help_args = {"-h"}) {
  SCOPED_TRACE(name);
  const Run value = RunCommand(name, command, args);
  EXPECT_EQ(value.code, 2);
  EXPECT_EQ(value.out, "");
  EXPECT_EQ(value.err, "audit " + std::string(name) + ": " + refusal + "\n(see audit " + name + " --help)\n");
  const Run help = RunCommand(name, command, help_args);
  EXPECT_EQ(help.code, 0);
  EXPECT_EQ(help.out.rfind("usage: audit " + std::string(name), 0), 0u) << help.out;
  EXPECT_EQ(help.err, "");
}

TEST(AuditCommandOptionsTest, ScopeTakesHelpAsAValue) {
  ExpectHelpIsAValue("scope", RunScopeCommand, {"--format", "-h"}, "--format must be markdown or json, not '-h'");
}

TEST(AuditCommandOptionsTest, GatesTakesHelpAsAValue) {
  ExpectHelpIsAValue("gates", RunGatesCommand, {"run", "--profile", "-h"}, "--profile must be quick or full, not '-h'", {"run", "-h"});
}

TEST(AuditCommandOptionsTest, BytesTakesHelpAsAValue) {
  ExpectHelpIsAValue("bytes", RunBytesCommand, {"a", "b", "--format", "-h"}, "--format must be text, json or html, not '-h'");
}

TEST(AuditCommandOptionsTest, CompareTakesHelpAsAValue) {
  ExpectHelpIsAValue("compare", RunCompareCommand, {"a", "b", "--format", "-h"}, "--format must be text, json or html, not '-h'");
}

TEST(AuditCommandOptionsTest, MutateTakesHelpAsAValue) {
  ExpectHelpIsAValue("mutate", RunMutateCommand, {"run", "--format", "-h"}, "--format must be text or json, not '-h'");
}

TEST(AuditCommandOptionsTest, CharacterizeTakesHelpAsAValue) {
  ExpectHelpIsAValue("characterize", RunCharacterizeCommand,
                     {"--manifest", "m", "--model", "d", "--dict", "x", "--filler", "y", "--format", "-h"},
                     "--format must be text, json or html, not '-h'");
}

}  // namespace
}  // namespace pstrain::audit
