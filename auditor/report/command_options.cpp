// The audit commands' shared option parser (CommandOptions) over Boost.Program_options, and WriteReport.
#include "report/command_options.h"

#include <ostream>

#include "common/file_io.h"
#include "report/audit_error.h"

#include <boost/program_options/errors.hpp>
#include <boost/program_options/parsers.hpp>
#include <boost/program_options/value_semantic.hpp>

namespace pstrain::audit {

namespace po = boost::program_options;

namespace {

std::string LongName(const std::string& names) { return names.substr(0, names.find(',')); }

}  // namespace

CommandOptions& CommandOptions::Flag(const std::string& names, bool& target) {
  // Only the long name is Boost's: a short one (`-h`) is read by Parse's extra parser, which Boost
  // consults only for a token that no option takes as its value.
  desc_.add_options()(LongName(names).c_str(), po::bool_switch());
  if (const std::size_t comma = names.find(','); comma != std::string::npos) {
    std::string token = names.substr(comma);  // ",h" -> "-h"
    token[0] = '-';
    short_flags_.Add(token, LongName(names));
  }
  flags_.insert(LongName(names));
  apply_[LongName(names)] = [&target](const std::vector<std::string>&) { target = true; };
  return *this;
}

CommandOptions& CommandOptions::Value(const std::string& name, std::string& target) {
  return Value(name, [&target](const std::string& value) { target = value; });
}

CommandOptions& CommandOptions::Value(const std::string& name, std::optional<std::string>& target) {
  return Value(name, [&target](const std::string& value) { target = value; });
}

CommandOptions& CommandOptions::Value(const std::string& name, std::function<void(const std::string&)> set) {
  desc_.add_options()(name.c_str(), po::value<std::string>());
  apply_[name] = [name, set = std::move(set)](const std::vector<std::string>& values) {
    if (values.at(0).empty()) throw UsageError("--" + name + " needs a non-empty value");
    set(values[0]);
  };
  return *this;
}

CommandOptions& CommandOptions::Values(const std::string& name, Apply apply) {
  desc_.add_options()(name.c_str(), po::value<std::vector<std::string>>()->multitoken()->zero_tokens());
  apply_[name] = std::move(apply);
  return *this;
}

CommandOptions& CommandOptions::Refused(const std::string& name, std::string message) {
  desc_.add_options()(name.c_str(), po::value<std::string>()->implicit_value(""));
  apply_[name] = [message = std::move(message)](const std::vector<std::string>&) { throw UsageError(message); };
  return *this;
}

CommandOptions& CommandOptions::Positional(std::vector<std::string>& target) {
  positional_ = &target;
  return *this;
}

void CommandOptions::Parse(const std::vector<std::string>& args) const {
  namespace style = po::command_line_style;
  po::parsed_options parsed(&desc_);
  try {
    // No guessing of abbreviations and no sticky short options: every option is spelled out.
    // A short flag given where an option takes a value (`--out -h`) is that value (ShortFlags,
    // shared with pstrain's own command lines).
    parsed = po::command_line_parser(args)
                 .options(desc_)
                 .extra_parser(short_flags_)
                 .style(style::allow_long | style::long_allow_adjacent | style::long_allow_next | style::allow_short |
                        style::allow_dash_for_short | style::short_allow_next)
                 .allow_unregistered()
                 .run();
  } catch (const po::invalid_command_line_syntax& e) {
    if (e.kind() == po::invalid_command_line_syntax::missing_parameter) throw UsageError(e.get_option_name() + " needs a value");
    const std::string name = e.get_option_name();
    const auto apply = apply_.find(name.substr(name.find_first_not_of('-')));
    if (e.kind() == po::invalid_command_line_syntax::empty_adjacent_parameter && apply != apply_.end() &&
        flags_.count(apply->first) == 0) {
      // --name=: the option's own verdict on an empty value (it throws), else this one.
      apply->second({""});
      throw UsageError(name + " needs a non-empty value");
    }
    if (e.kind() == po::invalid_command_line_syntax::empty_adjacent_parameter ||
        e.kind() == po::invalid_command_line_syntax::extra_parameter) {  // a flag given a value: --help=x
      for (const std::string& arg : args) {
        if (arg.rfind(name + "=", 0) == 0) throw UsageError("unknown argument '" + arg + "'");
      }
    }
    throw UsageError(e.what());
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  for (const po::option& option : parsed.options) {
    if (option.string_key.empty()) {  // an argument that is not an option
      if (positional_ == nullptr) throw UsageError("unknown argument '" + option.original_tokens.at(0) + "'");
      positional_->push_back(option.value.at(0));
      continue;
    }
    const auto apply = apply_.find(option.string_key);
    if (option.unregistered || apply == apply_.end()) {
      throw UsageError("unknown argument '" + option.original_tokens.at(0) + "'");
    }
    apply->second(option.value);
  }
}

void RequireOneOf(const std::string& name, const std::string& value, const std::vector<std::string>& allowed) {
  for (const std::string& choice : allowed) {
    if (value == choice) return;
  }
  std::string choices;
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    choices += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
  }
  throw UsageError("--" + name + " must be " + choices + ", not '" + value + "'");
}

void WriteReport(const std::string& rendered, const std::optional<std::string>& out_path, std::ostream& out) {
  if (out_path) {
    WriteFileAtomic(*out_path, rendered);
  } else {
    out << rendered;
  }
}

}  // namespace pstrain::audit
