// Value types for pstrain's command-line options, each with its Boost.Program_options validator:
// unsigned whole numbers, yes/no, enums (--cmn, --reduction, --launcher), beam lists, and the
// shortest text of a floating-point default.
#pragma once

#include <boost/program_options.hpp>
#include <charconv>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/error.h"
#include "coordinator/pass_runner.h"
#include "estep/corpus_pass.h"
#include "features/features.h"
#include "provenance/fingerprints.h"

namespace pstrain::cli {

namespace po = boost::program_options;

// The validation error for a bad value: Boost fills in the option's name and the value given
// ("the argument ('maybe') for option '--varnorm' is invalid: expected yes or no"); `pstrain`
// reports it with exit status 2.
class BadValueError : public po::validation_error {
 public:
  BadValueError(const std::string& token, const std::string& expected);
};

// The value of an unsigned integer option (--jobs, --topn, --max-passes, ...), at least `Min`.
// Boost's default parser (lexical_cast) reads "-1" for an unsigned type as 4294967295; this type
// accepts decimal digits only and refuses a value below Min or beyond T's range ("... is invalid:
// expected a whole number from 1 to 4294967295").
template <typename T, T Min = 0>
struct UnsignedArg {
  T value{};
};

template <typename T, T Min>
std::ostream& operator<<(std::ostream& out, const UnsignedArg<T, Min>& arg) {
  return out << arg.value;
}

// Boost.Program_options' custom validators (found by argument-dependent lookup).
template <typename T, T Min>
void validate(boost::any& store, const std::vector<std::string>& tokens, UnsignedArg<T, Min>*, int) {
  static_assert(std::is_integral_v<T>);
  po::validators::check_first_occurrence(store);
  const std::string& token = po::validators::get_single_string(tokens);
  T value{};
  const bool digits = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (!digits || ec != std::errc() || end != token.data() + token.size() || std::cmp_less(value, Min)) {
    throw BadValueError(token, "expected a whole number from " + std::to_string(static_cast<std::uintmax_t>(Min)) + " to " +
                                   std::to_string(static_cast<std::uintmax_t>(std::numeric_limits<T>::max())));
  }
  store = UnsignedArg<T, Min>{value};
}

// A yes/no option's value: exactly "yes" or "no".
struct YesNo {
  bool value = false;
};
std::ostream& operator<<(std::ostream& out, const YesNo& arg);
void validate(boost::any& store, const std::vector<std::string>& tokens, YesNo*, int);

// An enum option's value, parsed by the owning layer's Parse function (an InputError there is the
// reason given for a refused value) and shown by its Name function.
template <typename E>
struct EnumArg {
  E value{};
};
// The enums: CmnMode (features/), ReductionMode (provenance/), LauncherKind (coordinator/).
CmnMode ParseEnumValue(const std::string& text, CmnMode*);
ReductionMode ParseEnumValue(const std::string& text, ReductionMode*);
LauncherKind ParseEnumValue(const std::string& text, LauncherKind*);
const char* EnumValueName(CmnMode value);
const char* EnumValueName(ReductionMode value);
const char* EnumValueName(LauncherKind value);
// The reason a value is refused, without the option's name (Boost adds it).
std::string EnumRefusal(const std::string& message);

template <typename E>
std::ostream& operator<<(std::ostream& out, const EnumArg<E>& arg) {
  return out << EnumValueName(arg.value);
}

template <typename E>
void validate(boost::any& store, const std::vector<std::string>& tokens, EnumArg<E>*, int) {
  po::validators::check_first_occurrence(store);
  const std::string& token = po::validators::get_single_string(tokens);
  try {
    store = EnumArg<E>{ParseEnumValue(token, static_cast<E*>(nullptr))};
  } catch (const InputError& error) {
    throw BadValueError(token, EnumRefusal(error.what()));
  }
}

// A list of retry beam pairs (--retry-beams): "none" or ABEAM:BBEAM,... (ParseRetryBeams).
struct RetryBeams {
  std::vector<BeamOptions> value;
};
std::ostream& operator<<(std::ostream& out, const RetryBeams& arg);
void validate(boost::any& store, const std::vector<std::string>& tokens, RetryBeams*, int);

// The shortest text that reads back as `value` ("1e-90", "0.0001"): how --help shows a
// floating-point default, so that what it prints is the default itself.
std::string ShortestText(double value);
std::string ShortestText(float value);

// Options stored into `*target`, whose current value is the default --help shows (AddOptions is
// called on a default-constructed struct, so the default is the struct's member initializer).
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
template <typename T>
po::typed_value<T>* FloatOption(T* target) {
  static_assert(std::is_floating_point_v<T>);
  return po::value<T>(target)->default_value(*target, ShortestText(*target));
}
po::typed_value<YesNo>* YesNoOption(bool* target);
template <typename E>
po::typed_value<EnumArg<E>>* EnumOption(E* target) {
  return po::value<EnumArg<E>>()->default_value(EnumArg<E>{*target})->notifier([target](const EnumArg<E>& arg) { *target = arg.value; });
}
po::typed_value<RetryBeams>* RetryBeamsOption(std::vector<BeamOptions>* target);

}  // namespace pstrain::cli
