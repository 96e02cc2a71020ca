// Short flags ("-h" for --help) on a Boost.Program_options command line, for pstrain's commands
// (cli/options.cpp) and the audit commands (auditor/report/command_options.cpp).
#pragma once

#include <initializer_list>
#include <map>
#include <string>
#include <utility>

namespace pstrain {

// An extra parser for boost::program_options::command_line_parser::extra_parser: a token that is
// one of the registered short forms is that long option, with no value; any other token is left to
// Boost (an empty pair). Boost hands an extra parser only the tokens that no option takes as its
// value, so `--out -h` keeps "-h" as the value of --out. The type keeps Boost out of this layer:
// the parser is a plain function of the token.
class ShortFlags {
 public:
  ShortFlags() = default;
  // short form -> long name, e.g. {{"-h", "help"}}.
  ShortFlags(std::initializer_list<std::pair<const std::string, std::string>> long_names) : long_names_(long_names) {}

  void Add(const std::string& short_form, const std::string& long_name) { long_names_[short_form] = long_name; }

  std::pair<std::string, std::string> operator()(const std::string& token) const;

 private:
  std::map<std::string, std::string> long_names_;
};

}  // namespace pstrain
