// The option parser shared by the six audit commands (scope, gates, bytes, compare, mutate and
// characterize), on Boost.Program_options:
// `--name=value` and `--name value`, flags (`-h`/`--help`; `--out -h` is a value, not the flag),
// multi-token options (`--only a b`),
// positional arguments and `--`. Options apply in command-line order; a repeated option's last
// value wins. What it refuses it throws as UsageError (report/audit_error.h).
#pragma once

#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/program_options/options_description.hpp>

#include "common/short_flags.h"

namespace pstrain::audit {

class CommandOptions {
 public:
  // Applies an option's values; throws UsageError on values it refuses.
  using Apply = std::function<void(const std::vector<std::string>& values)>;

  // `names` is "long" or "long,s". The short form is a flag only where it is not an option's value:
  // `--out -h` names the file "-h" (so does `--out --help`).
  CommandOptions& Flag(const std::string& names, bool& target);
  // One non-empty value.
  CommandOptions& Value(const std::string& name, std::string& target);
  CommandOptions& Value(const std::string& name, std::optional<std::string>& target);
  CommandOptions& Value(const std::string& name, std::function<void(const std::string&)> set);
  // Zero or more values (`--name a b`, `--name=a b`, up to the next option).
  CommandOptions& Values(const std::string& name, Apply apply);
  // Accepted syntactically (with or without a value), then refused with `message`.
  CommandOptions& Refused(const std::string& name, std::string message);
  // The arguments that are not options; without this they are unknown arguments.
  CommandOptions& Positional(std::vector<std::string>& target);

  // Parses `args`, applying each option; throws UsageError ("unknown argument 'ARG'", "--NAME needs
  // a value", "--NAME needs a non-empty value", an Apply's own, ...).
  void Parse(const std::vector<std::string>& args) const;

 private:
  boost::program_options::options_description desc_;
  std::map<std::string, Apply> apply_;
  std::set<std::string> flags_;
  ShortFlags short_flags_;  // "-h" -> "help"
  std::vector<std::string>* positional_ = nullptr;
};

// Throws UsageError "--NAME must be A, B or C, not 'VALUE'" unless `value` is one of `allowed`.
void RequireOneOf(const std::string& name, const std::string& value, const std::vector<std::string>& allowed);

// Writes a command's rendered report to `out_path` (atomically) or, without one, to `out`. A file
// that cannot be written throws (the trainer's WriteFileAtomic: pstrain::TrainingError naming it):
// "audit COMMAND: ..." and exit 2 in RunReportingErrors (report/command_runner.h).
void WriteReport(const std::string& rendered, const std::optional<std::string>& out_path, std::ostream& out);

}  // namespace pstrain::audit
