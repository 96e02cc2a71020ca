// The validators and the help text of pstrain's option value types (option_values.h).
#include "cli/options/option_values.h"

#include <array>
#include <string_view>

namespace pstrain::cli {

BadValueError::BadValueError(const std::string& token, const std::string& expected)
    : po::validation_error(po::validation_error::invalid_option_value) {
  set_substitute("value", token);
  m_error_template += ": " + expected;
}

std::ostream& operator<<(std::ostream& out, const YesNo& arg) { return out << (arg.value ? "yes" : "no"); }

void validate(boost::any& store, const std::vector<std::string>& tokens, YesNo*, int) {
  po::validators::check_first_occurrence(store);
  const std::string& token = po::validators::get_single_string(tokens);
  if (token == "yes") store = YesNo{true};
  else if (token == "no") store = YesNo{false};
  else throw BadValueError(token, "expected yes or no");
}

CmnMode ParseEnumValue(const std::string& text, CmnMode*) { return ParseCmnMode(text); }
ReductionMode ParseEnumValue(const std::string& text, ReductionMode*) { return ParseReductionMode(text); }
LauncherKind ParseEnumValue(const std::string& text, LauncherKind*) { return ParseLauncherKind(text); }
const char* EnumValueName(CmnMode value) { return value == CmnMode::kBatch ? "batch" : "none"; }
const char* EnumValueName(ReductionMode value) { return ReductionModeName(value); }
const char* EnumValueName(LauncherKind value) { return LauncherKindName(value); }

std::string EnumRefusal(const std::string& message) {
  // The layers' messages start with the option ("--cmn: unknown value ...", "--cmn live is not
  // supported: ..."); Boost's template names the option and the value already.
  std::string_view text = message;
  if (text.rfind("--", 0) == 0) {
    const std::size_t colon = text.find(": ");
    if (colon != std::string_view::npos) text.remove_prefix(colon + 2);
  }
  return std::string(text);
}

std::ostream& operator<<(std::ostream& out, const RetryBeams& arg) { return out << FormatRetryBeams(arg.value); }

void validate(boost::any& store, const std::vector<std::string>& tokens, RetryBeams*, int) {
  po::validators::check_first_occurrence(store);
  const std::string& token = po::validators::get_single_string(tokens);
  try {
    store = RetryBeams{ParseRetryBeams(token)};
  } catch (const InputError& error) {
    throw BadValueError(token, EnumRefusal(error.what()));
  }
}

namespace {

template <typename T>
std::string Shortest(T value) {
  std::array<char, 64> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return ec == std::errc() ? std::string(buffer.data(), end) : std::to_string(value);
}

}  // namespace

std::string ShortestText(double value) { return Shortest(value); }
std::string ShortestText(float value) { return Shortest(value); }

po::typed_value<YesNo>* YesNoOption(bool* target) {
  return po::value<YesNo>()->default_value(YesNo{*target})->notifier([target](const YesNo& arg) { *target = arg.value; });
}

po::typed_value<RetryBeams>* RetryBeamsOption(std::vector<BeamOptions>* target) {
  return po::value<RetryBeams>()->default_value(RetryBeams{*target})->notifier([target](const RetryBeams& arg) { *target = arg.value; });
}

}  // namespace pstrain::cli
