// Every rule of the artifact validation (shards/artifact_validator.h, and the "reduction" check of
// `pstrain validate`) on real artifacts: a real `pstrain train --jobs 3` pass is copied, exactly one
// rule is broken in the copy, and the real `pstrain validate COPY` must exit 1 naming the check,
// the shard and the file. An unmodified copy is VALID (exit 0); an unreadable pass.json exits 2.
//
// JSON is edited with Boost.JSON (parse, modify, serialize). Boost.JSON 1.81 does not parse doubles
// correctly rounded, so the editor restores every double from its original text, and checks that an
// edit that changes nothing rewrites the file byte for byte: only the intended field changes.
//
// The last test (disabled) lists mutations that `pstrain validate` does not reject today.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/file_io.h"
#include "common/sha256.h"
#include "provenance/fingerprints.h"
#include "shards/artifact.h"
#include "shards/run_layout.h"
#include "support/fault_fixture_util.h"
#include "support/shard_fixture.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::HasSubstr;
using Bytes = std::vector<std::uint8_t>;

constexpr const char* kGroup = "artifact_validation";

// --- Files -----------------------------------------------------------------------------------

void WriteBytes(const fs::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}
void WriteText(const fs::path& path, const std::string& text) { WriteBytes(path, Bytes(text.begin(), text.end())); }

void FlipByte(const fs::path& path, std::size_t pos) {
  Bytes bytes = ReadFileBytes(path);
  ASSERT_LT(pos, bytes.size()) << path;
  bytes[pos] ^= 0x01;
  WriteBytes(path, bytes);
}

void Truncate(const fs::path& path, std::size_t keep) {
  const Bytes bytes = ReadFileBytes(path);
  ASSERT_LT(keep, bytes.size()) << path;
  WriteBytes(path, Bytes(bytes.begin(), bytes.begin() + static_cast<long>(keep)));
}

void SwapFiles(const fs::path& a, const fs::path& b) {
  const fs::path tmp = a.string() + ".swap";
  fs::rename(a, tmp);
  fs::rename(b, a);
  fs::rename(tmp, b);
}

// Replaces directory `target` by a copy of directory `source` (a transplanted shard).
void ReplaceDir(const fs::path& target, const fs::path& source) {
  ASSERT_TRUE(fs::is_directory(source)) << source;
  fs::remove_all(target);
  fs::copy(source, target, fs::copy_options::recursive);
}

// --- JSON --------------------------------------------------------------------------------------

// Puts back the correctly rounded value of every double member of `value` whose key occurs once
// in `text` (the numbers were written by Boost.JSON's serializer, which is exact).
void RestoreDoubles(json::value& value, const std::string& text) {
  if (value.is_array()) {
    for (json::value& v : value.as_array()) RestoreDoubles(v, text);
    return;
  }
  if (!value.is_object()) return;
  for (auto& member : value.as_object()) {
    if (!member.value().is_double()) {
      RestoreDoubles(member.value(), text);
      continue;
    }
    std::string key = "\"";
    key.append(member.key().data(), member.key().size());
    key += "\":";
    const std::size_t pos = text.find(key);
    if (pos == std::string::npos || text.find(key, pos + 1) != std::string::npos) continue;
    member.value() = std::strtod(text.c_str() + pos + key.size(), nullptr);
  }
}

// Parses `text` with every double as written.
json::value ParseExact(const std::string& text) {
  json::value value = json::parse(text);
  RestoreDoubles(value, text);
  return value;
}

std::string Serialize(const json::value& value) { return json::serialize(value) + "\n"; }

json::object ReadObject(const fs::path& path) { return ParseExact(ReadFileText(path)).as_object(); }

// Parses `path`, applies `edit` to its root object and writes it back in the writer's format.
void EditJson(const fs::path& path, const std::function<void(json::object&)>& edit) {
  const std::string before = ReadFileText(path);
  json::value value = ParseExact(before);
  ASSERT_EQ(Serialize(value), before) << path << ": a no-op edit would change the file";
  ASSERT_TRUE(value.is_object()) << path;
  edit(value.as_object());
  const std::string after = Serialize(value);
  ASSERT_NE(after, before) << path << ": the edit changed nothing";
  WriteText(path, after);
}

std::vector<PayloadFile> PayloadOf(const json::object& artifact) {
  std::vector<PayloadFile> payload;
  for (const json::value& v : artifact.at("payload").as_array()) {
    const json::object& o = v.as_object();
    payload.push_back({std::string(o.at("file").as_string()), o.at("size").to_number<std::uint64_t>(), std::string(o.at("sha256").as_string())});
  }
  return payload;
}

// Makes the payload entry of `name` describe the file as it is now, and payload_sha256 cover the
// entries: the artifact is then self-consistent again.
void RedescribePayload(json::object& artifact, const fs::path& shard_dir, const std::string& name) {
  for (json::value& v : artifact.at("payload").as_array()) {
    json::object& o = v.as_object();
    if (o.at("file").as_string() == name) {
      o["size"] = static_cast<std::uint64_t>(fs::file_size(shard_dir / name));
      o["sha256"] = Sha256OfFile(shard_dir / name);
    }
  }
  artifact["payload_sha256"] = PayloadDigest(PayloadOf(artifact));
}

json::array& Ids(json::object& artifact, const char* key) { return artifact.at(key).as_array(); }

// Removes processed utterance `index` (its id and frame count) and keeps total_frames consistent.
void DropProcessed(json::object& a, std::size_t index) {
  json::array& frames = Ids(a, "processed_frames");
  const std::uint64_t f = frames.at(index).to_number<std::uint64_t>();
  Ids(a, "processed_ids").erase(Ids(a, "processed_ids").begin() + static_cast<long>(index));
  frames.erase(frames.begin() + static_cast<long>(index));
  a["total_frames"] = a.at("total_frames").to_number<std::uint64_t>() - f;
}

// --- Running pstrain -----------------------------------------------------------------------------

CommandResult Validate(const fs::path& pass_dir) { return RunCommand(Pstrain("validate " + ShellQuote(pass_dir.string()))); }

class ArtifactValidationTest : public ::testing::Test {
 public:
  // A finished training run, trained on first use by this test (in its private scratch area).
  //   base            --jobs 3 --max-passes 1 (the artifacts that get broken)
  //   two-pass        --jobs 3 --max-passes 2 (pass 2; pass 1 replayed into pass 2)
  //   other-model     like base, from base's pass-1 model instead of an4_ci_cont
  //   other-config    like base with --abeam 1e-80
  //   other-manifest  like base on the held-out manifest
  //   renamed-first   like base on a copy of its manifest whose first utterance id has an "x"
  //                   appended (only shard 0's lines differ; every shard's statistics are base's)
  //   two-jobs        --jobs 2 --max-passes 1
  //   other-build     like base, trained by OtherBuild() (coordinator and workers)
  fs::path Run(const std::string& name) {
    if (auto it = runs_.find(name); it != runs_.end()) return it->second;
    std::vector<std::string> extra = {"--jobs", "3", "--max-passes", "1"};
    fs::path manifest, model;
    std::string binary = PSTRAIN_BINARY;
    if (name == "two-pass") extra = {"--jobs", "3", "--max-passes", "2", "--min-passes", "2"};
    else if (name == "other-model") model = PassDir(Run("base"), 1) / "model";
    else if (name == "other-config") extra.insert(extra.end(), {"--abeam", "1e-80"});
    else if (name == "other-manifest") manifest = HeldoutManifest();
    else if (name == "renamed-first") {
      std::string bytes = ReadFileText(TrainManifest());
      const std::size_t first_id = bytes.find('\n') + 1;
      bytes.insert(bytes.find('\t', first_id), "x");
      manifest = TestScratchDir(kGroup, "renamed-first-manifest") / "train.manifest";
      WriteText(manifest, bytes);
      extra.insert(extra.end(), {"--corpus-root", TrainManifest().parent_path().string()});
    }
    else if (name == "two-jobs") extra = {"--jobs", "2", "--max-passes", "1"};
    else if (name == "other-build") binary = OtherBuild().string();
    else if (name != "base") ADD_FAILURE() << "unknown run " << name;
    const fs::path run = TestScratchDir(kGroup, "run-" + name) / "run";
    std::vector<std::string> argv = TrainArgv(run, extra, manifest, model);
    argv.front() = binary;
    const CommandResult r = RunCommand(ShellCommand(argv) + " --quiet");
    EXPECT_EQ(r.exit_code, 0) << name << ":\n" << r.output;
    EXPECT_TRUE(fs::is_regular_file(PassDir(run, 1) / "pass.json")) << name;
    runs_[name] = run;
    return run;
  }

  // Another build of pstrain: a copy of the binary with one byte appended. It runs exactly like
  // the original (the loader ignores trailing bytes) but is a different file, so its code identity
  // differs: what a node with another pstrain binary would run.
  fs::path OtherBuild() {
    if (!other_build_.empty()) return other_build_;
    const fs::path binary = TestScratchDir(kGroup, "other-build-binary") / "pstrain";
    fs::copy_file(PSTRAIN_BINARY, binary);
    std::ofstream(binary, std::ios::binary | std::ios::app) << '\n';
    fs::permissions(binary, fs::perms::owner_all);
    EXPECT_NE(Sha256OfFile(binary), Sha256OfFile(PSTRAIN_BINARY));
    other_build_ = binary;
    return binary;
  }

  // Copies pass `pass` of run `run` into a fresh directory named after the case.
  fs::path CopyPass(const std::string& run, std::uint32_t pass, const std::string& case_name) {
    const fs::path source = PassDir(Run(run), pass);
    std::string slug;
    for (char c : case_name) {
      if (std::isalnum(static_cast<unsigned char>(c))) slug += c;
      else if (!slug.empty() && slug.back() != '-') slug += '-';
    }
    const fs::path copy = TestScratchDir(kGroup, slug) / "pass";
    fs::copy(source, copy, fs::copy_options::recursive);
    return copy;
  }

  // One broken rule: the case copies pass PASS of run RUN, applies `mutate`, and expects `pstrain
  // validate` to reject the copy with `check` for `shard` (-1: the pass-level "reduction" check),
  // naming `file` (relative to the copy). An empty `check`: any rejection that names `file`.
  struct Mutation {
    std::string name;
    std::function<void(ArtifactValidationTest& t, const fs::path& copy)> mutate;
    std::string check;
    int shard;
    std::string file;
    std::string run = "base";
    std::uint32_t pass = 1;
    std::string detail = {};  // when set, a part of the rejection's message
  };

  void ExpectRejected(const Mutation& m) {
    SCOPED_TRACE(m.name);
    const fs::path copy = CopyPass(m.run, m.pass, m.name);
    ASSERT_NO_FATAL_FAILURE(m.mutate(*this, copy));
    const CommandResult r = Validate(copy);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("REJECTED " + copy.string() + ": "));
    const std::string where = " (" + (copy / m.file).string() + ")";
    if (m.check.empty()) {
      EXPECT_THAT(r.output, HasSubstr((copy / m.file).string())) << r.output;  // no check code is defined for it yet
    } else if (m.shard >= 0) {
      EXPECT_THAT(r.output, HasSubstr("shard " + std::to_string(m.shard) + " rejected by check \"" + m.check + "\"" + where)) << r.output;
    } else {
      EXPECT_THAT(r.output, HasSubstr("check \"" + m.check + "\"" + where)) << r.output;
    }
    if (!m.detail.empty()) {
      EXPECT_THAT(r.output, HasSubstr(m.detail)) << r.output;
    }
    if (!::testing::Test::HasFailure()) fs::remove_all(copy.parent_path());  // keep a failing case for inspection
  }

  void ExpectAllRejected(const std::vector<Mutation>& mutations) {
    for (const Mutation& m : mutations) ExpectRejected(m);
  }

  std::map<std::string, fs::path> runs_;
  fs::path other_build_;
};

// --- The unmodified pass, and pass.json ----------------------------------------------------------

TEST_F(ArtifactValidationTest, UnmodifiedCopyIsValid) {
  const fs::path copy = CopyPass("base", 1, "unmodified");
  const CommandResult r = Validate(copy);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("VALID " + copy.string() + ": 3 shards, pass 1, 93 utterances"));
  // The JSON editor's round trip is exact on every artifact (so edits change only their field).
  for (const std::string& file : {InShard(0, "artifact.json"), InShard(1, "artifact.json"), InShard(2, "artifact.json"), std::string("pass.json")}) {
    const std::string text = ReadFileText(copy / file);
    EXPECT_EQ(Serialize(ParseExact(text)), text) << file;
  }
}

TEST_F(ArtifactValidationTest, MissingOrUnreadablePassJsonExitsTwo) {
  struct Case {
    const char* name;
    std::function<void(const fs::path& pass_json)> mutate;
  };
  const Case cases[] = {
      {"pass.json missing", [](const fs::path& p) { fs::remove(p); }},
      {"pass.json cut in the middle", [](const fs::path& p) { Truncate(p, fs::file_size(p) / 2); }},
      {"pass.json is a directory",
       [](const fs::path& p) {
         fs::remove(p);
         fs::create_directory(p);
       }},
      {"pass.json lacks utterance_ids", [](const fs::path& p) { EditJson(p, [](json::object& o) { o.erase("utterance_ids"); }); }},
      {"pass.json shard_count is a string", [](const fs::path& p) { EditJson(p, [](json::object& o) { o["shard_count"] = "3"; }); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path copy = CopyPass("base", 1, c.name);
    ASSERT_NO_FATAL_FAILURE(c.mutate(copy / "pass.json"));
    const CommandResult r = Validate(copy);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr((copy / "pass.json").string() + ": unreadable"));
    EXPECT_THAT(r.output, ::testing::Not(HasSubstr("VALID")));
  }
  // A directory that is no pass at all.
  const CommandResult r = Validate(TestScratchDir(kGroup, "empty-dir"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

// Issue 13 D and E: pass.json gets the checks artifact.json has (a regular file, not a symlink, at
// most kMaxArtifactJsonBytes), so a FIFO or /dev/zero neither blocks nor reads without bound; its
// integers are range-checked before use (never truncated to 32 bits) and shard_count is bounded by
// the shard directories the pass holds, before anything is allocated for it. Each case exits 2
// within the timeout, naming pass.json.
TEST_F(ArtifactValidationTest, PassJsonThatIsNoRegularFileOrHasOutOfRangeIntegersExitsTwo) {
  struct Case {
    const char* name;
    std::function<void(const fs::path& pass_json)> mutate;
    const char* detail;
  };
  const Case cases[] = {
      {"pass.json is a FIFO",
       [](const fs::path& p) {
         fs::remove(p);
         ASSERT_EQ(RunCommand("mkfifo " + ShellQuote(p.string())).exit_code, 0);
       },
       "not a regular file"},
      {"pass.json is a symlink to /dev/zero",
       [](const fs::path& p) {
         fs::remove(p);
         fs::create_symlink("/dev/zero", p);
       },
       "symbolic link"},
      {"pass.json is larger than the limit", [](const fs::path& p) { fs::resize_file(p, kMaxArtifactJsonBytes + 1); }, "exceeds"},
      {"pass.json shard_count 2^32+3",
       [](const fs::path& p) { EditJson(p, [](json::object& o) { o["shard_count"] = std::uint64_t{4294967299u}; }); }, "shard_count"},
      {"pass.json pass 2^32+2", [](const fs::path& p) { EditJson(p, [](json::object& o) { o["pass"] = std::uint64_t{4294967298u}; }); },
       "pass"},
      {"pass.json shard_count 5000000",
       [](const fs::path& p) { EditJson(p, [](json::object& o) { o["shard_count"] = std::uint64_t{5000000u}; }); }, "shard_count"},
      {"pass.json shard_count 2^32-1",
       [](const fs::path& p) { EditJson(p, [](json::object& o) { o["shard_count"] = std::uint64_t{4294967295u}; }); }, "shard_count"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path copy = CopyPass("base", 1, c.name);
    ASSERT_NO_FATAL_FAILURE(c.mutate(copy / "pass.json"));
#ifdef PSTRAIN_SANITIZED  // ASan's shadow memory needs more address space than the limit
    const char* limit = "";
#else
    const char* limit = "ulimit -v 1000000; ";
#endif
    const CommandResult r = RunCommand(limit + std::string("timeout 20 ") + Pstrain("validate " + ShellQuote(copy.string())));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr((copy / "pass.json").string() + ": unreadable"));
    EXPECT_THAT(r.output, HasSubstr(c.detail));
    EXPECT_THAT(r.output, ::testing::Not(HasSubstr("bad_alloc")));
    EXPECT_THAT(r.output, ::testing::Not(HasSubstr("VALID")));
  }
}

// Issue 13 F: an exact_counts header whose element count wraps in 64 bits to the real one (2^31
// senones x 2^32-1 densities x veclen 2^32-1, and n_tmat chosen so the wrapped count is the file's
// own) must fail "payload-format" naming the shard and the file, not pass the size check and end
// in a bare std::bad_alloc.
TEST_F(ArtifactValidationTest, ExactCountsHeaderWhoseSizeWrapsIsPayloadFormat) {
  const fs::path copy = CopyPass("base", 1, "exact-counts-size-wraps");
  const fs::path file = copy / ShardDirName(1) / "exact_counts";
  Bytes bytes = ReadFileBytes(file);
  const std::size_t header = std::string("PSTRAIN_EXACT_COUNTS_V2\n").size();
  ASSERT_GT(bytes.size(), header + 24);
  const std::uint64_t elements = (bytes.size() - header - 24) / 16;
  ASSERT_EQ(elements % 2, 0u);
  auto put = [&](std::size_t word, std::uint32_t value) {
    for (int i = 0; i < 4; ++i) bytes[header + 4 * word + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(value >> (8 * i));
  };
  // AccumulatorShape order: n_senones, n_density, veclen, n_tmat, n_emit_state.
  put(0, 1u << 31);
  put(1, 0xffffffffu);
  put(2, 0xffffffffu);
  put(3, static_cast<std::uint32_t>(elements / 2));
  put(4, 1);
  WriteBytes(file, bytes);
  EditJson(copy / ShardDirName(1) / "artifact.json", [&](json::object& a) { RedescribePayload(a, copy / ShardDirName(1), "exact_counts"); });
  const CommandResult r = Validate(copy);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("shard 1 rejected by check \"payload-format\" (" + file.string() + ")")) << r.output;
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("bad_alloc")));
}

// --- Payload files -------------------------------------------------------------------------------

// With several shards broken, the lowest one is reported, even when a higher one's problem is
// found at once and the lower one's only after hashing its files.
TEST_F(ArtifactValidationTest, WithSeveralShardsBrokenTheLowestIsReported) {
  using T = ArtifactValidationTest;
  ExpectAllRejected({
      {"shards 1 and 2 broken",
       [](T&, const fs::path& c) {
         fs::remove(c / InShard(2, "tmat_counts"));
         FlipByte(c / InShard(1, "exact_counts"), fs::file_size(c / InShard(1, "exact_counts")) - 1);
       },
       "payload-sha256", 1, InShard(1, "exact_counts")},
      {"shards 0 and 2 broken",
       [](T&, const fs::path& c) {
         Truncate(c / InShard(2, "mixw_counts"), 8);
         FlipByte(c / InShard(0, "gauden_counts"), fs::file_size(c / InShard(0, "gauden_counts")) / 2);
       },
       "payload-sha256", 0, InShard(0, "gauden_counts")},
  });
}

TEST_F(ArtifactValidationTest, PayloadRules) {
  using T = ArtifactValidationTest;
  ExpectAllRejected({
      {"payload byte flipped",
       [](T&, const fs::path& c) { FlipByte(c / InShard(1, "gauden_counts"), fs::file_size(c / InShard(1, "gauden_counts")) / 2); },
       "payload-sha256", 1, InShard(1, "gauden_counts")},
      {"payload truncated",
       [](T&, const fs::path& c) { Truncate(c / InShard(1, "mixw_counts"), fs::file_size(c / InShard(1, "mixw_counts")) / 2); },
       "payload-size", 1, InShard(1, "mixw_counts")},
      {"payload missing", [](T&, const fs::path& c) { fs::remove(c / InShard(1, "tmat_counts")); }, "missing", 1, InShard(1, "tmat_counts")},
      {"payload replaced by a symlink to an identical file",
       [](T&, const fs::path& c) {
         const fs::path outside = c.parent_path() / "identical-exact_counts";
         fs::rename(c / InShard(1, "exact_counts"), outside);
         fs::create_symlink(outside, c / InShard(1, "exact_counts"));
       },
       "symlink", 1, InShard(1, "exact_counts")},
      {"payload replaced by a relative symlink to the same bytes inside the shard",
       [](T&, const fs::path& c) {
         fs::rename(c / InShard(2, "gauden_counts"), c / InShard(2, "gauden_counts.real"));
         fs::create_symlink("gauden_counts.real", c / InShard(2, "gauden_counts"));
       },
       "symlink", 2, InShard(2, "gauden_counts")},
      {"payload replaced by a directory",
       [](T&, const fs::path& c) {
         fs::remove(c / InShard(1, "gauden_counts"));
         fs::create_directory(c / InShard(1, "gauden_counts"));
       },
       "not-a-file", 1, InShard(1, "gauden_counts")},
      {"payload with a broken header, size and digests updated",
       [](T&, const fs::path& c) {
         const fs::path file = c / InShard(1, "tmat_counts");
         WriteBytes(file, Bytes(fs::file_size(file), 0x5a));
         EditJson(c / InShard(1, "artifact.json"), [&](json::object& a) { RedescribePayload(a, c / ShardDirName(1), "tmat_counts"); });
       },
       "payload-format", 1, InShard(1, "tmat_counts")},
      {"gauden_counts with a byte of its payload flipped, size and digests updated (its checksum fails)",
       [](T&, const fs::path& c) {
         const fs::path file = c / InShard(1, "gauden_counts");
         FlipByte(file, fs::file_size(file) / 2);
         EditJson(c / InShard(1, "artifact.json"), [&](json::object& a) { RedescribePayload(a, c / ShardDirName(1), "gauden_counts"); });
       },
       "payload-format", 1, InShard(1, "gauden_counts"), "base", 1, "checksum mismatch"},
      {"gauden_counts emptied, size and digests updated",
       [](T&, const fs::path& c) {
         WriteBytes(c / InShard(2, "gauden_counts"), Bytes());
         EditJson(c / InShard(2, "artifact.json"), [&](json::object& a) { RedescribePayload(a, c / ShardDirName(2), "gauden_counts"); });
       },
       "payload-format", 2, InShard(2, "gauden_counts"), "base", 1, "empty or truncated s3 file (0 bytes)"},
      {"payload_sha256 altered",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"), [](json::object& a) {
           std::string digest(a.at("payload_sha256").as_string());
           digest.back() = digest.back() == '0' ? '1' : '0';
           a["payload_sha256"] = digest;
         });
       },
       "payload-digest", 1, InShard(1, "artifact.json")},
      {"payload entry names another payload file",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"), [](json::object& a) { Ids(a, "payload")[0].as_object()["file"] = "mixw_counts"; });
       },
       "payload-names", 1, InShard(1, "artifact.json")},
      {"payload entry dropped",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"), [](json::object& a) {
           Ids(a, "payload").pop_back();
           a["payload_sha256"] = PayloadDigest(PayloadOf(a));
         });
       },
       "payload-names", 1, InShard(1, "artifact.json")},
      {"payload file name ../x",
       [](T&, const fs::path& c) {
         WriteText(c / "x", "escaped\n");  // the escaping name points at a real file
         EditJson(c / InShard(1, "artifact.json"), [](json::object& a) { Ids(a, "payload")[0].as_object()["file"] = "../x"; });
       },
       "path-escape", 1, InShard(1, "artifact.json")},
      {"payload file name ..",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"), [](json::object& a) { Ids(a, "payload")[1].as_object()["file"] = ".."; });
       },
       "path-escape", 1, InShard(1, "artifact.json")},
      {"payload file name is an absolute path to another shard's identical-size file",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"),
                  [&](json::object& a) { Ids(a, "payload")[2].as_object()["file"] = (c / InShard(0, "tmat_counts")).string(); });
       },
       "path-escape", 1, InShard(1, "artifact.json")},
      {"exact_counts files swapped between shards 0 and 1",
       [](T&, const fs::path& c) { SwapFiles(c / InShard(0, "exact_counts"), c / InShard(1, "exact_counts")); },
       // Both files have the same size (same model), so the digest is what differs.
       "payload-sha256", 0, InShard(0, "exact_counts")},
      {"exact_counts files swapped between shards 0 and 1 together with their payload entries",
       [](T&, const fs::path& c) {
         SwapFiles(c / InShard(0, "exact_counts"), c / InShard(1, "exact_counts"));
         const json::value entry0 = ReadObject(c / InShard(0, "artifact.json")).at("payload").at(3);
         const json::value entry1 = ReadObject(c / InShard(1, "artifact.json")).at("payload").at(3);
         EditJson(c / InShard(0, "artifact.json"), [&](json::object& a) { Ids(a, "payload")[3] = entry1; });
         EditJson(c / InShard(1, "artifact.json"), [&](json::object& a) { Ids(a, "payload")[3] = entry0; });
       },
       // Each entry now matches its file: what binds the payload to its shard is payload_sha256,
       // which still covers the shard's own entries.
       "payload-digest", 0, InShard(0, "artifact.json")},
      {"reduced statistics replaced by one shard's",
       [](T&, const fs::path& c) { fs::copy_file(c / InShard(0, "exact_counts"), c / "accum/exact_counts", fs::copy_options::overwrite_existing); },
       "reduction", -1, "accum"},
      {"reduced statistics replaced by those of pass 2",
       [](T& t, const fs::path& c) {
         fs::copy_file(PassDir(t.Run("two-pass"), 2) / "accum/exact_counts", c / "accum/exact_counts", fs::copy_options::overwrite_existing);
       },
       "reduction", -1, "accum"},
  });
}

// --- artifact.json and the shard directory -------------------------------------------------------

TEST_F(ArtifactValidationTest, ArtifactJsonRules) {
  using T = ArtifactValidationTest;
  ExpectAllRejected({
      {"artifact.json missing", [](T&, const fs::path& c) { fs::remove(c / InShard(1, "artifact.json")); }, "missing", 1,
       InShard(1, "artifact.json")},
      {"artifact.json cut in the middle",
       [](T&, const fs::path& c) { Truncate(c / InShard(1, "artifact.json"), fs::file_size(c / InShard(1, "artifact.json")) / 2); },
       "malformed", 1, InShard(1, "artifact.json")},
      {"artifact.json is not an object", [](T&, const fs::path& c) { WriteText(c / InShard(1, "artifact.json"), "[]\n"); }, "malformed", 1,
       InShard(1, "artifact.json")},
      {"artifact.json with an unknown key",
       [](T&, const fs::path& c) { EditJson(c / InShard(1, "artifact.json"), [](json::object& a) { a["extra"] = 1; }); }, "malformed", 1,
       InShard(1, "artifact.json")},
      {"artifact.json without a key",
       [](T&, const fs::path& c) { EditJson(c / InShard(1, "artifact.json"), [](json::object& a) { a.erase("retried_ids"); }); },
       "malformed", 1, InShard(1, "artifact.json")},
      {"artifact.json pass is a string",
       [](T&, const fs::path& c) { EditJson(c / InShard(1, "artifact.json"), [](json::object& a) { a["pass"] = "1"; }); }, "malformed", 1,
       InShard(1, "artifact.json")},
      {"artifact.json of an unknown format",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"), [](json::object& a) { a["format"] = "pstrain-shard-artifact-1"; });
       },
       "malformed", 1, InShard(1, "artifact.json")},
      {"artifact.json oversized (sparse)",
       [](T&, const fs::path& c) { fs::resize_file(c / InShard(1, "artifact.json"), kMaxArtifactJsonBytes + 1); }, "oversized", 1,
       InShard(1, "artifact.json")},
      {"artifact.json oversized (valid JSON padded with whitespace)",
       [](T&, const fs::path& c) {
         const fs::path path = c / InShard(1, "artifact.json");
         const std::string text = ReadFileText(path);
         std::ofstream out(path, std::ios::binary | std::ios::app);
         const std::string spaces(1 << 20, ' ');
         for (std::size_t written = text.size(); written <= kMaxArtifactJsonBytes; written += spaces.size()) out << spaces;
         ASSERT_TRUE(out.good());
       },
       "oversized", 1, InShard(1, "artifact.json")},
      {"artifact.json is a symlink to an identical file",
       [](T&, const fs::path& c) {
         const fs::path outside = c.parent_path() / "identical-artifact.json";
         fs::rename(c / InShard(1, "artifact.json"), outside);
         fs::create_symlink(outside, c / InShard(1, "artifact.json"));
       },
       "symlink", 1, InShard(1, "artifact.json")},
      {"shard directory missing", [](T&, const fs::path& c) { fs::remove_all(c / ShardDirName(2)); }, "missing", 2, ShardDirName(2)},
      {"shard directory replaced by a symlink to an identical copy",
       [](T&, const fs::path& c) {
         const fs::path outside = c.parent_path() / "identical-shard-001";
         fs::rename(c / ShardDirName(1), outside);
         fs::create_directory_symlink(outside, c / ShardDirName(1));
       },
       "symlink", 1, ShardDirName(1)},
      {"shard directory replaced by a file",
       [](T&, const fs::path& c) {
         fs::remove_all(c / ShardDirName(1));
         WriteText(c / ShardDirName(1), "not a directory\n");
       },
       "symlink", 1, ShardDirName(1)},
  });
}

// --- Pass, shard and fingerprints ------------------------------------------------------------------

TEST_F(ArtifactValidationTest, IdentityRules) {
  using T = ArtifactValidationTest;
  ExpectAllRejected({
      {"stale pass number (pass and pass fingerprint rewritten for pass 2)",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"), [](json::object& a) {
           a["pass"] = 2;
           json::object& fp = a.at("fingerprints").as_object();
           fp["pass"] = PassFingerprint(2, 3, std::string(fp.at("model").as_string()), std::string(fp.at("config").as_string()),
                                        std::string(fp.at("manifest").as_string()));
         });
       },
       "stale-pass", 1, InShard(1, "artifact.json")},
      {"artifact of pass 1 replayed into pass 2",
       [](T& t, const fs::path& c) { ReplaceDir(c / ShardDirName(1), PassDir(t.Run("two-pass"), 1) / ShardDirName(1)); }, "stale-pass", 1,
       InShard(1, "artifact.json"), "two-pass", 2},
      {"shard 2's artifact in shard 1's directory", [](T&, const fs::path& c) { ReplaceDir(c / ShardDirName(1), c / ShardDirName(2)); },
       "shard-id", 1, InShard(1, "artifact.json")},
      {"shard id edited", [](T&, const fs::path& c) { EditJson(c / InShard(1, "artifact.json"), [](json::object& a) { a["shard"] = 2; }); },
       "shard-id", 1, InShard(1, "artifact.json")},
      {"artifact from a 2-shard run",
       [](T& t, const fs::path& c) { ReplaceDir(c / ShardDirName(1), PassDir(t.Run("two-jobs"), 1) / ShardDirName(1)); }, "shard-count", 1,
       InShard(1, "artifact.json")},
      {"artifact from another input model",
       [](T& t, const fs::path& c) { ReplaceDir(c / ShardDirName(1), PassDir(t.Run("other-model"), 1) / ShardDirName(1)); },
       "model-fingerprint", 1, InShard(1, "artifact.json")},
      {"artifact from another configuration (--abeam)",
       [](T& t, const fs::path& c) { ReplaceDir(c / ShardDirName(1), PassDir(t.Run("other-config"), 1) / ShardDirName(1)); },
       "config-fingerprint", 1, InShard(1, "artifact.json")},
      {"artifact from another manifest",
       [](T& t, const fs::path& c) { ReplaceDir(c / ShardDirName(1), PassDir(t.Run("other-manifest"), 1) / ShardDirName(1)); },
       "manifest-fingerprint", 1, InShard(1, "artifact.json")},
      // A worker parses only its own lines of the manifest; the file's fingerprint stands for the rest.
      {"shard 1 of a manifest that differs from this pass's in shard 0's lines only",
       [](T& t, const fs::path& c) {
         const fs::path other = PassDir(t.Run("renamed-first"), 1) / ShardDirName(1);
         EXPECT_EQ(ReadFileBytes(other / "exact_counts"), ReadFileBytes(c / ShardDirName(1) / "exact_counts"));
         EXPECT_EQ(ReadObject(other / "artifact.json").at("assigned_ids"), ReadObject(c / ShardDirName(1) / "artifact.json").at("assigned_ids"));
         ReplaceDir(c / ShardDirName(1), other);
       },
       "manifest-fingerprint", 1, InShard(1, "artifact.json")},
      {"pass fingerprint of another pass",
       [](T& t, const fs::path& c) {
         const json::object other = ReadObject(PassDir(t.Run("two-pass"), 2) / InShard(1, "artifact.json"));
         EditJson(c / InShard(1, "artifact.json"),
                  [&](json::object& a) { a.at("fingerprints").as_object()["pass"] = other.at("fingerprints").at("pass"); });
       },
       "pass-fingerprint", 1, InShard(1, "artifact.json")},
      // Same inputs, same numbers, same payload bytes: only the build that computed it differs.
      {"artifact computed by another build (pstrain with one byte appended)",
       [](T& t, const fs::path& c) { ReplaceDir(c / ShardDirName(1), PassDir(t.Run("other-build"), 1) / ShardDirName(1)); }, "code-identity", 1,
       InShard(1, "artifact.json")},
  });
}

// The code identity a finished pass is checked against is the one its pass.json records (the
// build that ran the pass), not the validating binary's: a pass stays valid when pstrain is
// rebuilt, and a pass trained by another build is valid for this one.
TEST_F(ArtifactValidationTest, AFinishedPassIsValidatedAgainstItsOwnBuildNotTheValidatingOne) {
  const fs::path copy = CopyPass("base", 1, "validated-by-another-build");
  CommandResult r = RunCommand(ShellQuote(OtherBuild().string()) + " validate " + ShellQuote(copy.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("VALID " + copy.string() + ": 3 shards"));
  const fs::path other = CopyPass("other-build", 1, "trained-by-another-build");
  r = Validate(other);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // The two builds' passes record different identities, each the one of all its shards.
  const std::string base_identity(ReadObject(copy / "pass.json").at("code_identity").as_string());
  const std::string other_identity(ReadObject(other / "pass.json").at("code_identity").as_string());
  EXPECT_NE(base_identity, other_identity);
  for (const std::string& shard : {ShardDirName(0), ShardDirName(1), ShardDirName(2)}) {
    EXPECT_EQ(ReadObject(copy / shard / "artifact.json").at("code_identity").as_string(), base_identity) << shard;
    EXPECT_EQ(ReadObject(other / shard / "artifact.json").at("code_identity").as_string(), other_identity) << shard;
  }
  // pass.json's identity is the expectation: changing it alone rejects the first shard.
  EditJson(copy / "pass.json", [&](json::object& p) { p["code_identity"] = other_identity; });
  r = Validate(copy);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("shard 0 rejected by check \"code-identity\" (" + (copy / InShard(0, "artifact.json")).string() + ")"));
  // A pass.json without one (written before code identities were recorded) is unreadable.
  EditJson(copy / "pass.json", [](json::object& p) { p.erase("code_identity"); });
  r = Validate(copy);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr((copy / "pass.json").string() + ": unreadable"));
}

// --- Coverage, outcomes, frames, log-likelihood -----------------------------------------------------

TEST_F(ArtifactValidationTest, CoverageAndOutcomeRules) {
  using T = ArtifactValidationTest;
  ExpectAllRejected({
      {"duplicate coverage (shard 1 assigned shard 0's utterances)",
       [](T&, const fs::path& c) {
         const json::object shard0 = ReadObject(c / InShard(0, "artifact.json"));
         EditJson(c / InShard(1, "artifact.json"), [&](json::object& a) { a["assigned_ids"] = shard0.at("assigned_ids"); });
       },
       "coverage", 1, InShard(1, "artifact.json")},
      {"missing coverage (an utterance dropped, outcome lists and frames kept consistent)",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"), [](json::object& a) {
           json::array& assigned = Ids(a, "assigned_ids");
           const json::string id = assigned[4].as_string();
           assigned.erase(assigned.begin() + 4);
           ASSERT_EQ(Ids(a, "processed_ids")[4].as_string(), id);
           DropProcessed(a, 4);
           json::array& retried = Ids(a, "retried_ids");
           for (auto it = retried.begin(); it != retried.end();) it = it->as_string() == id ? retried.erase(it) : it + 1;
         });
       },
       "coverage", 1, InShard(1, "artifact.json")},
      {"an utterance both processed and skipped",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"), [](json::object& a) {
           json::object skipped;
           skipped["id"] = Ids(a, "assigned_ids")[0];
           skipped["reason"] = "injected";
           Ids(a, "skipped").insert(Ids(a, "skipped").begin(), skipped);
         });
       },
       "outcomes", 1, InShard(1, "artifact.json")},
      {"an utterance neither processed nor skipped (frames kept consistent)",
       [](T&, const fs::path& c) { EditJson(c / InShard(1, "artifact.json"), [](json::object& a) { DropProcessed(a, 3); }); }, "outcomes", 1,
       InShard(1, "artifact.json")},
      {"processed utterances out of order",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"), [](json::object& a) {
           std::swap(Ids(a, "processed_ids")[0], Ids(a, "processed_ids")[1]);
           std::swap(Ids(a, "processed_frames")[0], Ids(a, "processed_frames")[1]);
         });
       },
       "outcomes", 1, InShard(1, "artifact.json")},
      {"a retried utterance that was not assigned",
       [](T&, const fs::path& c) {
         const json::object shard0 = ReadObject(c / InShard(0, "artifact.json"));
         EditJson(c / InShard(1, "artifact.json"), [&](json::object& a) { Ids(a, "retried_ids").push_back(shard0.at("assigned_ids").at(0)); });
       },
       "outcomes", 1, InShard(1, "artifact.json")},
      {"a retried utterance listed twice",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"), [](json::object& a) {
           ASSERT_FALSE(Ids(a, "retried_ids").empty());
           Ids(a, "retried_ids").push_back(json::value(Ids(a, "retried_ids")[0]));
         });
       },
       "outcomes", 1, InShard(1, "artifact.json")},
      {"frame total off by one",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"),
                  [](json::object& a) { a["total_frames"] = a.at("total_frames").to_number<std::uint64_t>() + 1; });
       },
       "frames", 1, InShard(1, "artifact.json")},
      {"a processed utterance without a frame count (total kept consistent)",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"), [](json::object& a) {
           json::array& frames = Ids(a, "processed_frames");
           a["total_frames"] = a.at("total_frames").to_number<std::uint64_t>() - frames.back().to_number<std::uint64_t>();
           frames.pop_back();
         });
       },
       "frames", 1, InShard(1, "artifact.json")},
      {"log-likelihood decimal does not match the exact value",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"),
                  [](json::object& a) { a["log_likelihood"] = std::string(a.at("log_likelihood").as_string()) + "1"; });
       },
       "log-likelihood", 1, InShard(1, "artifact.json")},
      {"exact log-likelihood is not hex",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"), [](json::object& a) {
           std::string hex(a.at("log_likelihood_exact").as_string());
           hex[5] = 'x';
           a["log_likelihood_exact"] = hex;
         });
       },
       "log-likelihood", 1, InShard(1, "artifact.json")},
  });
}

// --- Claims that are consistent within one file --------------------------------------------------
//
// An artifact can only be checked against itself, the payload and pass.json (the coordinator's
// record of the pass). Edits that keep one artifact self-consistent are caught by the pass.json
// comparison of `pstrain validate` ("pass-summary"); non-canonical JSON by the strict parser.

TEST_F(ArtifactValidationTest, ConsistentEditsAndNonCanonicalJson) {
  using T = ArtifactValidationTest;
  ExpectAllRejected({
      {"processed_frames entry of 2^32 + n",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"), [](json::object& a) {
           json::value& f = Ids(a, "processed_frames")[0];
           f = f.to_number<std::uint64_t>() + (std::uint64_t{1} << 32);
         });
       },
       "malformed", 1, InShard(1, "artifact.json")},
      {"artifact.json with a duplicated key",
       [](T&, const fs::path& c) {
         std::string text = ReadFileText(c / InShard(1, "artifact.json"));
         const std::size_t pos = text.find("\"shard\":1,");
         ASSERT_NE(pos, std::string::npos);
         text.insert(pos, "\"shard\":7,");
         WriteText(c / InShard(1, "artifact.json"), text);
       },
       "malformed", 1, InShard(1, "artifact.json")},
      {"accum/gauden_counts and mixw_counts replaced by shard 0's",
       [](T&, const fs::path& c) {
         for (const char* f : {"gauden_counts", "mixw_counts"}) {
           fs::copy_file(c / ShardDirName(0) / f, c / "accum" / f, fs::copy_options::overwrite_existing);
         }
       },
       "reduction", -1, "accum"},
      {"pass.json totals and outcome lists disagree with the artifacts",
       [](T&, const fs::path& c) {
         EditJson(c / "pass.json", [](json::object& p) {
           json::object& totals = p.at("totals").as_object();
           totals["total_frames"] = totals.at("total_frames").to_number<std::uint64_t>() + 1;
           p.at("processed_ids").as_array().pop_back();
         });
       },
       "pass-summary", -1, "pass.json"},
      {"an artifact's frames changed consistently",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"), [](json::object& a) {
           json::value& f = Ids(a, "processed_frames")[0];
           f = f.to_number<std::uint64_t>() + 1;
           a["total_frames"] = a.at("total_frames").to_number<std::uint64_t>() + 1;
         });
       },
       "pass-summary", -1, "pass.json"},
      {"an artifact's log-likelihood replaced consistently (shard 0's values)",
       [](T&, const fs::path& c) {
         const json::object shard0 = ReadObject(c / InShard(0, "artifact.json"));
         EditJson(c / InShard(1, "artifact.json"), [&](json::object& a) {
           a["log_likelihood"] = shard0.at("log_likelihood");
           a["log_likelihood_exact"] = shard0.at("log_likelihood_exact");
         });
       },
       "pass-summary", -1, "pass.json"},
      {"a processed utterance recorded as skipped, frames kept consistent",
       [](T&, const fs::path& c) {
         EditJson(c / InShard(1, "artifact.json"), [](json::object& a) {
           json::object skipped;
           skipped["id"] = Ids(a, "processed_ids")[0];
           skipped["reason"] = "injected";
           DropProcessed(a, 0);
           Ids(a, "skipped").insert(Ids(a, "skipped").begin(), skipped);
         });
       },
       "pass-summary", -1, "pass.json"},
  });
}

// Not claimed (docs/contract.md): exact_counts swapped between two shards of the same pass, with both
// artifacts' payload entries and payload_sha256 rewritten to match, leaves every file
// self-consistent, and no secret binds a payload to its shard. The swap cannot change the result:
// the exact reduction is a sum, so accum/ still matches. This test pins both halves of that
// statement, so a future stronger check (or a change that makes such a swap matter) shows here.
TEST_F(ArtifactValidationTest, PayloadSwapWithRewrittenDigestsIsUndetectedAndHarmless) {
  const fs::path copy = CopyPass("base", 1, "consistent-swap");
  SwapFiles(copy / InShard(0, "exact_counts"), copy / InShard(1, "exact_counts"));
  for (const std::string& shard : {ShardDirName(0), ShardDirName(1)}) {
    EditJson(copy / shard / "artifact.json", [&](json::object& a) { RedescribePayload(a, copy / shard, "exact_counts"); });
  }
  const CommandResult r = Validate(copy);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("VALID " + copy.string()));
}

}  // namespace
}  // namespace pstrain::testing
