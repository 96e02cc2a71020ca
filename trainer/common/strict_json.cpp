// The strict JSON accessors (common/strict_json.h).
#include "common/strict_json.h"

#include <boost/json/parse.hpp>

namespace pstrain::strict_json {

void Fail(std::string_view field, const std::string& problem) {
  throw StrictJsonError("\"" + std::string(field) + "\" " + problem);
}

value ParseObject(std::string_view text) {
  value parsed;
  try {
    parsed = boost::json::parse(text);
  } catch (const std::exception& error) {
    throw StrictJsonError(std::string("not JSON: ") + error.what());
  }
  if (!parsed.is_object()) throw StrictJsonError("not a JSON object");
  return parsed;
}

const value& At(const object& o, std::string_view key, std::string_view field) {
  const value* v = o.if_contains(key);
  if (v == nullptr) Fail(field, "is missing");
  return *v;
}

const object& ObjectOf(const value& v, std::string_view field) {
  if (!v.is_object()) Fail(field, "is not an object");
  return v.get_object();
}

const array& ArrayOf(const value& v, std::string_view field) {
  if (!v.is_array()) Fail(field, "is not an array");
  return v.get_array();
}

std::string StringOf(const value& v, std::string_view field) {
  if (!v.is_string()) Fail(field, "is not a string");
  return std::string(v.get_string());
}

std::uint64_t UnsignedOf(const value& v, std::string_view field, std::uint64_t max) {
  std::uint64_t n = 0;
  if (v.is_uint64()) {
    n = v.get_uint64();
  } else if (v.is_int64() && v.get_int64() >= 0) {
    n = static_cast<std::uint64_t>(v.get_int64());
  } else {
    Fail(field, "is not a non-negative integer");
  }
  if (n > max) Fail(field, std::to_string(n) + " is out of range (at most " + std::to_string(max) + ")");
  return n;
}

std::uint32_t Uint32Of(const value& v, std::string_view field) {
  return static_cast<std::uint32_t>(UnsignedOf(v, field, std::numeric_limits<std::uint32_t>::max()));
}

double NumberOf(const value& v, std::string_view field) {
  if (v.is_double()) return v.get_double();
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  Fail(field, "is not a number");
}

const object& ObjectAt(const object& o, std::string_view key, std::string_view field) { return ObjectOf(At(o, key, field), field); }
const array& ArrayAt(const object& o, std::string_view key, std::string_view field) { return ArrayOf(At(o, key, field), field); }
std::string StringAt(const object& o, std::string_view key, std::string_view field) { return StringOf(At(o, key, field), field); }
std::uint64_t UnsignedAt(const object& o, std::string_view key, std::string_view field, std::uint64_t max) {
  return UnsignedOf(At(o, key, field), field, max);
}
std::uint32_t Uint32At(const object& o, std::string_view key, std::string_view field) { return Uint32Of(At(o, key, field), field); }
double NumberAt(const object& o, std::string_view key, std::string_view field) { return NumberOf(At(o, key, field), field); }

std::int64_t PositiveIntAt(const object& o, std::string_view key, std::string_view field) {
  const value& v = At(o, key, field);
  if (!v.is_int64() || v.get_int64() <= 0) Fail(field, "is not a positive integer");
  return v.get_int64();
}

std::optional<double> NumberOrUnavailableAt(const object& o, std::string_view key, std::string_view field) {
  const value& v = At(o, key, field);
  if (v.is_string() && v.get_string() == kUnavailable) return std::nullopt;
  return NumberOf(v, field);
}

std::vector<std::string> StringsAt(const object& o, std::string_view key, std::string_view field) {
  const array& a = ArrayAt(o, key, field);
  std::vector<std::string> out;
  out.reserve(a.size());
  for (const value& v : a) out.push_back(StringOf(v, field));
  return out;
}

std::vector<std::uint64_t> UnsignedsAt(const object& o, std::string_view key, std::string_view field, std::uint64_t max) {
  const array& a = ArrayAt(o, key, field);
  std::vector<std::uint64_t> out;
  out.reserve(a.size());
  for (const value& v : a) out.push_back(UnsignedOf(v, field, max));
  return out;
}

void ExpectKeys(const object& o, std::span<const std::string_view> keys, std::string_view field) {
  for (const auto& member : o) {
    bool known = false;
    for (std::string_view key : keys) known = known || member.key() == key;
    if (!known) Fail(field, "has an unknown member \"" + std::string(member.key()) + "\"");
  }
}

}  // namespace pstrain::strict_json
