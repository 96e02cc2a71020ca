// The pstrain binary computes nothing that feeds a deterministic file with libm's transcendental
// functions (glibc chooses their implementation by CPU features: the last bit depends on the
// machine) or with fused multiply-add instructions (present on some CPUs, not others). Read from
// the binary itself, so that a later change cannot quietly bring either back. (A static pstrain,
// PSTRAIN_STATIC_LIBS, holds glibc's libm code itself: its FMA variants of log and pow, behind the
// entry points only Crypto++'s allowed members call, are the one exception, checked as such.) And
// forcing an instruction-set level the CPU lacks is bad input (exit 2) naming the level.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/file_io.h"
#include "provenance/provenance.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

// Whether /proc/cpuinfo lists `flag` for this CPU.
bool CpuHasFlag(const std::string& flag) {
  std::istringstream lines(ReadFileText("/proc/cpuinfo"));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    for (std::string word; words >> word;) {
      if (word == flag) return true;
    }
    return false;
  }
  return false;
}

// exp, log, log10, log2, exp2, exp10, pow, expm1, log1p and their float / long double variants,
// with or without a symbol version.
const std::regex& TranscendentalName() {
  static const std::regex name(R"((exp|log|log10|log2|exp2|exp10|pow|expm1|log1p)[fl]?(@.*)?)");
  return name;
}

// The archive members linked into pstrain (PSTRAIN_STATIC_LIBS) that refer to a transcendental,
// none of them on a path to a deterministic file: Crypto++'s prime search and its randomness test
// (pstrain uses Crypto++ for SHA-256 only; cryptlib.o, which every Crypto++ algorithm needs, drags
// them in). Anything else that refers to one, pstrain's own code first of all, fails the test.
bool AllowedReferrer(const std::string& file) {
  for (const char* member : {"libcrypto++.a(nbtheory.o)", "libcrypto++.a(rng.o)"}) {
    const std::string m(member);
    if (file.size() >= m.size() && file.compare(file.size() - m.size(), m.size(), m) == 0) return true;
  }
  return false;
}

// One symbol of the link map's cross-reference table (`ld --cref`).
struct CrossReference {
  std::string defined_by;              // the file that defines it
  std::vector<std::string> referrers;  // the files that refer to it
};

// The table: "symbol  defining-file" lines, each followed by "   referring-file" lines. A symbol
// too long for its column has the defining file on the next line, indented as a referrer is.
std::map<std::string, CrossReference> CrossReferenceTable(const std::string& map_text) {
  std::map<std::string, CrossReference> table;
  const std::size_t at = map_text.find("\nCross Reference Table\n");
  if (at == std::string::npos) return table;
  std::istringstream lines(map_text.substr(at));
  CrossReference* current = nullptr;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line == "Cross Reference Table" || line.rfind("Symbol ", 0) == 0) continue;
    std::istringstream fields(line);
    std::string first, second;
    fields >> first >> second;
    if (line[0] != ' ') {
      current = &table[first];
      current->defined_by = second;
    } else if (current != nullptr && !first.empty()) {
      if (current->defined_by.empty()) current->defined_by = first;
      else current->referrers.push_back(first);
    }
  }
  return table;
}

// symbol -> the files that refer to it.
std::map<std::string, std::vector<std::string>> CrossReferences(const std::string& map_text) {
  std::map<std::string, std::vector<std::string>> refs;
  for (auto& [symbol, entry] : CrossReferenceTable(map_text)) refs[symbol] = std::move(entry.referrers);
  return refs;
}

// A file of glibc's libm: the shared library or a member of its archive.
bool IsLibmFile(const std::string& file) {
  static const std::regex libm(R"((^|/)libm(-[0-9.]+)?\.(so[.0-9]*|a\(.*\))$)");
  return std::regex_search(file, libm);
}

// libm's functions whose result is the same on every CPU: exact operations and correctly rounded
// ones (IEEE 754 requires sqrt to be), and the floating-point environment. Code linked into pstrain
// may call these, and libm's others only from the allowed Crypto++ members.
bool ExactLibmFunction(const std::string& symbol) {
  static const std::set<std::string> exact = {
      "sqrt", "sqrtf", "fabs", "fabsf", "floor", "floorf", "ceil", "ceilf", "trunc", "truncf", "round", "roundf",
      "rint", "rintf", "nearbyint", "lrint", "llrint", "lround", "llround", "fmod", "fmodf", "remainder", "frexp",
      "ldexp", "scalbn", "modf", "copysign", "nextafter", "fmin", "fmax", "ilogb", "logb", "fegetround", "fesetround",
      "fegetenv", "fesetenv", "feclearexcept", "fetestexcept", "feraiseexcept", "feholdexcept", "feupdateenv"};
  return exact.count(symbol.substr(0, symbol.find('@'))) > 0;
}

// Every reference from code linked into pstrain, outside libm, to a libm function that is not
// exact, except the allowed Crypto++ members': "symbol <- file" lines. A shared library among the
// link's inputs (a dynamic build's libc.so.6, libstdc++.so.6, ...; IsSharedObjectPath, as the code
// identity lists them) is not part of the binary, and the map lists its references too (libc's own
// calls into libm, symbol-version nodes).
std::string InexactLibmReferences(const std::map<std::string, CrossReference>& table) {
  std::string bad;
  for (const auto& [symbol, entry] : table) {
    if (!IsLibmFile(entry.defined_by) || ExactLibmFunction(symbol)) continue;
    for (const std::string& referrer : entry.referrers) {
      if (!IsLibmFile(referrer) && !IsSharedObjectPath(referrer) && !AllowedReferrer(referrer)) {
        bad += symbol + " <- " + referrer + "\n";
      }
    }
  }
  return bad;
}

// Not only exp and log: any libm function but the exact ones may take a code path glibc picks by
// CPU (tanh, erf, lgamma and the hyperbolic functions reach its FMA builds of exp, expm1 and log).
// In the static binary the map covers libm's own members too, which may call one another; in a
// dynamic one (-DPSTRAIN_STATIC_LIBS=OFF) the shared libraries' references are listed as well.
TEST(PortableNumerics, NothingLinkedInCallsAnInexactLibmFunction) {
  const std::map<std::string, CrossReference> table = CrossReferenceTable(ReadFileText(PSTRAIN_LINK_MAP));
  ASSERT_GT(table.size(), 1000u) << "no cross-reference table in " << PSTRAIN_LINK_MAP;
  const std::string bad = InexactLibmReferences(table);
  EXPECT_TRUE(bad.empty()) << "code linked into pstrain calls inexact libm functions (use numerics/elementary.h):\n" << bad;
}

// A link map's cross-reference table with these rows, for the parser tests.
std::string CrossReferenceMap(const std::string& rows) {
  return "\nCross Reference Table\n\nSymbol                                            File\n" + rows;
}

TEST(PortableNumerics, InexactLibmReferencesAreFoundInTheMap) {
  const std::string map = CrossReferenceMap(
      "tanh                                              /usr/lib/x86_64-linux-gnu/libm-2.36.a(s_tanh.o)\n"
      "                                                  libpstrain_numerics.a(elementary.cpp.o)\n"
      "__expm1                                           /usr/lib/x86_64-linux-gnu/libm-2.36.a(s_expm1.o)\n"
      "                                                  /usr/lib/x86_64-linux-gnu/libm-2.36.a(s_tanh.o)\n"
      "sqrt                                              /usr/lib/x86_64-linux-gnu/libm-2.36.a(w_sqrt.o)\n"
      "                                                  libpstrain_features.a(features.cpp.o)\n"
      "pow                                               /usr/lib/x86_64-linux-gnu/libm-2.36.a(w_pow.o)\n"
      "                                                  /usr/lib/x86_64-linux-gnu/libcrypto++.a(nbtheory.o)\n"
      "erf@GLIBC_2.2.5                                   /lib/x86_64-linux-gnu/libm.so.6\n"
      "                                                  libpstrain_estep.a(corpus_pass.cpp.o)\n"
      "finite@@GLIBC_2.2.5                               /lib/x86_64-linux-gnu/libm.so.6\n"
      "                                                  /lib/x86_64-linux-gnu/libc.so.6\n"
      "GLIBC_2.15                                        /lib/x86_64-linux-gnu/libm.so.6\n"
      "                                                  /lib/x86_64-linux-gnu/libc.so.6\n"
      "__a_libm_function_whose_name_is_longer_than_its_column\n"
      "                                                  /usr/lib/x86_64-linux-gnu/libm-2.36.a(s_long.o)\n"
      "                                                  libpstrain_graph.a(graph.cpp.o)\n"
      "main                                              CMakeFiles/pstrain.dir/cli/main.cpp.o\n");
  EXPECT_EQ(InexactLibmReferences(CrossReferenceTable(map)),
            "__a_libm_function_whose_name_is_longer_than_its_column <- libpstrain_graph.a(graph.cpp.o)\n"
            "erf@GLIBC_2.2.5 <- libpstrain_estep.a(corpus_pass.cpp.o)\n"
            "tanh <- libpstrain_numerics.a(elementary.cpp.o)\n");
  EXPECT_TRUE(IsLibmFile("/lib/x86_64-linux-gnu/libm.so.6"));
  EXPECT_TRUE(IsLibmFile("/usr/lib/x86_64-linux-gnu/libm-2.36.a(e_log-fma.o)"));
  EXPECT_FALSE(IsLibmFile("/usr/lib/x86_64-linux-gnu/libmvec.so.1"));
  EXPECT_FALSE(IsLibmFile("libpstrain_numerics.a(libm.cpp.o)"));
  EXPECT_TRUE(IsSharedObjectPath("/lib/x86_64-linux-gnu/libstdc++.so.6"));
  EXPECT_TRUE(IsSharedObjectPath("/usr/lib/x86_64-linux-gnu/libcrypto++.so"));
  EXPECT_FALSE(IsSharedObjectPath("/usr/lib/x86_64-linux-gnu/libstdc++.a(floating_to_chars.o)"));
}

TEST(PortableNumerics, BinaryImportsNoLibmTranscendental) {
  const std::map<std::string, std::vector<std::string>> refs = CrossReferences(ReadFileText(PSTRAIN_LINK_MAP));
  ASSERT_GT(refs.size(), 1000u) << "no cross-reference table in " << PSTRAIN_LINK_MAP;
  // Every reference to a transcendental, by whom.
  std::set<std::string> allowed_imports;
  std::string bad_references;
  for (const auto& [symbol, referrers] : refs) {
    if (!std::regex_match(symbol, TranscendentalName())) continue;
    bool all_allowed = true;
    for (const std::string& file : referrers) {
      if (AllowedReferrer(file)) continue;
      all_allowed = false;
      bad_references += symbol + " <- " + file + "\n";
    }
    if (all_allowed) allowed_imports.insert(symbol.substr(0, symbol.find('@')));
  }
  EXPECT_TRUE(bad_references.empty()) << "code linked into pstrain calls libm transcendentals (use numerics/elementary.h):\n"
                                      << bad_references;

#if PSTRAIN_STATIC_BINARY
  // A static PIE (PSTRAIN_STATIC_LIBS): libm is linked in, so the table above saw every reference
  // to it, and the binary imports nothing at run time.
  const CommandResult needed = RunCommand("readelf -d " + ShellQuote(PSTRAIN_BINARY));
  ASSERT_EQ(needed.exit_code, 0) << needed.output;
  EXPECT_EQ(needed.output.find("(NEEDED)"), std::string::npos) << "the static pstrain needs shared libraries:\n" << needed.output;
  const CommandResult nm = RunCommand("nm -D --undefined-only " + ShellQuote(PSTRAIN_BINARY) + " 2>&1");
  EXPECT_THAT(nm.output, ::testing::HasSubstr("no symbols")) << nm.output;
#else
  // And what the binary imports from libm at run time: nothing but what those members use.
  const CommandResult nm = RunCommand("nm -D --undefined-only " + ShellQuote(PSTRAIN_BINARY));
  ASSERT_EQ(nm.exit_code, 0) << nm.output;
  const std::regex import(R"(^\s*U\s+(\S+)$)");
  std::istringstream lines(nm.output);
  std::vector<std::string> found;
  std::size_t symbols = 0;
  for (std::string line; std::getline(lines, line);) {
    ++symbols;
    std::smatch m;
    if (!std::regex_match(line, m, import) || !std::regex_match(m[1].str(), TranscendentalName())) continue;
    const std::string name = m[1].str().substr(0, m[1].str().find('@'));
    if (!allowed_imports.count(name)) found.push_back(line);
  }
  EXPECT_GT(symbols, 10u) << "nm listed almost nothing: " << nm.output;
  EXPECT_TRUE(found.empty()) << "pstrain imports libm transcendentals (use numerics/elementary.h):\n"
                             << [&] {
                                  std::string all;
                                  for (const std::string& f : found) all += f + "\n";
                                  return all;
                                }();
#endif
}

// The map parser itself: a table where pstrain's own object refers to `exp` is caught, one where
// only the allowed Crypto++ members refer to `log` is not.
TEST(PortableNumerics, CrossReferenceTableIsReadAsTheLinkerWritesIt) {
  const std::string map =
      "Archive member included ...\n\nCross Reference Table\n\n"
      "Symbol                                            File\n"
      "exp                                               /lib/x86_64-linux-gnu/libm.so.6\n"
      "                                                  libpstrain_numerics.a(elementary.cpp.o)\n"
      "log                                               /lib/x86_64-linux-gnu/libm.so.6\n"
      "                                                  /usr/lib/x86_64-linux-gnu/libcrypto++.a(rng.o)\n"
      "main                                              CMakeFiles/pstrain.dir/cli/main.cpp.o\n";
  const auto refs = CrossReferences(map);
  ASSERT_EQ(refs.size(), 3u);
  ASSERT_EQ(refs.at("exp").size(), 1u);
  EXPECT_EQ(refs.at("exp")[0], "libpstrain_numerics.a(elementary.cpp.o)");
  EXPECT_FALSE(AllowedReferrer(refs.at("exp")[0]));
  EXPECT_TRUE(AllowedReferrer(refs.at("log")[0]));
  EXPECT_TRUE(refs.at("main").empty());
  EXPECT_TRUE(std::regex_match(std::string("pow@GLIBC_2.29"), TranscendentalName()));
  EXPECT_FALSE(std::regex_match(std::string("powf128x"), TranscendentalName()));
  EXPECT_FALSE(std::regex_match(std::string("exponent"), TranscendentalName()));
}

// Whether `function` (a symbol objdump names) is one of glibc's FMA builds of log and pow
// (__ieee754_log_fma, __ieee754_pow_fma4, ...) that the link map says libm's member of that name
// defines. A static pstrain links them in behind the IFUNC of `log` and `pow`, which only the
// allowed Crypto++ members call, and no code outside libm calls a libm function that could reach
// them (NothingLinkedInCallsAnInexactLibmFunction); nothing else may hold an FMA.
bool IsLibmFmaBuildOfLogOrPow(const std::string& function, const std::map<std::string, CrossReference>& table) {
  static const std::regex name(R"(__ieee754_(log|pow)_fma4?)");
  static const std::regex member(R"(/libm(-[0-9.]+)?\.a\(e_(log|pow)-fma4?\.o\)$)");
  const auto entry = table.find(function);
  return std::regex_match(function, name) && entry != table.end() && std::regex_search(entry->second.defined_by, member);
}

TEST(PortableNumerics, BinaryHasNoFusedMultiplyAdd) {
  // Each function holding an FMA instruction, with the number of them.
  const CommandResult dump = RunCommand("objdump -d --no-show-raw-insn " + ShellQuote(PSTRAIN_BINARY) +
                                        " | awk '/^[0-9a-f]+ <.*>:$/ { f = $2 } /[[:space:]]v?fn?m(add|sub)[0-9a-z]*[[:space:]]/ { n[f]++ }"
                                        " END { for (k in n) print k, n[k] }'");
  ASSERT_EQ(dump.exit_code, 0) << dump.output;
  const std::map<std::string, CrossReference> table = CrossReferenceTable(ReadFileText(PSTRAIN_LINK_MAP));
  std::istringstream lines(dump.output);
  std::string outside_libm;
  for (std::string function, count; lines >> function >> count;) {
    function = function.substr(1, function.size() - 3);  // "<name>:" -> "name"
    if (!(PSTRAIN_STATIC_BINARY && IsLibmFmaBuildOfLogOrPow(function, table))) {
      outside_libm += function + " (" + count + ")\n";
    }
  }
  EXPECT_TRUE(outside_libm.empty()) << "fused multiply-add instructions in pstrain:\n" << outside_libm;
}

// The FMA rule's exception, read as the linker writes the map: glibc's FMA build of log defined by
// its libm member passes; pow's defined by pstrain's own object, another libm function's FMA build,
// or a name of another kind do not.
TEST(PortableNumerics, LibmFmaBuildsOfLogAndPowAreRecognizedByNameAndDefiningMember) {
  const auto table = CrossReferenceTable(CrossReferenceMap(
      "__ieee754_log_fma                                 /usr/lib/x86_64-linux-gnu/libm-2.36.a(e_log-fma.o)\n"
      "                                                  /usr/lib/x86_64-linux-gnu/libm-2.36.a(e_log.o)\n"
      "__ieee754_pow_fma4                                libpstrain_numerics.a(elementary.cpp.o)\n"
      "__hypot_fma                                       /usr/lib/x86_64-linux-gnu/libm-2.36.a(e_hypot-fma.o)\n"
      "__ieee754_exp_fma                                 /usr/lib/x86_64-linux-gnu/libm-2.36.a(e_exp-fma.o)\n"
      "AccumulateFrames                                  libpstrain_numerics.a(kernels.cpp.o)\n"));
  EXPECT_TRUE(IsLibmFmaBuildOfLogOrPow("__ieee754_log_fma", table));
  EXPECT_FALSE(IsLibmFmaBuildOfLogOrPow("__ieee754_pow_fma4", table));
  EXPECT_FALSE(IsLibmFmaBuildOfLogOrPow("__hypot_fma", table));
  EXPECT_FALSE(IsLibmFmaBuildOfLogOrPow("AccumulateFrames", table));
  EXPECT_FALSE(IsLibmFmaBuildOfLogOrPow("__ieee754_exp_fma", table));  // exp's FMA build: never allowed
  EXPECT_FALSE(IsLibmFmaBuildOfLogOrPow("__ieee754_log_fma4", table));  // not in the map
}

TEST(PortableNumerics, ForcedLevelTheCpuLacksIsBadInput) {
  // The level is checked before the command's options are read: `--help` then exits 0.
  for (const std::string level : {"avx512", "neon", "sse9"}) {
    const CommandResult run =
        RunCommand("PSTRAIN_ISA=" + level + " " + ShellQuote(PSTRAIN_BINARY) + " accumulate --help 2>&1");
    // avx512 may exist on the CPU that runs this test (it does on a Zen 4 EPYC): then it is accepted,
    // and only then (numerics/isa.cpp asks libgcc for avx2 and avx512f; /proc/cpuinfo is read here
    // as a second, independent source).
    if (level == "avx512" && CpuHasFlag("avx512f") && CpuHasFlag("avx2")) {
      EXPECT_EQ(run.exit_code, 0) << run.output;
      EXPECT_EQ(run.output.find("PSTRAIN_ISA"), std::string::npos) << run.output;
      continue;
    }
    EXPECT_EQ(run.exit_code, 2) << level << ": " << run.output;
    EXPECT_NE(run.output.find("PSTRAIN_ISA=" + level), std::string::npos) << run.output;
  }
}

}  // namespace
}  // namespace pstrain::testing
