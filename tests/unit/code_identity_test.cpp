// The code identity (provenance/provenance.h): the SHA-256 of a build's canonical identity lines.
// It covers every field of the build identity and nothing else, and the process's own is computed
// once and cached.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "common/sha256.h"
#include "provenance/provenance.h"

namespace pstrain {
namespace {

BuildIdentity SampleBuild() {
  BuildIdentity build;
  build.version = "1.2.3";
  build.architecture = "x86_64";
  build.compiler = "12.2.0";
  build.binary_sha256 = Sha256Hex("a pstrain binary");
  build.libraries = {{"libc.so.6", Sha256Hex("libc")}, {"libm.so.6", Sha256Hex("libm")}};
  return build;
}

TEST(CodeIdentity, IsTheSha256OfTheCanonicalLines) {
  const BuildIdentity build = SampleBuild();
  const std::string lines = "version 1.2.3\narchitecture x86_64\ncompiler 12.2.0\nbinary " + Sha256Hex("a pstrain binary") +
                            "\nlibrary libc.so.6 " + Sha256Hex("libc") + "\nlibrary libm.so.6 " + Sha256Hex("libm") + "\n";
  EXPECT_EQ(CodeIdentity(build), Sha256Hex(lines));
}

TEST(CodeIdentity, ChangesWithEveryFieldOfTheBuild) {
  const std::string base = CodeIdentity(SampleBuild());
  const std::vector<std::pair<const char*, std::function<void(BuildIdentity&)>>> changes = {
      {"version", [](BuildIdentity& b) { b.version = "1.2.4"; }},
      {"architecture", [](BuildIdentity& b) { b.architecture = "aarch64"; }},
      {"compiler", [](BuildIdentity& b) { b.compiler = "13.1.0"; }},
      {"binary", [](BuildIdentity& b) { b.binary_sha256 = Sha256Hex("another binary"); }},
      {"a library's digest", [](BuildIdentity& b) { b.libraries.back().second = Sha256Hex("another libm"); }},
      {"a library's name", [](BuildIdentity& b) { b.libraries.back().first = "libm.so.7"; }},
      {"a library more", [](BuildIdentity& b) { b.libraries.emplace_back("libz.so.1", Sha256Hex("libz")); }},
      {"a library less", [](BuildIdentity& b) { b.libraries.pop_back(); }},
  };
  for (const auto& [name, change] : changes) {
    BuildIdentity build = SampleBuild();
    change(build);
    EXPECT_NE(CodeIdentity(build), base) << name;
  }
}

TEST(CodeIdentity, TheProcessIdentityIsComputedOnceAndIsThatOfItsBuild) {
  const std::string& first = ProcessCodeIdentity();
  EXPECT_EQ(&ProcessCodeIdentity(), &first) << "not cached";
  EXPECT_EQ(&ProcessBuildIdentity(), &ProcessBuildIdentity()) << "not cached";
  EXPECT_EQ(first, CodeIdentity(ProcessBuildIdentity()));
  // Nothing in this process changes its binary or libraries: a fresh computation agrees.
  EXPECT_EQ(first, CodeIdentity(CurrentBuildIdentity()));
  EXPECT_NE(ProcessBuildIdentity().binary_sha256, "unavailable");
  EXPECT_FALSE(ProcessBuildIdentity().libraries.empty());
}

}  // namespace
}  // namespace pstrain
