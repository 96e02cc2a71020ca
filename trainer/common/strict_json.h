// Strict reading of the JSON files pstrain writes itself (pass.json, artifact.json,
// telemetry.json): each accessor requires a member of one type, integers in range (never
// truncated), and ExpectKeys refuses a member the writer never writes. A failure throws
// StrictJsonError "\"FIELD\" PROBLEM", FIELD the dotted name the caller gives ("totals.skipped");
// the file's reader adds the path (ReadStrictJsonFile, or its own FileError).
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"

namespace pstrain {

class StrictJsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace strict_json {

using boost::json::array;
using boost::json::object;
using boost::json::value;

inline constexpr std::uint64_t kAnyUnsigned = std::numeric_limits<std::uint64_t>::max();

// Throws StrictJsonError "\"FIELD\" PROBLEM".
[[noreturn]] void Fail(std::string_view field, const std::string& problem);

// Parses `text`, which must be one JSON object: StrictJsonError "not JSON: REASON" or "not a JSON
// object" otherwise. The returned value holds the object.
value ParseObject(std::string_view text);

// The member `key` of `o`; "is missing" when there is none.
const value& At(const object& o, std::string_view key, std::string_view field);

const object& ObjectOf(const value& v, std::string_view field);        // "is not an object"
const array& ArrayOf(const value& v, std::string_view field);          // "is not an array"
std::string StringOf(const value& v, std::string_view field);          // "is not a string"
// An integer in [0, max]: "is not a non-negative integer", "N is out of range (at most MAX)".
std::uint64_t UnsignedOf(const value& v, std::string_view field, std::uint64_t max = kAnyUnsigned);
std::uint32_t Uint32Of(const value& v, std::string_view field);
// A double or an integer (as a double): "is not a number".
double NumberOf(const value& v, std::string_view field);

// The same, of the member `key` of `o`.
const object& ObjectAt(const object& o, std::string_view key, std::string_view field);
const array& ArrayAt(const object& o, std::string_view key, std::string_view field);
std::string StringAt(const object& o, std::string_view key, std::string_view field);
std::uint64_t UnsignedAt(const object& o, std::string_view key, std::string_view field, std::uint64_t max = kAnyUnsigned);
std::uint32_t Uint32At(const object& o, std::string_view key, std::string_view field);
double NumberAt(const object& o, std::string_view key, std::string_view field);
// A process id as telemetry writes it: an integer of at least 1 ("is not a positive integer").
std::int64_t PositiveIntAt(const object& o, std::string_view key, std::string_view field);
// What telemetry writes where the platform did not say (a CPU time getrusage could not give).
inline constexpr const char* kUnavailable = "unavailable";
// A number, or the string kUnavailable (nullopt); "is not a number" otherwise.
std::optional<double> NumberOrUnavailableAt(const object& o, std::string_view key, std::string_view field);
// An array of strings, or of integers in [0, max]; an element of another type names `field`.
std::vector<std::string> StringsAt(const object& o, std::string_view key, std::string_view field);
std::vector<std::uint64_t> UnsignedsAt(const object& o, std::string_view key, std::string_view field,
                                       std::uint64_t max = kAnyUnsigned);

// Refuses a member of `o` that is not one of `keys`: "has an unknown member \"KEY\"". (A missing
// one is refused by the accessor that reads it.)
void ExpectKeys(const object& o, std::span<const std::string_view> keys, std::string_view field);

}  // namespace strict_json

// Reads `path` as ReadRegularFileText does (a regular file, opened without blocking, of at most
// `max_bytes`) and returns parse(text); any failure of either is an InputError
// "PATH: unreadable: REASON".
template <typename Parse>
auto ReadStrictJsonFile(const std::filesystem::path& path, std::size_t max_bytes, Parse parse) {
  try {
    return parse(std::string_view(ReadRegularFileText(path, max_bytes)));
  } catch (const std::exception& error) {
    throw InputError(path.string() + ": unreadable: " + error.what());
  }
}

}  // namespace pstrain
