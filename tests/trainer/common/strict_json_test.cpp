// Tests for the strict JSON accessors (trainer/common/strict_json.h) that pass.json's,
// artifact.json's and telemetry.json's readers share: each refusal names the field and the
// problem, integers are range-checked (never truncated), and a file read names its path.
#include "common/strict_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "common/error.h"

namespace pstrain {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::HasSubstr;

// The message of the StrictJsonError that `read` throws ("" when it throws none).
std::string RefusalOf(const std::function<void()>& read) {
  try {
    read();
  } catch (const StrictJsonError& error) {
    return error.what();
  }
  return "";
}

TEST(StrictJson, ParseObjectRefusesWhatIsNotOneObject) {
  EXPECT_TRUE(strict_json::ParseObject(R"({"a":1})").is_object());
  EXPECT_EQ(RefusalOf([] { strict_json::ParseObject("[1]"); }), "not a JSON object");
  EXPECT_THAT(RefusalOf([] { strict_json::ParseObject("{\"a\""); }), HasSubstr("not JSON: "));
  EXPECT_THAT(RefusalOf([] { strict_json::ParseObject(""); }), HasSubstr("not JSON: "));
}

TEST(StrictJson, AccessorsReadTheirTypeAndNameTheFieldOtherwise) {
  const json::object o = json::parse(R"({"s":"x","u":7,"n":-1,"d":1.5,"big":18446744073709551615,"o":{},"a":["p","q"],"us":[1,2]})")
                             .as_object();
  EXPECT_EQ(strict_json::StringAt(o, "s", "f.s"), "x");
  EXPECT_EQ(strict_json::UnsignedAt(o, "u", "f.u"), 7u);
  EXPECT_EQ(strict_json::Uint32At(o, "u", "f.u"), 7u);
  EXPECT_EQ(strict_json::UnsignedAt(o, "big", "f.big"), 18446744073709551615ull);
  EXPECT_EQ(strict_json::NumberAt(o, "d", "f.d"), 1.5);
  EXPECT_EQ(strict_json::NumberAt(o, "n", "f.n"), -1.0);  // an integer is a number
  EXPECT_TRUE(strict_json::ObjectAt(o, "o", "f.o").empty());
  EXPECT_EQ(strict_json::StringsAt(o, "a", "f.a"), (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(strict_json::UnsignedsAt(o, "us", "f.us"), (std::vector<std::uint64_t>{1, 2}));

  EXPECT_EQ(RefusalOf([&] { strict_json::StringAt(o, "missing", "f.missing"); }), "\"f.missing\" is missing");
  EXPECT_EQ(RefusalOf([&] { strict_json::StringAt(o, "u", "f.u"); }), "\"f.u\" is not a string");
  EXPECT_EQ(RefusalOf([&] { strict_json::UnsignedAt(o, "n", "f.n"); }), "\"f.n\" is not a non-negative integer");
  EXPECT_EQ(RefusalOf([&] { strict_json::UnsignedAt(o, "d", "f.d"); }), "\"f.d\" is not a non-negative integer");
  EXPECT_EQ(RefusalOf([&] { strict_json::NumberAt(o, "s", "f.s"); }), "\"f.s\" is not a number");
  EXPECT_EQ(RefusalOf([&] { strict_json::ObjectAt(o, "a", "f.a"); }), "\"f.a\" is not an object");
  EXPECT_EQ(RefusalOf([&] { strict_json::ArrayAt(o, "o", "f.o"); }), "\"f.o\" is not an array");
  EXPECT_EQ(RefusalOf([&] { strict_json::StringsAt(o, "us", "f.us"); }), "\"f.us\" is not a string");
  EXPECT_EQ(RefusalOf([&] { strict_json::UnsignedsAt(o, "a", "f.a"); }), "\"f.a\" is not a non-negative integer");
}

TEST(StrictJson, NumberOrUnavailableIsANumberOrThatOneString) {
  const json::object o = json::parse(R"({"n":0.25,"i":3,"u":"unavailable","x":"n/a","b":true})").as_object();
  EXPECT_EQ(strict_json::NumberOrUnavailableAt(o, "n", "f.n"), 0.25);
  EXPECT_EQ(strict_json::NumberOrUnavailableAt(o, "i", "f.i"), 3.0);
  EXPECT_EQ(strict_json::NumberOrUnavailableAt(o, "u", "f.u"), std::nullopt);
  EXPECT_EQ(RefusalOf([&] { strict_json::NumberOrUnavailableAt(o, "x", "f.x"); }), "\"f.x\" is not a number");
  EXPECT_EQ(RefusalOf([&] { strict_json::NumberOrUnavailableAt(o, "b", "f.b"); }), "\"f.b\" is not a number");
  EXPECT_EQ(RefusalOf([&] { strict_json::NumberOrUnavailableAt(o, "missing", "f.missing"); }), "\"f.missing\" is missing");
}

TEST(StrictJson, APositiveIntIsAnIntegerOfAtLeastOne) {
  const json::object o = json::parse(R"({"p":4242,"z":0,"n":-3,"f":1.5,"s":"7","big":18446744073709551615})").as_object();
  EXPECT_EQ(strict_json::PositiveIntAt(o, "p", "f.p"), 4242);
  for (const char* key : {"z", "n", "f", "s", "big"}) {
    EXPECT_EQ(RefusalOf([&] { strict_json::PositiveIntAt(o, key, std::string("f.") + key); }),
              "\"f." + std::string(key) + "\" is not a positive integer")
        << key;
  }
  EXPECT_EQ(RefusalOf([&] { strict_json::PositiveIntAt(o, "missing", "f.missing"); }), "\"f.missing\" is missing");
}

TEST(StrictJson, IntegersOutOfRangeAreRefusedNotTruncated) {
  const json::object o = json::parse(R"({"p":4294967298,"q":4294967295,"r":[3,300]})").as_object();
  EXPECT_EQ(strict_json::Uint32At(o, "q", "q"), 4294967295u);
  EXPECT_EQ(RefusalOf([&] { strict_json::Uint32At(o, "p", "p"); }), "\"p\" 4294967298 is out of range (at most 4294967295)");
  EXPECT_EQ(RefusalOf([&] { strict_json::UnsignedAt(o, "q", "q", 10); }), "\"q\" 4294967295 is out of range (at most 10)");
  EXPECT_EQ(RefusalOf([&] { strict_json::UnsignedsAt(o, "r", "r", 255); }), "\"r\" 300 is out of range (at most 255)");
}

TEST(StrictJson, ExpectKeysRefusesAnUnknownMemberByName) {
  static constexpr std::string_view kKeys[] = {"a", "b"};
  EXPECT_EQ(RefusalOf([] { strict_json::ExpectKeys(json::parse(R"({"b":1,"a":2})").as_object(), kKeys, "x"); }), "");
  EXPECT_EQ(RefusalOf([] { strict_json::ExpectKeys(json::object{}, kKeys, "x"); }), "");  // a missing key is the accessor's to refuse
  EXPECT_EQ(RefusalOf([] { strict_json::ExpectKeys(json::parse(R"({"a":1,"c":2})").as_object(), kKeys, "x"); }),
            "\"x\" has an unknown member \"c\"");
}

TEST(StrictJson, ReadStrictJsonFileNamesThePathAndRefusesANonRegularOrOversizedFile) {
  const fs::path dir = fs::temp_directory_path() / ("pstrain-strict-json-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path path = dir / "x.json";
  const auto parse = [](std::string_view text) { return strict_json::StringAt(strict_json::ParseObject(text).get_object(), "k", "k"); };
  const auto error_of = [&](std::size_t max_bytes) -> std::string {
    try {
      ReadStrictJsonFile(path, max_bytes, parse);
    } catch (const InputError& error) {
      return error.what();
    }
    return "";
  };
  std::ofstream(path, std::ios::binary) << R"({"k":"v"})";
  EXPECT_EQ(ReadStrictJsonFile(path, 64, parse), "v");
  EXPECT_THAT(error_of(4), HasSubstr(path.string() + ": unreadable: "));  // larger than the bound
  std::ofstream(path, std::ios::binary) << R"({"k":1})";
  EXPECT_EQ(error_of(64), path.string() + ": unreadable: \"k\" is not a string");
  fs::remove(path);
  fs::create_symlink("/dev/zero", path);
  EXPECT_THAT(error_of(64), HasSubstr(path.string() + ": unreadable: "));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pstrain
