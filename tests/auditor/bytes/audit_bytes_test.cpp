// `audit bytes`: byte comparison of two temp trees — exit codes (0 identical, 1 different,
// 2 trouble), exact first differing offsets, only-in-A/B, nested dirs, symlinks as entries of their
// own, the telemetry rule, and the three renderings (text, JSON fields, self-contained HTML).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bytes/bytes_command.h"
#include "report/command_runner.h"
#include "bytes/bytes_compare.h"
#include "bytes/bytes_report.h"
#include "support/shard_fixture.h"

namespace pstrain::audit {
namespace {

namespace fs = std::filesystem;
using ::pstrain::testing::InShard;
using ::pstrain::testing::PassKey;
namespace json = boost::json;

class AuditBytesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("audit_bytes_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(a());
    fs::create_directories(b());
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path a() const { return dir_ / "a"; }
  fs::path b() const { return dir_ / "b"; }

  static void Write(const fs::path& path, const std::string& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
  }
  // The same file on both sides.
  void Both(const std::string& rel, const std::string& bytes) {
    Write(a() / rel, bytes);
    Write(b() / rel, bytes);
  }

  // Runs the command; returns the exit code, with stdout/stderr in out_/err_.
  int Run(std::vector<std::string> args) {
    std::ostringstream out, err;
    const int code = RunReportingErrors("bytes", RunBytesCommand, args, out, err);
    out_ = out.str();
    err_ = err.str();
    return code;
  }
  int Run(std::vector<std::string> extra, bool) {
    std::vector<std::string> args = {a().string(), b().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return Run(args);
  }

  const BytesEntry* Find(const BytesReport& report, const std::string& path) {
    for (const BytesEntry& e : report.entries) {
      if (e.path == path) return &e;
    }
    return nullptr;
  }

  fs::path dir_;
  std::string out_, err_;
};

TEST_F(AuditBytesTest, IdenticalTreesExitZero) {
  Both("model/means", std::string("\x00\x01\x02", 3));
  Both("model/mdef", "mdef text\n");
  Both("model/sub/deeper/x", "x");
  ASSERT_EQ(Run({}, true), 0) << out_ << err_;
  EXPECT_NE(out_.find("identical: 3;"), std::string::npos) << out_;
  EXPECT_NE(out_.find("result: IDENTICAL"), std::string::npos) << out_;
  const BytesReport report = CompareBytes(a(), b(), false);
  EXPECT_FALSE(report.Different());
  EXPECT_EQ(report.identical, (std::vector<std::string>{"model/mdef", "model/means", "model/sub/deeper/x"}));
}

TEST_F(AuditBytesTest, EmptyTreesAreIdentical) { EXPECT_EQ(Run({}, true), 0) << out_ << err_; }

TEST_F(AuditBytesTest, OneByteDifferenceReportsTheExactOffset) {
  const std::string base(1000, 'q');
  for (const std::size_t at : {std::size_t{0}, std::size_t{500}, std::size_t{999}}) {
    std::string changed = base;
    changed[at] = 'Z';
    Write(a() / "f", base);
    Write(b() / "f", changed);
    const BytesReport report = CompareBytes(a(), b(), false);
    ASSERT_EQ(report.entries.size(), 1u) << "at " << at;
    const BytesEntry& e = report.entries[0];
    EXPECT_EQ(e.path, "f");
    EXPECT_EQ(e.status, EntryStatus::kDifferent);
    ASSERT_TRUE(e.first_difference.has_value());
    EXPECT_EQ(*e.first_difference, at);
    EXPECT_EQ(e.a.size, 1000u);
    EXPECT_EQ(e.b.size, 1000u);
    EXPECT_EQ(e.a.sha256.size(), 64u);
    EXPECT_EQ(e.b.sha256.size(), 64u);
    EXPECT_NE(e.a.sha256, e.b.sha256);
    EXPECT_EQ(Run({}, true), 1);
    EXPECT_NE(out_.find("first difference at byte offset " + std::to_string(at)), std::string::npos) << out_;
  }
}

TEST_F(AuditBytesTest, DifferenceBeyondTheFirstChunkIsFound) {
  std::string big(200000, '\0');
  Write(a() / "big", big);
  big[150001] = 1;
  Write(b() / "big", big);
  EXPECT_EQ(FirstDifference(a() / "big", b() / "big"), std::optional<std::uint64_t>(150001));
}

TEST_F(AuditBytesTest, PrefixFileDiffersAtTheShorterSize) {
  Write(a() / "p", "abcdef");
  Write(b() / "p", "abc");
  BytesReport report = CompareBytes(a(), b(), false);
  ASSERT_EQ(report.entries.size(), 1u);
  EXPECT_EQ(report.entries[0].first_difference, std::optional<std::uint64_t>(3));
  EXPECT_EQ(report.entries[0].a.size, 6u);
  EXPECT_EQ(report.entries[0].b.size, 3u);
  EXPECT_EQ(report.entries[0].reason, "B is a prefix of A");
  // And the other way round, down to an empty file.
  Write(a() / "p", "");
  report = CompareBytes(a(), b(), false);
  ASSERT_EQ(report.entries.size(), 1u);
  EXPECT_EQ(report.entries[0].first_difference, std::optional<std::uint64_t>(0));
  EXPECT_EQ(report.entries[0].reason, "A is a prefix of B");
}

TEST_F(AuditBytesTest, OnlyInAAndOnlyInBInNestedDirectories) {
  Both("x/y/common", "c");
  Write(a() / "x/y/only_a", "a");
  Write(b() / "x/only_b", "b");
  Write(b() / "newdir/deep/f1", "1");
  Write(b() / "newdir/f2", "2");
  fs::create_directories(a() / "emptydir");
  const BytesReport report = CompareBytes(a(), b(), false);
  EXPECT_EQ(report.identical, std::vector<std::string>{"x/y/common"});
  EXPECT_EQ(report.Count(EntryStatus::kOnlyInA), 2u);
  EXPECT_EQ(report.Count(EntryStatus::kOnlyInB), 3u);
  ASSERT_NE(Find(report, "x/y/only_a"), nullptr);
  EXPECT_EQ(Find(report, "x/y/only_a")->status, EntryStatus::kOnlyInA);
  ASSERT_NE(Find(report, "emptydir"), nullptr);
  EXPECT_EQ(Find(report, "emptydir")->a.kind, EntryKind::kDirectory);
  ASSERT_NE(Find(report, "newdir/deep/f1"), nullptr);
  EXPECT_EQ(Find(report, "newdir/deep/f1")->status, EntryStatus::kOnlyInB);
  EXPECT_EQ(Find(report, "newdir/deep/f1")->b.sha256.size(), 64u);
  ASSERT_NE(Find(report, "x/only_b"), nullptr);
  // Sorted order: the entries are in byte order of their paths.
  std::vector<std::string> paths;
  for (const BytesEntry& e : report.entries) paths.push_back(e.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"emptydir", "newdir/deep/f1", "newdir/f2", "x/only_b", "x/y/only_a"}));
  EXPECT_EQ(Run({}, true), 1);
  EXPECT_NE(out_.find("only in A:  x/y/only_a"), std::string::npos) << out_;
  EXPECT_NE(out_.find("only in B:  newdir/f2"), std::string::npos) << out_;
}

TEST_F(AuditBytesTest, SymlinkVersusFileIsADifferenceAndLinksAreNotFollowed) {
  Both("target", "same bytes");
  fs::create_symlink("target", a() / "entry");
  Write(b() / "entry", "same bytes");  // what the link points to, but a link is not a file
  BytesReport report = CompareBytes(a(), b(), false);
  ASSERT_EQ(report.entries.size(), 1u);
  EXPECT_EQ(report.entries[0].path, "entry");
  EXPECT_EQ(report.entries[0].a.kind, EntryKind::kSymlink);
  EXPECT_EQ(report.entries[0].a.link_target, "target");
  EXPECT_EQ(report.entries[0].b.kind, EntryKind::kFile);
  EXPECT_EQ(report.entries[0].reason, "symlink in A, file in B");

  // Equal links are identical; different targets differ; a link to a directory is not walked.
  fs::remove(b() / "entry");
  fs::create_symlink("target", b() / "entry");
  fs::create_directories(dir_ / "elsewhere");
  Write(dir_ / "elsewhere/inside", "not walked");
  fs::create_symlink(dir_ / "elsewhere", a() / "dirlink");
  fs::create_symlink(dir_ / "elsewhere", b() / "dirlink");
  report = CompareBytes(a(), b(), false);
  EXPECT_FALSE(report.Different());
  EXPECT_EQ(report.identical, (std::vector<std::string>{"dirlink", "entry", "target"}));
  fs::remove(b() / "entry");
  fs::create_symlink("other", b() / "entry");  // dangling is fine: it is never followed
  report = CompareBytes(a(), b(), false);
  ASSERT_EQ(report.entries.size(), 1u);
  EXPECT_EQ(report.entries[0].reason, "symlink targets differ");
}

TEST_F(AuditBytesTest, FileVersusDirectoryIsDifferentNotTrouble) {
  Write(a() / "thing", "file");
  Write(b() / "thing/inner", "dir");
  ASSERT_EQ(Run({}, true), 1) << err_;
  EXPECT_NE(out_.find("thing: file in A, directory in B"), std::string::npos) << out_;
  // The roots themselves.
  EXPECT_EQ(Run({(a() / "thing").string(), b().string()}), 1) << err_;
}

TEST_F(AuditBytesTest, TelemetryIsComparedUnlessIgnored) {
  EXPECT_TRUE(IsTelemetryFile("telemetry.json"));
  EXPECT_TRUE(IsTelemetryFile("pass-1/shard-0/worker.stderr"));
  EXPECT_FALSE(IsTelemetryFile("pass-1/telemetry.json.bak"));
  EXPECT_FALSE(IsTelemetryFile("artifact.json"));
  // A pass's Slurm records (job ids, nodes, task output), at any depth; not a file named slurm.
  EXPECT_TRUE(IsTelemetryFile(PassKey(1) + "/slurm/job.json"));
  EXPECT_TRUE(IsTelemetryFile("slurm/task-0.exit"));
  EXPECT_FALSE(IsTelemetryFile("slurm"));
  EXPECT_FALSE(IsTelemetryFile(PassKey(1) + "/slurmish/job.json"));
  EXPECT_FALSE(IsTelemetryFile(PassKey(1) + "/" + InShard(0, "gauden_counts")));
  Both("pass-1/shard-0/artifact.json", "{}");
  Write(a() / "pass-1/shard-0/telemetry.json", "{\"pid\":1}");
  Write(b() / "pass-1/shard-0/telemetry.json", "{\"pid\":2}");
  Write(a() / "pass-1/shard-1/worker.stderr", "only in A");
  EXPECT_EQ(Run({}, true), 1) << out_;
  ASSERT_EQ(Run({"--ignore-telemetry"}, true), 0) << out_ << err_;
  EXPECT_NE(out_.find("ignored 2 telemetry files"), std::string::npos) << out_;
  const BytesReport report = CompareBytes(a(), b(), true);
  EXPECT_EQ(report.ignored,
            (std::vector<std::string>{"pass-1/shard-0/telemetry.json", "pass-1/shard-1/worker.stderr"}));
  EXPECT_EQ(report.identical, std::vector<std::string>{"pass-1/shard-0/artifact.json"});
}

TEST_F(AuditBytesTest, MissingPathIsTroubleNamingIt) {
  const std::string missing = (dir_ / "nope").string();
  EXPECT_EQ(Run({a().string(), missing}), 2);
  EXPECT_NE(err_.find(missing), std::string::npos) << err_;
  EXPECT_EQ(Run({missing, b().string()}), 2);
  EXPECT_NE(err_.find(missing), std::string::npos) << err_;
  EXPECT_TRUE(out_.empty());
}


// A FIFO or a device is not comparable content: exit 2 naming the path, as docs/audit.md says (the
// tool used to exit 1 with a kind "other" the docs do not list). Both sides, one side only, a FIFO
// against a file, and a FIFO given as A.
TEST_F(AuditBytesTest, FifosAndDevicesAreTroubleNamingThePath) {
  Both("model/means", "x");
  const fs::path fifo_a = a() / "model" / "pipe";
  ASSERT_EQ(::mkfifo(fifo_a.c_str(), 0600), 0);
  EXPECT_EQ(Run({}, true), 2) << out_;  // only in A
  EXPECT_NE(err_.find(fifo_a.string() + ": a FIFO, not a regular file, directory or symlink; cannot compare"),
            std::string::npos)
      << err_;
  EXPECT_TRUE(out_.empty()) << out_;
  Write(b() / "model" / "pipe", "x");  // a FIFO against a file
  EXPECT_EQ(Run({}, true), 2) << out_;
  EXPECT_NE(err_.find(fifo_a.string() + ": a FIFO"), std::string::npos) << err_;
  fs::remove(b() / "model" / "pipe");
  ASSERT_EQ(::mkfifo((b() / "model" / "pipe").c_str(), 0600), 0);  // FIFOs on both sides
  EXPECT_EQ(Run({}, true), 2) << out_;
  EXPECT_NE(err_.find(fifo_a.string() + ": a FIFO"), std::string::npos) << err_;
  EXPECT_EQ(Run({fifo_a.string(), (b() / "model" / "means").string()}), 2) << out_;  // A itself
  EXPECT_NE(err_.find(fifo_a.string() + ": a FIFO"), std::string::npos) << err_;
  fs::remove(fifo_a);
  fs::remove(b() / "model" / "pipe");
  fs::create_symlink("/dev/null", a() / "model" / "null");  // a symlink to a device is a symlink
  fs::create_symlink("/dev/null", b() / "model" / "null");
  EXPECT_EQ(Run({}, true), 0) << out_ << err_;
  EXPECT_EQ(Run({"/dev/null", (b() / "model" / "means").string()}), 2) << out_;  // a device given as A
  EXPECT_NE(err_.find("/dev/null: a character device, not a regular file"), std::string::npos) << err_;
}

TEST_F(AuditBytesTest, BadUsageIsTrouble) {
  EXPECT_EQ(Run({a().string()}), 2);
  EXPECT_EQ(Run({a().string(), b().string(), "--format", "xml"}), 2);
  EXPECT_EQ(Run({a().string(), b().string(), "--bogus"}), 2);
  EXPECT_EQ(Run({"--help"}), 0);
  EXPECT_NE(out_.find("usage: audit bytes"), std::string::npos);
}

TEST_F(AuditBytesTest, JsonParsesAndHasTheFields) {
  Both("same", "s");
  Write(a() / "d/f", "hello");
  Write(b() / "d/f", "hellO");
  Write(a() / "onlya", "a");
  Write(b() / "onlyb", "b");
  ASSERT_EQ(Run({"--format", "json"}, true), 1) << err_;
  const json::object o = json::parse(out_).as_object();
  std::vector<std::string> keys;
  for (const auto& kv : o) keys.emplace_back(kv.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"tool", "format_version", "a", "b", "ignore_telemetry", "result", "counts",
                                            "only_in_a", "only_in_b", "different", "identical", "ignored"}));
  EXPECT_EQ(o.at("result").as_string(), "different");
  EXPECT_EQ(o.at("counts").at("identical").as_int64(), 1);
  EXPECT_EQ(o.at("counts").at("different").as_int64(), 1);
  EXPECT_EQ(o.at("only_in_a").at(0).at("path").as_string(), "onlya");
  EXPECT_EQ(o.at("only_in_b").at(0).at("path").as_string(), "onlyb");
  const json::value& d = o.at("different").at(0);
  EXPECT_EQ(d.at("path").as_string(), "d/f");
  EXPECT_EQ(d.at("first_difference_offset").as_int64(), 4);
  EXPECT_EQ(d.at("a").at("size").as_int64(), 5);
  EXPECT_EQ(d.at("a").at("sha256").as_string(), "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
  EXPECT_EQ(d.at("b").at("sha256").as_string().size(), 64u);

  // --out writes the same document to a file.
  const fs::path report = dir_ / "report.json";
  ASSERT_EQ(Run({"--format=json", "--out", report.string()}, true), 1);
  EXPECT_TRUE(out_.empty());
  std::ifstream in(report);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(json::parse(text.str()).at("counts").at("only_in_b").as_int64(), 1);
}

TEST_F(AuditBytesTest, HtmlIsSelfContainedAndNamesTheDifferingFiles) {
  Write(a() / "means", "1234");
  Write(b() / "means", "1235");
  Write(a() / "<odd>&name", "x");
  ASSERT_EQ(Run({"--format", "html"}, true), 1) << err_;
  EXPECT_EQ(out_.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(out_.find("means"), std::string::npos);
  EXPECT_NE(out_.find("&lt;odd&gt;&amp;name"), std::string::npos);
  EXPECT_EQ(out_.find("<odd>"), std::string::npos);
  EXPECT_EQ(out_.find("<script"), std::string::npos);
  EXPECT_EQ(out_.find("http://"), std::string::npos);
  EXPECT_EQ(out_.find("https://"), std::string::npos);
  EXPECT_EQ(out_.find("<link"), std::string::npos);
  EXPECT_NE(out_.find("<table>"), std::string::npos);
  EXPECT_NE(out_.find("</html>"), std::string::npos);
}

}  // namespace
}  // namespace pstrain::audit
