// The code identity (provenance/provenance.h): the SHA-256 of a build's canonical identity lines,
// which every shard artifact and pass.json records and the "code-identity" check compares. It
// covers every field of the build identity and nothing else, and the process's own is computed
// once and cached.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/sha256.h"
#include "provenance/provenance.h"
#include "shards/artifact.h"

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

// The mapped files the identity lists: shared objects by their file name, never a path that only
// contains ".so" (a static pstrain installed under /opt/x.sources/ maps itself there).
TEST(CodeIdentity, ListsSharedObjectsByTheirFileName) {
  for (const char* path : {"/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2", "/usr/lib/libboost_json.so.1.81.0",
                           "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", "/opt/lib/libplain.so", "/tmp/a.sources/libx.so.1"}) {
    EXPECT_TRUE(IsSharedObjectPath(path)) << path;
  }
  for (const char* path : {"/opt/x.sources/pstrain", "/work/build/trainer/pstrain", "/tmp/libx.sox", "/tmp/libx.so.1a",
                           "/tmp/libx.so.", "/tmp/.so", "/usr/lib/locale/C.utf8/LC_CTYPE", "/tmp/a.so/pstrain"}) {
    EXPECT_FALSE(IsSharedObjectPath(path)) << path;
  }
}

TEST(CodeIdentity, IsPartOfTheCanonicalArtifact) {
  ShardArtifact artifact;
  artifact.pass = 1;
  artifact.shard_count = 1;
  artifact.code_identity = CodeIdentity(SampleBuild());
  const std::string text = SerializeArtifact(artifact);
  EXPECT_NE(text.find(",\"code_identity\":\"" + artifact.code_identity + "\",\"assigned_ids\":"), std::string::npos) << text;
  EXPECT_EQ(ParseArtifact(text, "artifact.json"), artifact);
  // An artifact without it (the format before it was recorded) is not accepted.
  std::string without = text;
  without.erase(without.find(",\"code_identity\""), std::string(",\"code_identity\":\"\"").size() + artifact.code_identity.size());
  EXPECT_THROW(ParseArtifact(without, "artifact.json"), InputError);
}

}  // namespace
}  // namespace pstrain
