// Shards checked as they finish (coordinator/pass_runner.h, coordinator/launcher.h): the local
// launcher reports each finished worker while the others still run, an exception from that report
// stops them, and RunShardedPass gives the same reduced pass and the same rejection whatever order
// the shards finish in, also with the last shard's exact_counts added while it is validated (never
// a symbolic link's target); a model lent to the only shard run on this thread is taken by it, the
// reduced exact_counts is written as the last shard is added, and shards run on this thread take
// their ranges of the coordinator's manifest.
#include <gtest/gtest.h>

#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "accumulators/exact_accumulators.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "shards/artifact.h"
#include "common/error.h"
#include "coordinator/pass_runner.h"
#include "manifest/manifest.h"
#include "model/model_checks.h"
#include "provenance/fingerprints.h"
#include "shards/run_layout.h"
#include "support/shard_fixture.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;

PassInputs SmallPassInputs(const fs::path& dir) {
  const CorpusFixture corpus = SmallCorpus(dir);
  PassInputs inputs;
  inputs.model_dir = An4Model().string();
  inputs.manifest_path = corpus.manifest.string();
  inputs.corpus_root = corpus.corpus_root.string();
  inputs.dict = (CorpusDir() / "corpus.dic").string();
  inputs.filler = (CorpusDir() / "corpus.filler").string();
  return inputs;
}

// A pass of `shard_count` shards of the small corpus run in order in this process, in
// DIR/in-order: what the other passes of a test must equal.
struct InOrderPass {
  fs::path dir;
  PassInputs inputs;
  Manifest manifest;
  ShardedPassResult reference;
};
InOrderPass ShardsInOrder(const std::string& name, std::uint32_t shard_count) {
  const fs::path dir = FreshDir("pass-runner/" + name);
  PassInputs inputs = SmallPassInputs(dir);
  Manifest manifest = Manifest::Load(inputs.manifest_path);
  InlineLauncher in_order;
  ShardedPassResult reference = RunShardedPass(inputs, manifest, 1, shard_count, dir / "in-order", in_order);
  EXPECT_TRUE(reference.reduced.exact.has_value());
  return {dir, std::move(inputs), std::move(manifest), std::move(reference)};
}

// PSTRAIN_FAULT_INJECTION for the workers this test starts, unset again when the scope ends.
class FaultScope {
 public:
  explicit FaultScope(const char* faults) { ::setenv("PSTRAIN_FAULT_INJECTION", faults, 1); }
  ~FaultScope() { ::unsetenv("PSTRAIN_FAULT_INJECTION"); }
};

// What `run` (a RunShardedPass) throws as ArtifactRejected. A test failure, saying `accepted`, when
// it throws none (the result then matches no shard, check or file).
struct Rejection {
  std::uint32_t shard = std::numeric_limits<std::uint32_t>::max();
  std::string check, file, message;
};
Rejection RejectionOf(const char* accepted, const std::function<void()>& run) {
  try {
    run();
    ADD_FAILURE() << accepted;
  } catch (const ArtifactRejected& rejected) {
    return {rejected.shard(), rejected.check(), rejected.file(), rejected.what()};
  }
  return {};
}

// Runs every task in this process, in shard order, then reports them in the order given, after
// `before_report` (which may tamper with the shard directories).
class ReorderingLauncher : public Launcher {
 public:
  ReorderingLauncher(std::vector<std::size_t> report_order, std::function<void()> before_report = {})
      : order_(std::move(report_order)), before_report_(std::move(before_report)) {}
  void Run(const std::vector<ShardTask>& tasks, const TaskDone& on_done) override {
    for (const ShardTask& task : tasks) RunShardTask(task);
    if (before_report_) before_report_();
    for (std::size_t task : order_) on_done(task);
  }
  std::string name() const override { return "reordering"; }

 private:
  std::vector<std::size_t> order_;
  std::function<void()> before_report_;
};

TEST(ShardsCheckedAsTheyFinish, TheLocalLauncherReportsAShardWhileTheOtherStillRuns) {
  const fs::path dir = FreshDir("pass-runner/report-while-running");
  const PassInputs inputs = SmallPassInputs(dir);
  const std::vector<ShardTask> tasks = ShardTasks(inputs, 1, 2, dir / "pass");
  FaultScope faults("delay:1:3000");  // shard 1 waits 3 s before writing its artifact
  LocalProcessLauncher launcher(PSTRAIN_BINARY, 2);
  std::vector<std::size_t> reported;
  std::vector<bool> other_artifact_present;
  launcher.Run(tasks, [&](std::size_t task) {
    reported.push_back(task);
    const std::size_t other = 1 - task;
    other_artifact_present.push_back(fs::exists(fs::path(tasks[other].shard_dir) / "artifact.json"));
  });
  ASSERT_EQ(reported, (std::vector<std::size_t>{0, 1}));
  EXPECT_FALSE(other_artifact_present[0]) << "shard 0 was reported only after shard 1 had finished";
  EXPECT_TRUE(other_artifact_present[1]);
}

TEST(ShardsCheckedAsTheyFinish, AnExceptionFromTheReportStopsTheOtherWorkers) {
  const fs::path dir = FreshDir("pass-runner/report-throws");
  const PassInputs inputs = SmallPassInputs(dir);
  const std::vector<ShardTask> tasks = ShardTasks(inputs, 1, 2, dir / "pass");
  FaultScope faults("hang:1:1");  // shard 1 sleeps for an hour before its artifact
  LocalProcessLauncher launcher(PSTRAIN_BINARY, 2);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(launcher.Run(tasks, [](std::size_t task) {
    if (task == 0) throw std::runtime_error("shard 0 rejected");
  }),
               std::runtime_error);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 120.0) << "Run waited for the hanging worker";
  EXPECT_FALSE(fs::exists(fs::path(tasks[1].shard_dir) / "artifact.json"));
}

TEST(ShardsCheckedAsTheyFinish, TheCompletionOrderChangesNeitherTheReducedPassNorTheArtifacts) {
  const InOrderPass pass = ShardsInOrder("order", 3);
  const fs::path& dir = pass.dir;
  const PassInputs& inputs = pass.inputs;
  const Manifest& manifest = pass.manifest;
  const ShardedPassResult& reference = pass.reference;
  ASSERT_TRUE(reference.reduced.exact.has_value());
  for (const std::vector<std::size_t>& order : {std::vector<std::size_t>{2, 1, 0}, std::vector<std::size_t>{1, 2, 0}}) {
    ReorderingLauncher launcher(order);
    const fs::path pass_dir = dir / ("order-" + std::to_string(order[0]) + std::to_string(order[1]));
    const ShardedPassResult result = RunShardedPass(inputs, manifest, 1, 3, pass_dir, launcher);
    ASSERT_TRUE(result.reduced.exact.has_value());
    EXPECT_TRUE(*result.reduced.exact == *reference.reduced.exact);
    EXPECT_EQ(result.reduced.total_frames, reference.reduced.total_frames);
    EXPECT_TRUE(result.reduced.log_likelihood.fixed() == reference.reduced.log_likelihood.fixed());
    ASSERT_EQ(result.artifacts.size(), 3u);
    for (std::size_t shard = 0; shard < 3; ++shard) {
      EXPECT_EQ(result.artifacts[shard].shard, shard);
      EXPECT_EQ(result.artifacts[shard].assigned_ids, reference.artifacts[shard].assigned_ids);
    }
  }
}

// Appends a byte to a payload file: ValidateShard rejects it by its size.
void Lengthen(const fs::path& file) { std::ofstream(file, std::ios::app | std::ios::binary) << '\0'; }

TEST(ShardsCheckedAsTheyFinish, TheLowestRejectedShardIsReportedWhicheverFinishedFirst) {
  const fs::path dir = FreshDir("pass-runner/rejection");
  const PassInputs inputs = SmallPassInputs(dir);
  const Manifest manifest = Manifest::Load(inputs.manifest_path);
  const fs::path pass_dir = dir / "pass";
  ReorderingLauncher launcher({2, 1, 0}, [&] {
    Lengthen(pass_dir / ShardDirName(2) / "mixw_counts");
    Lengthen(pass_dir / ShardDirName(1) / "mixw_counts");
  });
  const Rejection rejected =
      RejectionOf("tampered shards were accepted", [&] { RunShardedPass(inputs, manifest, 1, 3, pass_dir, launcher); });
  EXPECT_EQ(rejected.shard, 1u);
  EXPECT_EQ(rejected.check, "payload-size");
}

// Flips the byte at the middle of a file (its size unchanged).
void FlipMiddleByte(const fs::path& file) {
  std::string bytes = ReadFileText(file);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x10);
  WriteFileAtomic(file, bytes);
}

// exact_counts' digest is checked by the reducer as it adds the file (PayloadDigests): a modified
// one is still rejected by "payload-sha256", as its own shard, the lowest first, whichever shard
// was reduced first. (The files change before validation here; a change between validation and
// reduction is reducer_test's AShardWhoseExactCountsChangedAfterValidationIsRejected.)
TEST(ShardsCheckedAsTheyFinish, AModifiedExactCountsIsRejectedAsItsShardWhicheverFinishedFirst) {
  const fs::path dir = FreshDir("pass-runner/exact-counts-modified");
  const PassInputs inputs = SmallPassInputs(dir);
  const Manifest manifest = Manifest::Load(inputs.manifest_path);
  const fs::path pass_dir = dir / "pass";
  ReorderingLauncher launcher({2, 1, 0}, [&] {
    FlipMiddleByte(pass_dir / ShardDirName(2) / "exact_counts");
    FlipMiddleByte(pass_dir / ShardDirName(1) / "exact_counts");
  });
  const Rejection rejected =
      RejectionOf("modified exact_counts files were accepted", [&] { RunShardedPass(inputs, manifest, 1, 3, pass_dir, launcher); });
  EXPECT_EQ(rejected.shard, 1u);
  EXPECT_EQ(rejected.check, "payload-sha256");
  EXPECT_EQ(rejected.file, (pass_dir / ShardDirName(1) / "exact_counts").string());
}

// The last shard's exact_counts is added while its artifact is validated (pass_runner.cpp): what
// is reported is still what validating first reports. Its artifact refused by the validation and
// its exact_counts modified too: the validation's check; only its exact_counts modified: the
// reducer's; neither: the same sums as the in-order pass (TheCompletionOrderChanges... covers more
// orders).
TEST(ShardsCheckedAsTheyFinish, TheLastShardAddedWhileValidatedIsReportedAsIfValidatedFirst) {
  const InOrderPass in_order = ShardsInOrder("added-while-validated", 3);
  const fs::path both = in_order.dir / "both", exact_only = in_order.dir / "exact-only", neither = in_order.dir / "neither";
  ReorderingLauncher both_broken({0, 1, 2}, [&] {
    Lengthen(both / ShardDirName(2) / "mixw_counts");
    FlipMiddleByte(both / ShardDirName(2) / "exact_counts");
  });
  const Rejection tampered = RejectionOf("a tampered last shard was accepted",
                                         [&] { RunShardedPass(in_order.inputs, in_order.manifest, 1, 3, both, both_broken); });
  EXPECT_EQ(tampered.shard, 2u);
  EXPECT_EQ(tampered.check, "payload-size");
  ReorderingLauncher exact_broken({0, 1, 2}, [&] { FlipMiddleByte(exact_only / ShardDirName(2) / "exact_counts"); });
  const Rejection modified = RejectionOf("a modified exact_counts was accepted",
                                         [&] { RunShardedPass(in_order.inputs, in_order.manifest, 1, 3, exact_only, exact_broken); });
  EXPECT_EQ(modified.shard, 2u);
  EXPECT_EQ(modified.check, "payload-sha256");
  EXPECT_EQ(modified.file, (exact_only / ShardDirName(2) / "exact_counts").string());
  // Its exact_counts cut short as well (the add ahead fails on it too): still the validation's check,
  // on the first file it refuses.
  const fs::path cut = in_order.dir / "cut";
  ReorderingLauncher cut_short({0, 1, 2}, [&] {
    Lengthen(cut / ShardDirName(2) / "mixw_counts");
    const fs::path exact_counts = cut / ShardDirName(2) / "exact_counts";
    fs::resize_file(exact_counts, fs::file_size(exact_counts) - 16);
  });
  const Rejection also_cut = RejectionOf("a tampered last shard was accepted",
                                         [&] { RunShardedPass(in_order.inputs, in_order.manifest, 1, 3, cut, cut_short); });
  EXPECT_EQ(also_cut.shard, 2u);
  EXPECT_EQ(also_cut.check, "payload-size");
  EXPECT_EQ(also_cut.file, (cut / ShardDirName(2) / "mixw_counts").string());
  ReorderingLauncher untouched({1, 0, 2});
  const ShardedPassResult result = RunShardedPass(in_order.inputs, in_order.manifest, 1, 3, neither, untouched);
  EXPECT_TRUE(*result.reduced.exact == *in_order.reference.reduced.exact);
  EXPECT_EQ(result.reduced.total_frames, in_order.reference.reduced.total_frames);
}

// A last shard whose exact_counts is a symbolic link is refused as validation refuses it
// ("symlink"), and the link's target is never opened: it is not added ahead of validation, which
// runs at the same time (inotify on the target sees no open).
TEST(ShardsCheckedAsTheyFinish, ALinkedExactCountsOfTheLastShardIsNeverReadAhead) {
  const InOrderPass in_order = ShardsInOrder("linked-exact-counts", 3);
  const fs::path linked = in_order.dir / "linked", target = in_order.dir / "outside-exact-counts";
  const int watch_fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ASSERT_GE(watch_fd, 0);
  ReorderingLauncher link_it({0, 1, 2}, [&] {
    const fs::path exact_counts = linked / ShardDirName(2) / "exact_counts";
    fs::copy_file(exact_counts, target);
    fs::remove(exact_counts);
    fs::create_symlink(target, exact_counts);
    ASSERT_GE(::inotify_add_watch(watch_fd, target.c_str(), IN_OPEN | IN_ACCESS), 0);
  });
  const Rejection rejected = RejectionOf("a linked exact_counts was accepted",
                                         [&] { RunShardedPass(in_order.inputs, in_order.manifest, 1, 3, linked, link_it); });
  EXPECT_EQ(rejected.shard, 2u);
  EXPECT_EQ(rejected.check, "symlink");
  alignas(inotify_event) char events[4096];
  const ssize_t got = ::read(watch_fd, events, sizeof events);
  const int read_errno = errno;
  EXPECT_LT(got, 0) << "the link's target was opened or read before validation refused it";
  EXPECT_EQ(read_errno, EAGAIN);
  ::close(watch_fd);
}

// A model lent to a pass of one shard run on this thread is taken by that shard instead of being
// loaded again: the same sums and the same artifact (its model fingerprint made of the lent
// digests) as the shard that loads it, the lent files moved out, and the lender told once the
// E-step has ended, before the shard's files are written. A pass of two shards, or one
// run elsewhere, is refused a lent model.
TEST(ShardsCheckedAsTheyFinish, ALentModelIsTakenByTheOnlyShardRunOnThisThread) {
  const InOrderPass pass = ShardsInOrder("lent-model", 1);
  const fs::path& dir = pass.dir;
  const PassInputs& inputs = pass.inputs;
  const Manifest& manifest = pass.manifest;
  const ShardedPassResult& loaded = pass.reference;  // (the model loaded by the shard)
  InlineLauncher launcher;
  ModelFileDigests digests;
  ModelFiles lent = LoadCheckedModel(inputs.model_dir, digests);
  int freed_calls = 0;
  bool files_written_when_freed = true;
  const auto freed = [&] {
    ++freed_calls;
    files_written_when_freed = fs::exists(dir / "lent" / ShardDirName(0) / "exact_counts");
  };
  const ShardedPassResult taken =
      RunShardedPass(inputs, manifest, 1, 1, dir / "lent", launcher, std::nullopt, {}, LentModel{&lent, &digests, freed});
  EXPECT_TRUE(lent.means.data.empty()) << "the shard took the lent files";
  EXPECT_EQ(freed_calls, 1);
  EXPECT_FALSE(files_written_when_freed) << "called once the E-step has ended, before the shard writes its files";
  ASSERT_TRUE(taken.reduced.exact.has_value());
  EXPECT_TRUE(*taken.reduced.exact == *loaded.reduced.exact);
  ASSERT_EQ(taken.artifacts.size(), 1u);
  EXPECT_EQ(taken.artifacts[0].fingerprints.model, ModelFingerprint(digests));
  EXPECT_EQ(ReadFileText(dir / "lent" / ShardDirName(0) / "exact_counts"),
            ReadFileText(dir / "in-order" / ShardDirName(0) / "exact_counts"));

  ModelFiles again = LoadCheckedModel(inputs.model_dir, digests);
  EXPECT_THROW(RunShardedPass(inputs, manifest, 1, 2, dir / "two", launcher, std::nullopt, {}, LentModel{&again, &digests, {}}), TrainingError);
  ReorderingLauncher elsewhere({0});
  EXPECT_THROW(RunShardedPass(inputs, manifest, 1, 1, dir / "elsewhere", elsewhere, std::nullopt, {}, LentModel{&again, &digests, {}}),
               TrainingError);
  EXPECT_FALSE(again.means.data.empty()) << "a refused loan is not taken";
}

// A shard run in the coordinator's process lends the digests of its exact_counts and bw count files
// as it wrote them, and its validation leaves those to the reducer (kLentByThisProcess), which
// checks them against the artifact's: a count file replaced by another valid one of the same size
// is a payload-sha256 rejection when validation hashes it (kAll, and kExactCountsByTheReducer,
// which hashes the count files), not with kLentByThisProcess; a wrong size is refused either way.
TEST(ShardsCheckedAsTheyFinish, LentDigestsAreNotHashedAgainByTheValidation) {
  const InOrderPass pass = ShardsInOrder("lent-digests", 3);
  const fs::path pass_dir = pass.dir / "in-order";
  const PassExpectation expected = ExpectationFor(pass.inputs, pass.manifest, 1, 3);
  const fs::path gauden = pass_dir / ShardDirName(0) / "gauden_counts";
  ASSERT_EQ(fs::file_size(gauden), fs::file_size(pass_dir / ShardDirName(1) / "gauden_counts"));
  WriteFileAtomic(gauden, ReadFileText(pass_dir / ShardDirName(1) / "gauden_counts"));
  for (const PayloadDigests digests : {PayloadDigests::kAll, PayloadDigests::kExactCountsByTheReducer}) {
    const Rejection rejected = RejectionOf("a replaced gauden_counts was accepted", [&] { ValidateShard(pass_dir, 0, expected, digests); });
    EXPECT_EQ(rejected.check, "payload-sha256");
    EXPECT_EQ(rejected.file, gauden.string());
  }
  EXPECT_NO_THROW(ValidateShard(pass_dir, 0, expected, PayloadDigests::kLentByThisProcess));
  Lengthen(gauden);
  const Rejection longer = RejectionOf("a lengthened gauden_counts was accepted",
                                       [&] { ValidateShard(pass_dir, 0, expected, PayloadDigests::kLentByThisProcess); });
  EXPECT_EQ(longer.check, "payload-size");
}

// In exact mode, given where the reduced exact_counts goes, the reducer writes it as it adds the
// last shard: with one shard run elsewhere as it reads the shard's (the same bytes, the shard's
// digest, the same sums as without); with one shard run on this thread it takes the sums the shard
// lends and links the file (the same inode as the shard's, the same bytes, digest and sums); with
// three the file the reduction's tail writes.
TEST(ShardsCheckedAsTheyFinish, TheReducedExactCountsIsWrittenAsTheLastShardIsAdded) {
  const InOrderPass pass = ShardsInOrder("only-shard-copied", 1);
  const fs::path& dir = pass.dir;
  const PassInputs& inputs = pass.inputs;
  const Manifest& manifest = pass.manifest;
  const ShardedPassResult& plain = pass.reference;  // (no directory for the reduced statistics)
  InlineLauncher launcher;
  EXPECT_TRUE(plain.reduced.exact_counts_file.empty());
  const fs::path linked_file = dir / "linked" / "accum" / "exact_counts";
  const ShardedPassResult linked =
      RunShardedPass(inputs, manifest, 1, 1, dir / "linked", launcher, std::nullopt, {}, {}, linked_file.parent_path());
  EXPECT_EQ(linked.reduced.exact_counts_file, linked_file);
  struct stat shard_file {}, sums_file {};
  ASSERT_EQ(::stat((dir / "linked" / ShardDirName(0) / "exact_counts").c_str(), &shard_file), 0);
  ASSERT_EQ(::stat(linked_file.c_str(), &sums_file), 0);
  EXPECT_EQ(shard_file.st_ino, sums_file.st_ino) << "a shard run on this thread: its file is not linked";
  ASSERT_TRUE(linked.reduced.exact.has_value());
  EXPECT_TRUE(*linked.reduced.exact == *plain.reduced.exact);
  // Its bw count files too, with the digests its artifact lists (validated), as the tail takes them.
  ASSERT_EQ(linked.reduced.count_files_sha256.size(), std::size(kBwCountFiles));
  for (std::size_t f = 0; f < std::size(kBwCountFiles); ++f) {
    struct stat shard_count {}, reduced_count {};
    ASSERT_EQ(::stat((dir / "linked" / ShardDirName(0) / kBwCountFiles[f]).c_str(), &shard_count), 0);
    ASSERT_EQ(::stat((linked_file.parent_path() / kBwCountFiles[f]).c_str(), &reduced_count), 0);
    EXPECT_EQ(shard_count.st_ino, reduced_count.st_ino) << kBwCountFiles[f] << " is not linked";
    ASSERT_EQ(linked.artifacts.size(), 1u);
    for (const PayloadFile& file : linked.artifacts[0].payload) {
      if (file.name == kBwCountFiles[f]) {
        EXPECT_EQ(linked.reduced.count_files_sha256[f], file.sha256) << file.name;
      }
    }
  }
  ReorderingLauncher elsewhere({0});  // (runs the shard, but not as the coordinator's own: nothing lent)
  const fs::path reduced_file = dir / "copied" / "accum" / "exact_counts";
  const ShardedPassResult copied =
      RunShardedPass(inputs, manifest, 1, 1, dir / "copied", elsewhere, std::nullopt, {}, {}, reduced_file.parent_path());
  EXPECT_EQ(copied.reduced.exact_counts_file, reduced_file);
  ASSERT_EQ(::stat(reduced_file.c_str(), &sums_file), 0);
  EXPECT_EQ(sums_file.st_nlink, 1u) << "a shard run elsewhere: its file is linked, not copied as read";
  EXPECT_TRUE(copied.reduced.count_files_sha256.empty()) << "nothing lent: the tail writes the count files";
  // What the tail writes from the sums there is what was linked from the lent shard.
  ShardedPassResult copied_again = RunShardedPass(inputs, manifest, 1, 1, dir / "copied-again", elsewhere);
  const Accumulators view = DoubleView(copied_again.reduced);
  fs::create_directories(dir / "copied-again" / "accum");
  EXPECT_EQ(WriteReducedCountFiles(copied_again.reduced, view, dir / "copied-again" / "accum"), linked.reduced.count_files_sha256);
  for (const char* name : kBwCountFiles) {
    EXPECT_TRUE(ReadFileText(dir / "copied-again" / "accum" / name) == ReadFileText(linked_file.parent_path() / name)) << name;
  }
  EXPECT_TRUE(ReadFileText(reduced_file) == ReadFileText(linked_file));
  EXPECT_EQ(linked.reduced.exact_counts_sha256, copied.reduced.exact_counts_sha256);
  const std::string shard_bytes = ReadFileText(dir / "copied" / ShardDirName(0) / "exact_counts");
  EXPECT_TRUE(ReadFileText(reduced_file) == shard_bytes);
  EXPECT_EQ(copied.reduced.exact_counts_sha256, Sha256Hex(shard_bytes));
  ASSERT_EQ(copied.artifacts.size(), 1u);
  std::size_t listed = 0;
  for (const PayloadFile& file : copied.artifacts[0].payload) {
    if (file.name != "exact_counts") continue;
    ++listed;
    EXPECT_EQ(copied.reduced.exact_counts_sha256, file.sha256);
  }
  EXPECT_EQ(listed, 1u);
  ASSERT_TRUE(copied.reduced.exact.has_value());
  EXPECT_TRUE(*copied.reduced.exact == *plain.reduced.exact);

  // Three shards, the last one added while it is validated: the sums' file as the reduction's tail
  // would write it.
  const fs::path three_file = dir / "three" / "accum" / "exact_counts";
  ShardedPassResult three = RunShardedPass(inputs, manifest, 1, 3, dir / "three", launcher, std::nullopt, {}, {}, three_file.parent_path());
  EXPECT_EQ(three.reduced.exact_counts_file, three_file);
  ShardedPassResult plain_three = RunShardedPass(inputs, manifest, 1, 3, dir / "plain-three", launcher);
  EXPECT_TRUE(plain_three.reduced.exact_counts_file.empty());
  const std::string tail_digest = WriteAndReleaseExactCounts(plain_three.reduced, dir / "plain-three" / "accum");
  EXPECT_EQ(three.reduced.exact_counts_sha256, tail_digest);
  EXPECT_TRUE(ReadFileText(three_file) == ReadFileText(dir / "plain-three" / "accum" / "exact_counts"));
}

// Shards run on this thread take their ranges of the coordinator's manifest instead of parsing the
// file again: with the file gone, three such shards give what three shards that parse it gave
// (the sums, each artifact's utterances and manifest fingerprint, worker.log's lines and numbers).
TEST(ShardsCheckedAsTheyFinish, ShardsRunOnThisThreadTakeTheirRangesOfTheCoordinatorsManifest) {
  const fs::path dir = FreshDir("pass-runner/lent-manifest");
  const PassInputs inputs = SmallPassInputs(dir);
  const Manifest manifest = Manifest::Load(inputs.manifest_path);
  ReorderingLauncher parsing({0, 1, 2});  // (says it runs them elsewhere: each shard parses its range of the file)
  const ShardedPassResult from_file = RunShardedPass(inputs, manifest, 1, 3, dir / "workers", parsing);
  fs::remove(inputs.manifest_path);
  InlineLauncher launcher;
  const ShardedPassResult lent = RunShardedPass(inputs, manifest, 1, 3, dir / "inline", launcher);
  ASSERT_TRUE(lent.reduced.exact.has_value());
  EXPECT_TRUE(*lent.reduced.exact == *from_file.reduced.exact);
  ASSERT_EQ(lent.artifacts.size(), 3u);
  for (std::uint32_t shard = 0; shard < 3; ++shard) {
    SCOPED_TRACE("shard " + std::to_string(shard));
    EXPECT_EQ(lent.artifacts[shard].assigned_ids, from_file.artifacts[shard].assigned_ids);
    EXPECT_EQ(lent.artifacts[shard].fingerprints.manifest, from_file.artifacts[shard].fingerprints.manifest);
    EXPECT_EQ(ReadFileText(dir / "inline" / ShardDirName(shard) / "worker.log"),
              ReadFileText(dir / "workers" / ShardDirName(shard) / "worker.log"));
  }
}

TEST(ShardsCheckedAsTheyFinish, AShardNeverReportedFailsThePass) {
  const fs::path dir = FreshDir("pass-runner/unreported");
  const PassInputs inputs = SmallPassInputs(dir);
  const Manifest manifest = Manifest::Load(inputs.manifest_path);
  ReorderingLauncher launcher({0});  // shard 1 runs but is never reported
  EXPECT_THROW(RunShardedPass(inputs, manifest, 1, 2, dir / "pass", launcher), TrainingError);
}

// The coordinator loaded the model, then the directory changed before the workers read it: the
// shards trained on a model the coordinator will not re-estimate from, and are refused even though
// they agree with the directory as it now is.
TEST(ShardsCheckedAsTheyFinish, ShardsOfAModelChangedAfterTheCoordinatorLoadedItAreRefused) {
  const fs::path dir = FreshDir("pass-runner/model-changed");
  PassInputs inputs = SmallPassInputs(dir);
  const fs::path model = dir / "model";
  fs::copy(An4Model(), model, fs::copy_options::recursive);
  inputs.model_dir = model.string();
  const Manifest manifest = Manifest::Load(inputs.manifest_path);
  const std::string loaded = ModelFingerprint(inputs.model_dir);
  fs::copy_file(model / "variances", model / "means", fs::copy_options::overwrite_existing);  // still a valid model
  InlineLauncher launcher;
  const Rejection rejected = RejectionOf("shards of the changed model were accepted",
                                         [&] { RunShardedPass(inputs, manifest, 1, 2, dir / "pass", launcher, loaded); });
  EXPECT_EQ(rejected.shard, 0u);
  EXPECT_EQ(rejected.check, "model-fingerprint");
  // The same pass expecting the model as the directory now holds it is accepted.
  EXPECT_NO_THROW(RunShardedPass(inputs, manifest, 1, 2, dir / "pass-now", launcher, ModelFingerprint(inputs.model_dir)));
}

TEST(ShardsCheckedAsTheyFinish, TheFloat32ReducerTakesShardsInAscendingOrderOnly) {
  ShardReducer reducer("/nonexistent-pass", ReductionMode::kFloat32);
  ShardArtifact artifact;
  EXPECT_FALSE(reducer.Takes(1));
  EXPECT_THROW(reducer.Add(1, artifact), TrainingError);
  EXPECT_EQ(reducer.reduced_shards(), 0u);
  EXPECT_THROW(std::move(reducer).Finish(), TrainingError);
}

// Reports the tasks in the order given (all run first, in this process), calling after_report(task)
// after each report.
class ReportingLauncher : public Launcher {
 public:
  ReportingLauncher(std::vector<std::size_t> report_order, std::function<void(std::size_t)> after_report)
      : order_(std::move(report_order)), after_report_(std::move(after_report)) {}
  void Run(const std::vector<ShardTask>& tasks, const TaskDone& on_done) override {
    for (const ShardTask& task : tasks) RunShardTask(task);
    for (std::size_t task : order_) {
      on_done(task);
      after_report_(task);
    }
  }
  std::string name() const override { return "reporting"; }

 private:
  std::vector<std::size_t> order_;
  std::function<void(std::size_t)> after_report_;
};

// In exact mode a shard is reduced when it is reported, not when the lower shards are: shard 2's
// statistics, reported first and then deleted, are already in the sums; in float32 mode the
// same deletion fails the pass (shard 2 waits for shards 0 and 1).
TEST(ShardsCheckedAsTheyFinish, ExactModeReducesAShardWhenItIsReported) {
  InOrderPass pass = ShardsInOrder("reduced-when-reported", 3);
  const fs::path& dir = pass.dir;
  PassInputs& inputs = pass.inputs;
  const Manifest& manifest = pass.manifest;
  const ShardedPassResult& reference = pass.reference;
  const auto delete_shard_2 = [&](const fs::path& pass_dir, const char* file) {
    return [pass_dir, file](std::size_t task) {
      if (task == 2) fs::remove(pass_dir / ShardDirName(2) / file);
    };
  };
  ReportingLauncher exact_launcher({2, 0, 1}, delete_shard_2(dir / "exact", "exact_counts"));
  const ShardedPassResult exact = RunShardedPass(inputs, manifest, 1, 3, dir / "exact", exact_launcher);
  ASSERT_TRUE(exact.reduced.exact.has_value());
  EXPECT_TRUE(*exact.reduced.exact == *reference.reduced.exact);
  inputs.reduction = ReductionMode::kFloat32;
  ReportingLauncher float_launcher({2, 0, 1}, delete_shard_2(dir / "float32", "gauden_counts"));
  try {
    RunShardedPass(inputs, manifest, 1, 3, dir / "float32", float_launcher);
    FAIL() << "float32 mode reduced shard 2 before shards 0 and 1";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("gauden_counts"), std::string::npos) << error.what();
  }
}

// Replaces shard 2's exact_counts in `pass_dir` by statistics of `change`d shape or variance kind,
// its artifact describing the new file (so every digest matches).
void ReplaceShard2Statistics(const fs::path& pass_dir, const std::function<void(AccumulatorShape&, bool&)>& change) {
  const fs::path shard_dir = pass_dir / ShardDirName(2);
  const ExactAccumulators original = ExactAccumulators::Read(shard_dir.string());
  AccumulatorShape shape = original.shape();
  bool pass2var = original.pass2var();
  change(shape, pass2var);
  ExactAccumulators replaced(shape, pass2var);
  replaced.AddValue(ExactAccumulators::Block::kDnom, 0, 1.0);
  const std::string digest = replaced.WriteExactCounts(shard_dir.string());
  const fs::path json = shard_dir / "artifact.json";
  ShardArtifact artifact = ParseArtifact(ReadFileText(json), json.string());
  for (PayloadFile& file : artifact.payload) {
    if (file.name == "exact_counts") {
      file.size = fs::file_size(shard_dir / "exact_counts");
      file.sha256 = digest;
    }
  }
  artifact.payload_sha256 = PayloadDigest(artifact.payload);
  WriteFileAtomic(json, SerializeArtifact(artifact));
}

// A shard whose exact_counts has another shape than the model's statistics, or the other variance
// kind, is rejected by validation as that shard, whichever is reported first: not met by the
// reducer as a mismatch blamed on the shard added after it.
TEST(ShardsCheckedAsTheyFinish, AShardOfAnotherShapeOrVarianceKindIsRejectedAsItself) {
  const InOrderPass pass = ShardsInOrder("other-shape", 3);
  struct Change {
    const char* name;
    const char* message;
    std::function<void(AccumulatorShape&, bool&)> change;
  };
  const Change changes[] = {
      {"other-shape", "the pass's model has", [](AccumulatorShape& shape, bool&) { shape.n_senones += 1; }},
      {"other-variances", "the pass computes", [](AccumulatorShape&, bool& pass2var) { pass2var = !pass2var; }},
  };
  for (const auto& [name, message, change] : changes) {
    SCOPED_TRACE(name);
    const fs::path pass_dir = pass.dir / name;
    ReorderingLauncher launcher({2, 0, 1}, [&pass_dir, &change] { ReplaceShard2Statistics(pass_dir, change); });
    const Rejection rejected =
        RejectionOf("shard 2's statistics were accepted", [&] { RunShardedPass(pass.inputs, pass.manifest, 1, 3, pass_dir, launcher); });
    EXPECT_EQ(rejected.shard, 2u);
    EXPECT_EQ(rejected.check, "payload-format");
    EXPECT_NE(rejected.message.find(message), std::string::npos) << rejected.message;
  }
}

// The exact reducer adds shards in the order they come, each once, and ends with the sums of the
// shards in ascending order.
TEST(ShardsCheckedAsTheyFinish, TheExactReducerTakesShardsInAnyOrderEachOnce) {
  const InOrderPass pass = ShardsInOrder("exact-any-order", 3);
  const ShardedPassResult& reference = pass.reference;
  ASSERT_TRUE(reference.reduced.exact.has_value());
  ShardReducer reducer(pass.dir / "in-order", ReductionMode::kExact);
  reducer.Add(2, reference.artifacts[2]);
  reducer.Add(0, reference.artifacts[0]);
  EXPECT_FALSE(reducer.Takes(2));
  EXPECT_THROW(reducer.Add(2, reference.artifacts[2]), TrainingError);
  EXPECT_EQ(reducer.reduced_shards(), 2u);
  EXPECT_TRUE(reducer.Takes(1));
  reducer.Add(1, reference.artifacts[1]);
  const ReducedPass reduced = std::move(reducer).Finish();
  ASSERT_TRUE(reduced.exact.has_value());
  EXPECT_TRUE(*reduced.exact == *reference.reduced.exact);
  EXPECT_EQ(reduced.total_frames, reference.reduced.total_frames);
  EXPECT_TRUE(reduced.log_likelihood.fixed() == reference.reduced.log_likelihood.fixed());
}

}  // namespace
}  // namespace pstrain::testing
