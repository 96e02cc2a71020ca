// The double view of a reduced pass and the files written from it (shards/reducer.h): DoubleView
// gives re-estimation the reduced statistics and leaves the exact sums; TakeDoubleView moves the
// float32 accumulators out and leaves the exact sums; TailView leaves out the mean and variance sums
// in exact mode without activation flags; WriteAndReleaseExactCounts and
// WriteReducedCountFiles, on two threads at once as the training loop runs them, write exactly the
// bytes WriteReducedStatistics writes, in both reduction modes, return the digests of the bytes they
// wrote, and free the exact sums. The exact reducer: the same sums in every order, the range checked
// once, only bytes whose digest was checked, also for a shard added ahead of its validation; the
// sums' exact_counts written as the last shard is added (with one shard, as its file is read), and
// not again.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <future>
#include <iterator>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "accumulators/exact_accumulators.h"
#include "accumulators/exact_sum.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "shards/artifact_validator.h"
#include "shards/fallback_sidecar.h"
#include "shards/reducer.h"
#include "shards/run_layout.h"

namespace pstrain {
namespace {

namespace fs = std::filesystem;

ReducedPass ExactPass() {
  using Block = ExactAccumulators::Block;
  const AccumulatorShape shape{3, 2, 4, 1, 3};
  ReducedPass reduced;
  reduced.exact.emplace(shape, true);
  // Values whose float32 needs the double in between (FromFixed, then float32), values below the
  // 2^-64 resolution (1e-30, 1e-40 * i: they add nothing), and a negative one.
  for (std::size_t i = 0; i < 3 * 2 * 4; ++i) reduced.exact->AddValue(Block::kMean, i, 0.1 * double(i) + 1e-17);
  for (std::size_t i = 0; i < 3 * 2 * 4; ++i) reduced.exact->AddValue(Block::kVar, i, 1.0 / 3.0 + 1e-40 * double(i));
  reduced.exact->AddValue(Block::kVar, 7, -2.5e-3);
  reduced.exact->AddValue(Block::kDnom, 5, 7.25);
  reduced.exact->AddValue(Block::kMixw, 1, 1e-30);
  reduced.exact->AddValue(Block::kTmat, 2, 0.5);
  reduced.fallback_senones = {0, 1, 0};
  return reduced;
}

class ReducedPassFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pstrain-reducer-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Every file of `a` has the same bytes in `b`, and `b` has no other file.
  // As the training loop writes accum/: exact_counts on a second thread, the rest on this one. The
  // digests each returns (of the bytes written) are those of the files.
  static void WriteOnTwoThreads(ReducedPass& reduced, const Accumulators& view, const fs::path& dir) {
    fs::create_directories(dir);
    const bool exact = reduced.exact.has_value();
    std::string exact_digest;
    std::thread exact_counts([&] { exact_digest = WriteAndReleaseExactCounts(reduced, dir); });
    const std::vector<std::string> count_digests = WriteReducedCountFiles(reduced, view, dir);
    exact_counts.join();
    EXPECT_EQ(exact_digest, exact ? Sha256OfFile(dir / "exact_counts") : "");
    ASSERT_EQ(count_digests.size(), std::size(kBwCountFiles));
    for (std::size_t f = 0; f < count_digests.size(); ++f) EXPECT_EQ(count_digests[f], Sha256OfFile(dir / kBwCountFiles[f])) << kBwCountFiles[f];
  }
  // WriteAndReleaseExactCounts with readers not yet done, on another thread: once DIR/exact_counts
  // is in place (written before the wait) and a little after, the sums are still held.
  static void ExpectSumsHeldOnceTheirFileIsWritten(const ReducedPass& reduced, const fs::path& dir) {
    for (int i = 0; i < 2000 && !fs::exists(dir / "exact_counts"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(reduced.exact.has_value()) << "the sums were freed before their readers were done";
  }
  static void ExpectSameFiles(const fs::path& a, const fs::path& b) {
    std::size_t n = 0;
    for (const auto& entry : fs::directory_iterator(a)) {
      ++n;
      EXPECT_EQ(ReadFileBytes(entry.path()), ReadFileBytes(b / entry.path().filename())) << entry.path().filename();
    }
    EXPECT_EQ(n, static_cast<std::size_t>(std::distance(fs::directory_iterator(b), fs::directory_iterator())));
  }
  fs::path dir_;
};

TEST(ReducedPassView, ExactModeViewIsTheExactSumsAndLeavesThem) {
  ReducedPass reduced = ExactPass();
  const Accumulators expected = reduced.exact->ToAccumulators();
  const Accumulators view = DoubleView(reduced);
  ASSERT_TRUE(reduced.exact.has_value()) << "DoubleView must leave the exact sums";
  EXPECT_EQ(view.mean_data(), expected.mean_data());
  EXPECT_EQ(view.var_data(), expected.var_data());
  EXPECT_EQ(view.dnom_data()[5], 7.25);
  EXPECT_EQ(view.tmat_data(), expected.tmat_data());
}

TEST(ReducedPassView, Float32ModeViewIsTheAccumulators) {
  const AccumulatorShape shape{2, 1, 3, 1, 3};
  ReducedPass reduced;
  reduced.accumulators = Accumulators(shape, false);
  reduced.accumulators.dnom(1, 0) = 3.5;
  EXPECT_EQ(DoubleView(reduced).dnom_data(), reduced.accumulators.dnom_data());
}

TEST_F(ReducedPassFiles, ExactModeFilesFromTheViewAreTheSameBytesAndTheSumsAreFreed) {
  ReducedPass reduced = ExactPass();
  WriteReducedStatistics(reduced, dir_ / "direct");
  const Accumulators view = TakeDoubleView(reduced);  // as the training loop does
  ASSERT_TRUE(reduced.exact.has_value()) << "exact mode: the sums stay for the write";
  WriteOnTwoThreads(reduced, view, dir_ / "from-view");
  EXPECT_FALSE(reduced.exact.has_value()) << "the exact sums must be freed";
  for (const char* name : {"gauden_counts", "mixw_counts", "tmat_counts", "exact_counts", kFallbackSidecarFile}) {
    EXPECT_TRUE(fs::is_regular_file(dir_ / "from-view" / name)) << name;
  }
  ExpectSameFiles(dir_ / "direct", dir_ / "from-view");
}

// As the training loop runs it: exact_counts written while the double view is built from the same
// sums, which are freed only once the view is declared built (readers_done).
TEST_F(ReducedPassFiles, TheExactSumsAreFreedOnlyOnceTheirReadersAreDone) {
  ReducedPass reduced = ExactPass();
  WriteReducedStatistics(reduced, dir_ / "direct");
  const fs::path dir = dir_ / "while-viewed";
  fs::create_directories(dir);
  std::promise<void> view_built;
  const std::shared_future<void> view_ready = view_built.get_future().share();
  std::string digest;
  std::thread writer([&] { digest = WriteAndReleaseExactCounts(reduced, dir, view_ready); });
  const Accumulators view = DoubleView(reduced);  // while the sums are written
  ExpectSumsHeldOnceTheirFileIsWritten(reduced, dir);
  view_built.set_value();
  writer.join();
  EXPECT_FALSE(reduced.exact.has_value()) << "the exact sums must be freed";
  EXPECT_EQ(digest, Sha256OfFile(dir / "exact_counts"));
  EXPECT_EQ(ReadFileBytes(dir / "exact_counts"), ReadFileBytes(dir_ / "direct" / "exact_counts"));
  EXPECT_EQ(view.mean_data(), ExactPass().exact->ToAccumulators().mean_data());
}

// The tail's view in exact mode without activation flags leaves out the mean and variance sums;
// the count files written from it (those values asked of the exact sums while exact_counts is
// written from them on another thread, the sums freed only after) are the same bytes. With
// activation flags (the survival prior changes the sums it reads) the view is whole.
TEST_F(ReducedPassFiles, TheTailViewWithoutGaussiansWritesTheSameFiles) {
  ReducedPass reduced = ExactPass();
  reduced.fallback_senones.clear();
  WriteReducedStatistics(reduced, dir_ / "direct");
  const Accumulators view = TailView(reduced);
  EXPECT_FALSE(view.has_gaussians());
  const GaussianRows rows = ReducedGaussianRows(reduced, view);
  ASSERT_TRUE(static_cast<bool>(rows));
  {
    // Each density's row is the whole view's.
    const Accumulators whole = reduced.exact->ToAccumulators();
    const AccumulatorShape& shape = whole.shape();
    std::vector<double> mean(shape.veclen), var(shape.veclen);
    for (std::uint32_t senone = 0; senone < shape.n_senones; ++senone) {
      for (std::uint32_t k = 0; k < shape.n_density; ++k) {
        rows(senone, k, mean.data(), var.data());
        EXPECT_EQ(mean, std::vector<double>(whole.mean(senone, k), whole.mean(senone, k) + shape.veclen)) << senone << " " << k;
        EXPECT_EQ(var, std::vector<double>(whole.var(senone, k), whole.var(senone, k) + shape.veclen)) << senone << " " << k;
      }
    }
  }
  const fs::path dir = dir_ / "from-tail-view";
  fs::create_directories(dir);
  std::promise<void> count_files_written;
  const std::shared_future<void> readers_done = count_files_written.get_future().share();
  std::string exact_digest;
  std::thread writer([&] { exact_digest = WriteAndReleaseExactCounts(reduced, dir, readers_done); });
  const std::vector<std::string> count_digests = WriteReducedCountFiles(reduced, view, dir);
  ExpectSumsHeldOnceTheirFileIsWritten(reduced, dir);
  count_files_written.set_value();
  writer.join();
  EXPECT_FALSE(reduced.exact.has_value());
  EXPECT_EQ(exact_digest, Sha256OfFile(dir / "exact_counts"));
  for (std::size_t f = 0; f < count_digests.size(); ++f) EXPECT_EQ(count_digests[f], Sha256OfFile(dir / kBwCountFiles[f])) << kBwCountFiles[f];
  ExpectSameFiles(dir_ / "direct", dir);

  ReducedPass with_flags = ExactPass();
  const Accumulators whole = TailView(with_flags);
  EXPECT_TRUE(whole.has_gaussians());
  EXPECT_FALSE(static_cast<bool>(ReducedGaussianRows(with_flags, whole)));
  EXPECT_EQ(whole.mean_data(), ExactPass().exact->ToAccumulators().mean_data());
}

TEST_F(ReducedPassFiles, Float32ModeFilesFromTheViewAreTheSameBytes) {
  const AccumulatorShape shape{2, 1, 3, 1, 3};
  ReducedPass reduced;
  reduced.accumulators = Accumulators(shape, false);
  reduced.accumulators.dnom(1, 0) = 3.5;
  reduced.accumulators.mean(1, 0)[2] = 1.0 / 3.0;
  WriteReducedStatistics(reduced, dir_ / "direct");
  const Accumulators view = TakeDoubleView(reduced);  // as the training loop does
  EXPECT_TRUE(reduced.accumulators.dnom_data().empty()) << "float32 mode: the view must be moved out, not copied";
  EXPECT_EQ(view.dnom_data()[1], 3.5);
  WriteOnTwoThreads(reduced, view, dir_ / "from-view");
  EXPECT_FALSE(fs::exists(dir_ / "from-view" / "exact_counts"));
  ExpectSameFiles(dir_ / "direct", dir_ / "from-view");
}

// Shards whose sums leave the range part-way in one order and not in another: the reducer adds them
// modulo 2^128 with the carries counted, so every order gives the same sums (and the same
// log-likelihood total), and a total out of range is the same error in every order.
class ReducerOverflow : public ReducedPassFiles {
 protected:
  static constexpr std::uint32_t kShards = 3;
  // Shard s: 0.75 of the range in one mean element (negative for shard 2), and as much log-likelihood.
  // Shard s's sums as its E-step leaves them (the mean in base, the count in the limbs).
  static ExactAccumulators Sums(std::uint32_t s) {
    const double big = std::ldexp(3.0, 61);
    ExactAccumulators acc(AccumulatorShape{1, 1, 2, 1, 1}, false);
    acc.AddValue(ExactAccumulators::Block::kMean, 1, s == 2 ? -big : big);
    acc.AddValue(ExactAccumulators::Block::kDnom, 0, 1.0);
    return acc;
  }
  void WriteShards() {
    const double big = std::ldexp(3.0, 61);
    for (std::uint32_t s = 0; s < kShards; ++s) {
      const ExactAccumulators acc = Sums(s);
      const std::string digest = acc.WriteExactCounts((dir_ / ShardDirName(s)).string());
      artifacts_[s].payload = {{"exact_counts", fs::file_size(dir_ / ShardDirName(s) / "exact_counts"), digest}};
      artifacts_[s].shard = s;
      artifacts_[s].total_frames = 10;
      artifacts_[s].log_likelihood_exact = FixedToHex(ToFixed(s == 2 ? -big : big, "x"));
    }
  }
  ReducedPass Reduce(const std::vector<std::uint32_t>& order) {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    for (std::uint32_t s : order) reducer.Add(s, artifacts_[s]);
    return std::move(reducer).Finish();
  }
  ShardArtifact artifacts_[kShards];
};

TEST_F(ReducerOverflow, APartialSumOutOfRangeIsNoErrorInAnyOrder) {
  WriteShards();
  const ReducedPass reference = Reduce({0, 2, 1});  // never out of range part-way
  for (const std::vector<std::uint32_t>& order : {std::vector<std::uint32_t>{0, 1, 2}, std::vector<std::uint32_t>{1, 0, 2},
                                                    std::vector<std::uint32_t>{2, 1, 0}}) {
    const ReducedPass reduced = Reduce(order);  // 0 and 1 together: 1.5 of the range
    EXPECT_TRUE(*reduced.exact == *reference.exact);
    EXPECT_TRUE(reduced.log_likelihood.fixed() == reference.log_likelihood.fixed());
    EXPECT_EQ(reduced.total_frames, 30u);
  }
  EXPECT_EQ(reference.exact->ToAccumulators().mean_data()[1], std::ldexp(3.0, 61));
  EXPECT_EQ(reference.log_likelihood.value(), std::ldexp(3.0, 61));
}

TEST_F(ReducerOverflow, ATotalOutOfRangeIsTheSameErrorInEveryOrder) {
  WriteShards();
  for (const std::vector<std::uint32_t>& order : {std::vector<std::uint32_t>{0, 1}, std::vector<std::uint32_t>{1, 0}}) {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    for (std::uint32_t s : order) reducer.Add(s, artifacts_[s]);
    try {
      (void)std::move(reducer).Finish();
      FAIL() << "a total of 1.5 times the range was accepted";
    } catch (const TrainingError& error) {
      EXPECT_NE(std::string(error.what()).find("mean numerator"), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("overflow"), std::string::npos) << error.what();
    }
  }
}

// Before the range check, the sums a file was added to cannot be read.
TEST_F(ReducerOverflow, SumsWithCarriesLeftAreNotReadBeforeTheCheck) {
  WriteShards();
  ExactAccumulators sums = ExactAccumulators::Read((dir_ / ShardDirName(0)).string());
  sums.AddFile((dir_ / ShardDirName(1)).string());
  EXPECT_THROW(sums.ToAccumulators(), TrainingError);
  EXPECT_THROW((void)sums.EncodeExactCounts(), TrainingError);
  sums.AddFile((dir_ / ShardDirName(2)).string());  // back in range
  EXPECT_NO_THROW(sums.SettleCarries());
  EXPECT_EQ(sums.ToAccumulators().mean_data()[1], std::ldexp(3.0, 61));
}

// The reducer adds only exact_counts bytes whose digest is the artifact's: the file is hashed as it
// is added (the coordinator's validation leaves that digest to it, PayloadDigests), so a file
// changed after validation is rejected as its shard, by "payload-sha256", and the sums that took
// part of it are refused by Finish.
TEST_F(ReducerOverflow, AShardWhoseExactCountsChangedAfterValidationIsRejected) {
  WriteShards();
  const fs::path file = dir_ / ShardDirName(1) / "exact_counts";
  const std::string original = ReadFileText(file);
  struct Change {
    const char* name;
    std::string bytes;
    const char* detail;
  };
  std::string flipped = original;
  flipped[flipped.size() - 3] = static_cast<char>(flipped[flipped.size() - 3] ^ 1);
  const Change changes[] = {
      {"a byte flipped", flipped, "SHA-256 does not match the artifact"},
      {"a byte appended", original + '\0', "does not match its header"},
      {"truncated", original.substr(0, original.size() - 16), "not the file validated"},
  };
  for (const Change& change : changes) {
    SCOPED_TRACE(change.name);
    WriteFileAtomic(file, change.bytes);
    // Each order, the other shard added too (as the coordinator goes on with the others): with
    // shard 2 (-0.75 of the range) the sums would be in range, and Finish refuses them anyway.
    for (const std::vector<std::uint32_t>& order : {std::vector<std::uint32_t>{2, 1}, std::vector<std::uint32_t>{1, 2}}) {
      ShardReducer reducer(dir_, ReductionMode::kExact);
      std::size_t rejections = 0;
      for (std::uint32_t s : order) {
        try {
          reducer.Add(s, artifacts_[s]);
        } catch (const ArtifactRejected& rejected) {
          ++rejections;
          EXPECT_EQ(rejected.shard(), 1u);
          EXPECT_EQ(rejected.file(), file.string());
          EXPECT_EQ(rejected.check(), "payload-sha256");
          EXPECT_NE(std::string(rejected.what()).find(change.detail), std::string::npos) << rejected.what();
        }
      }
      EXPECT_EQ(rejections, 1u) << "the changed exact_counts was added";
      try {
        (void)std::move(reducer).Finish();
        ADD_FAILURE() << "sums holding part of a rejected shard were accepted";
      } catch (const TrainingError& error) {
        EXPECT_NE(std::string(error.what()).find("part of a rejected shard"), std::string::npos) << error.what();
      }
    }
  }
  WriteFileAtomic(file, original);
  ShardReducer reducer(dir_, ReductionMode::kExact);
  reducer.Add(1, artifacts_[1]);
  reducer.Add(2, artifacts_[2]);
  EXPECT_NO_THROW((void)std::move(reducer).Finish());
}

// The last shard's exact_counts added ahead of its validation (AddExactCountsAhead, as the
// coordinator does while it validates the artifact): the same sums as Add alone; the digest still
// checked against the artifact in Add; a file that is not the expected statistics rejected as Add
// rejects it; a shard rejected by its validation meanwhile (Discard) leaves sums Finish refuses;
// and only when the reducer can take it (exact mode, the expectation given, not yet added).
TEST_F(ReducerOverflow, AShardAddedAheadOfItsValidationIsCheckedAsAddChecksIt) {
  WriteShards();
  const AccumulatorShape shape{1, 1, 2, 1, 1};
  const ReducedPass reference = Reduce({0, 2, 1});
  {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.ExpectStatistics(shape, false);
    reducer.Add(0, artifacts_[0]);
    reducer.Add(2, artifacts_[2]);
    reducer.AddExactCountsAhead(1);
    EXPECT_THROW(reducer.AddExactCountsAhead(1), TrainingError) << "one shard ahead at a time";
    reducer.Add(1, artifacts_[1]);
    const ReducedPass reduced = std::move(reducer).Finish();
    EXPECT_TRUE(*reduced.exact == *reference.exact);
    EXPECT_TRUE(reduced.log_likelihood.fixed() == reference.log_likelihood.fixed());
    EXPECT_EQ(reduced.total_frames, 30u);
  }
  {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.ExpectStatistics(shape, false);
    reducer.AddExactCountsAhead(1);  // the only shard, ahead
    ShardArtifact other_digest = artifacts_[1];
    other_digest.payload[0].sha256 = artifacts_[2].payload[0].sha256;  // (shards 0 and 1 hold the same bytes)
    try {
      reducer.Add(1, other_digest);
      ADD_FAILURE() << "a digest other than the bytes added was accepted";
    } catch (const ArtifactRejected& rejected) {
      EXPECT_EQ(rejected.check(), "payload-sha256");
      EXPECT_EQ(rejected.shard(), 1u);
    }
    EXPECT_THROW((void)std::move(reducer).Finish(), TrainingError);
  }
  {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.ExpectStatistics(shape, false);
    reducer.Add(0, artifacts_[0]);
    reducer.AddExactCountsAhead(2);
    reducer.Discard(2);  // its validation rejected it
    try {
      (void)std::move(reducer).Finish();
      ADD_FAILURE() << "sums holding a rejected shard were accepted";
    } catch (const TrainingError& error) {
      EXPECT_NE(std::string(error.what()).find("part of a rejected shard"), std::string::npos) << error.what();
    }
  }
  // Another shape in the file, a FIFO in its place: rejected as Add rejects them, without blocking.
  const fs::path file = dir_ / ShardDirName(1) / "exact_counts";
  const std::string original = ReadFileText(file);
  {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.ExpectStatistics(AccumulatorShape{2, 1, 2, 1, 1}, false);
    try {
      reducer.AddExactCountsAhead(1);
      ADD_FAILURE() << "statistics of another shape were added";
    } catch (const ArtifactRejected& rejected) {
      EXPECT_EQ(rejected.check(), "payload-sha256");
      EXPECT_EQ(rejected.file(), file.string());
      EXPECT_NE(std::string(rejected.what()).find("dimensions do not match"), std::string::npos) << rejected.what();
    }
  }
  fs::remove(file);
  ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
  {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.ExpectStatistics(shape, false);
    try {
      reducer.AddExactCountsAhead(1);
      ADD_FAILURE() << "a FIFO was read";
    } catch (const ArtifactRejected& rejected) {
      EXPECT_EQ(rejected.check(), "payload-sha256");  // (and this thread did not block on it)
    }
  }
  fs::remove(file);
  WriteFileAtomic(file, original);
  ShardReducer unexpecting(dir_, ReductionMode::kExact);
  EXPECT_THROW(unexpecting.AddExactCountsAhead(1), TrainingError) << "no expectation to size the sums from";
  ShardReducer float32(dir_, ReductionMode::kFloat32);
  float32.ExpectStatistics(shape, false);
  EXPECT_THROW(float32.AddExactCountsAhead(1), TrainingError) << "float32 mode";
}

// A shard's sums lent by the process that ran it (LendExactSums, a pass's only shard run in the
// coordinator, as its E-step left them): Add takes them, not the file (replaced after the lending
// by another shard's bytes, the sums are still the lent ones), once the lent digest is the
// artifact's; with WriteSumsInto of one shard the sums' file is a second name of the shard's (the
// same inode; no hidden name left), with that digest. A lent digest other than the artifact's, or
// a file put in the shard's place since it was written, is a payload-sha256 rejection and leaves
// no sums' file; where the file system refuses the link (another one: EXDEV), the sums' file is
// written after the reduction, with the same bytes and digest. Sums of another shape, a reduction
// that already holds a shard, and float32 mode are refused.
TEST_F(ReducerOverflow, SumsLentByTheShardsProcessAreTakenAndItsFileLinked) {
  WriteShards();
  const AccumulatorShape shape{1, 1, 2, 1, 1};
  const ReducedPass reference = Reduce({1});
  const fs::path file = dir_ / ShardDirName(1) / "exact_counts";
  const std::string original = ReadFileText(file);
  const auto lent = [&](const std::string& sha256) {
    LentShardSums sums;
    sums.sums.emplace(Sums(1));
    sums.sums->Compact();
    sums.exact_counts.sha256 = sha256;
    struct stat status {};
    EXPECT_EQ(::stat(file.c_str(), &status), 0);
    sums.exact_counts.device = status.st_dev;
    sums.exact_counts.inode = status.st_ino;
    return sums;
  };
  const std::string digest = artifacts_[1].payload[0].sha256;
  {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.ExpectStatistics(shape, false);
    reducer.WriteSumsInto(dir_ / "accum-lent", 1);
    reducer.LendExactSums(1, lent(digest));
    reducer.Add(1, artifacts_[1]);
    ReducedPass reduced = std::move(reducer).Finish();
    EXPECT_TRUE(*reduced.exact == *reference.exact);
    EXPECT_EQ(reduced.exact_counts_file, dir_ / "accum-lent" / "exact_counts");
    EXPECT_EQ(reduced.exact_counts_sha256, digest);
    struct stat shard_file {}, sums_file {};
    ASSERT_EQ(::stat(file.c_str(), &shard_file), 0);
    ASSERT_EQ(::stat(reduced.exact_counts_file.c_str(), &sums_file), 0);
    EXPECT_EQ(shard_file.st_ino, sums_file.st_ino) << "the sums' file is not the shard's";
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "accum-lent"), fs::directory_iterator()), 1) << "a hidden name was left";
    EXPECT_EQ(WriteAndReleaseExactCounts(reduced, dir_ / "accum-lent"), digest);
  }
  {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.ExpectStatistics(shape, false);
    reducer.LendExactSums(1, lent(digest));
    WriteFileAtomic(file, ReadFileText(dir_ / ShardDirName(2) / "exact_counts"));  // (the same size, other values)
    reducer.Add(1, artifacts_[1]);
    EXPECT_TRUE(*std::move(reducer).Finish().exact == *reference.exact) << "the file was read, not the lent sums taken";
    WriteFileAtomic(file, original);
  }
  {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.ExpectStatistics(shape, false);
    reducer.WriteSumsInto(dir_ / "accum-replaced", 1);
    reducer.LendExactSums(1, lent(digest));
    WriteFileAtomic(file, original);  // the same bytes, another file
    try {
      reducer.Add(1, artifacts_[1]);
      ADD_FAILURE() << "a file put in the written one's place was linked";
    } catch (const ArtifactRejected& rejected) {
      EXPECT_EQ(rejected.check(), "payload-sha256");
      EXPECT_NE(std::string(rejected.what()).find("not the file written"), std::string::npos) << rejected.what();
    }
    EXPECT_FALSE(fs::exists(dir_ / "accum-replaced" / "exact_counts"));
    EXPECT_THROW((void)std::move(reducer).Finish(), TrainingError);
  }
  {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.ExpectStatistics(shape, false);
    reducer.WriteSumsInto(dir_ / "accum-wrong", 1);
    reducer.LendExactSums(1, lent(artifacts_[2].payload[0].sha256));
    try {
      reducer.Add(1, artifacts_[1]);
      ADD_FAILURE() << "sums whose digest is not the artifact's were taken";
    } catch (const ArtifactRejected& rejected) {
      EXPECT_EQ(rejected.check(), "payload-sha256");
      EXPECT_EQ(rejected.shard(), 1u);
    }
    EXPECT_FALSE(fs::exists(dir_ / "accum-wrong" / "exact_counts"));
  }
  const fs::path elsewhere = fs::path("/dev/shm") / ("pstrain-reducer-test-" + std::to_string(::getpid()));
  struct stat here {}, there {};
  if (fs::is_directory("/dev/shm") && ::stat(dir_.c_str(), &here) == 0 && ::stat("/dev/shm", &there) == 0 && here.st_dev != there.st_dev) {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.ExpectStatistics(shape, false);
    reducer.WriteSumsInto(elsewhere, 1);
    reducer.LendExactSums(1, lent(digest));
    reducer.Add(1, artifacts_[1]);
    ReducedPass reduced = std::move(reducer).Finish();
    EXPECT_TRUE(reduced.exact_counts_file.empty()) << "linked across file systems";
    EXPECT_EQ(WriteAndReleaseExactCounts(reduced, elsewhere), digest);
    EXPECT_TRUE(ReadFileText(elsewhere / "exact_counts") == original);
    fs::remove_all(elsewhere);
  } else {
    ADD_FAILURE() << "no /dev/shm on another file system than " << dir_ << ": the refused link is not tested";
  }
  ShardReducer other_shape(dir_, ReductionMode::kExact);
  other_shape.ExpectStatistics(AccumulatorShape{2, 1, 2, 1, 1}, false);
  EXPECT_THROW(other_shape.LendExactSums(1, lent(digest)), TrainingError);
  ShardReducer holding(dir_, ReductionMode::kExact);
  holding.Add(0, artifacts_[0]);
  EXPECT_THROW(holding.LendExactSums(1, lent(digest)), TrainingError);
  ShardReducer float32(dir_, ReductionMode::kFloat32);
  EXPECT_THROW(float32.LendExactSums(1, lent(digest)), TrainingError);
}

// bw's count files of a shard whose sums were lent (LendExactSums with LentShardSums::count_files,
// the shard's own process's digests and files): with WriteSumsInto of one shard, each is a second
// name of the shard's file beside exact_counts (the same inode), with the lent digest, which
// WriteReducedCountFiles then returns without writing anything (it would write other bytes from
// this empty view); a lent digest other than the artifact's, or a file put in a count file's place
// since it was written, is a payload-sha256 rejection, with or without WriteSumsInto, that leaves
// nothing linked; without lent count files they are left to the pass's tail (no digests).
TEST_F(ReducerOverflow, TheLentShardsCountFilesAreLinkedBesideItsExactCounts) {
  WriteShards();
  const AccumulatorShape shape{1, 1, 2, 1, 1};
  const fs::path shard_dir = dir_ / ShardDirName(1);
  const std::vector<std::string> count_digests = Sums(1).WriteCountFiles(shard_dir.string());
  ShardArtifact artifact = artifacts_[1];
  for (std::size_t f = 0; f < std::size(kBwCountFiles); ++f) {
    artifact.payload.push_back({kBwCountFiles[f], fs::file_size(shard_dir / kBwCountFiles[f]), count_digests[f]});
  }
  const auto identity = [](const fs::path& path) {
    struct stat status {};
    EXPECT_EQ(::stat(path.c_str(), &status), 0) << path;
    return std::pair<std::uint64_t, std::uint64_t>(status.st_dev, status.st_ino);
  };
  const auto lent = [&](bool with_count_files, const std::string& gauden_sha256) {
    LentShardSums sums;
    sums.sums.emplace(Sums(1));
    sums.sums->Compact();
    sums.exact_counts.sha256 = artifact.payload[0].sha256;
    std::tie(sums.exact_counts.device, sums.exact_counts.inode) = identity(shard_dir / "exact_counts");
    for (std::size_t f = 0; with_count_files && f < std::size(kBwCountFiles); ++f) {
      const auto [device, inode] = identity(shard_dir / kBwCountFiles[f]);
      sums.count_files.push_back({f == 0 ? gauden_sha256 : count_digests[f], device, inode});
    }
    return sums;
  };
  const auto reduce = [&](const fs::path& into, LentShardSums sums) {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.ExpectStatistics(shape, false);
    reducer.WriteSumsInto(into, 1);
    reducer.LendExactSums(1, std::move(sums));
    reducer.Add(1, artifact);
    return std::move(reducer).Finish();
  };
  {
    const fs::path into = dir_ / "accum-counts";
    ReducedPass reduced = reduce(into, lent(true, count_digests[0]));
    EXPECT_EQ(reduced.count_files_sha256, count_digests);
    for (const char* name : kBwCountFiles) {
      EXPECT_EQ(identity(into / name), identity(shard_dir / name)) << name << " is not the shard's file";
    }
    const Accumulators view(shape, false);  // (all zero: other bytes than the shard's)
    EXPECT_EQ(WriteReducedCountFiles(reduced, view, into), count_digests);
    for (std::size_t f = 0; f < std::size(kBwCountFiles); ++f) {
      EXPECT_EQ(Sha256OfFile(into / kBwCountFiles[f]), count_digests[f]) << kBwCountFiles[f] << " was written again";
    }
    EXPECT_EQ(std::distance(fs::directory_iterator(into), fs::directory_iterator()), 4) << "a hidden name was left";
    EXPECT_THROW(WriteReducedCountFiles(reduced, view, dir_ / "elsewhere"), TrainingError)
        << "linked into one directory, asked for another";
  }
  {
    const ReducedPass reduced = reduce(dir_ / "accum-exact-only", lent(false, ""));
    EXPECT_TRUE(reduced.count_files_sha256.empty());
    EXPECT_FALSE(fs::exists(dir_ / "accum-exact-only" / "gauden_counts"));
    EXPECT_EQ(reduced.exact_counts_sha256, artifact.payload[0].sha256);
  }
  // Lent, then `meanwhile`, then added: a payload-sha256 rejection of `file`, with WriteSumsInto
  // `into` (nothing linked there) or, `into` empty, without (validation may have left the count
  // files to Add either way).
  const auto rejected = [&](const char* what, const fs::path& into, LentShardSums sums, const std::function<void()>& meanwhile,
                            const char* file) {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.ExpectStatistics(shape, false);
    if (!into.empty()) reducer.WriteSumsInto(into, 1);
    reducer.LendExactSums(1, std::move(sums));
    meanwhile();
    try {
      reducer.Add(1, artifact);
      ADD_FAILURE() << what << ": taken";
    } catch (const ArtifactRejected& rejection) {
      EXPECT_EQ(rejection.check(), "payload-sha256") << what;
      EXPECT_EQ(rejection.file(), (shard_dir / file).string()) << what;
    }
    if (!into.empty()) {
      EXPECT_FALSE(fs::exists(into / "exact_counts")) << what << ": exact_counts linked";
      for (const char* name : kBwCountFiles) EXPECT_FALSE(fs::exists(into / name)) << what << ": " << name << " linked";
    }
    EXPECT_THROW((void)std::move(reducer).Finish(), TrainingError) << what;
  };
  rejected("a lent digest not the artifact's", dir_ / "accum-wrong", lent(true, count_digests[1]), [] {}, "gauden_counts");
  rejected("a lent digest not the artifact's, nothing linked", {}, lent(true, count_digests[1]), [] {}, "gauden_counts");
  const std::string mixw = ReadFileText(shard_dir / "mixw_counts");
  rejected("a count file replaced since, nothing linked", {}, lent(true, count_digests[0]),
           [&] { WriteFileAtomic(shard_dir / "mixw_counts", mixw); }, "mixw_counts");
  {
    // An error while linking (a directory in mixw_counts' place: the rename fails) leaves nothing
    // linked, and the sums are refused.
    const fs::path into = dir_ / "accum-error";
    fs::create_directories(into / "mixw_counts");
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.ExpectStatistics(shape, false);
    reducer.WriteSumsInto(into, 1);
    reducer.LendExactSums(1, lent(true, count_digests[0]));
    EXPECT_THROW(reducer.Add(1, artifact), TrainingError);
    EXPECT_FALSE(fs::exists(into / "exact_counts")) << "exact_counts left linked";
    EXPECT_FALSE(fs::exists(into / "gauden_counts")) << "gauden_counts left linked";
    EXPECT_THROW((void)std::move(reducer).Finish(), TrainingError);
  }
  const std::string tmat = ReadFileText(shard_dir / "tmat_counts");
  rejected("a count file replaced since", dir_ / "accum-replaced", lent(true, count_digests[0]),
           [&] { WriteFileAtomic(shard_dir / "tmat_counts", tmat); }, "tmat_counts");  // the same bytes, another file
}

// The sums' exact_counts written as the last shard is added (WriteSumsInto). With one shard: its
// file's bytes as read, added ahead or not; with three, in any order, each piece once the last
// shard's is added: either way the bytes WriteExactCounts writes from the reduced sums, with their
// digest, and WriteAndReleaseExactCounts takes that digest without writing the file again (the
// same inode). More shards than announced, float32 mode or a shard added first are refused.
TEST_F(ReducerOverflow, TheSumsFileIsWrittenAsTheLastShardIsAddedAndNotAgain) {
  WriteShards();
  const AccumulatorShape shape{1, 1, 2, 1, 1};
  const fs::path written_by_the_tail = dir_ / "tail";
  struct Case {
    const char* name;
    std::vector<std::uint32_t> order;
    bool ahead;  // the last one added ahead of its validation
  };
  const Case cases[] = {{"one shard", {1}, false},       {"one shard, ahead", {1}, true},  {"three shards", {0, 2, 1}, false},
                        {"three, ahead", {2, 1, 0}, true}, {"three, other order", {1, 0, 2}, true}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ReducedPass reference = Reduce(c.order);
    const fs::path tail = written_by_the_tail / c.name;
    const std::string tail_digest = WriteAndReleaseExactCounts(reference, tail);
    const fs::path accum = dir_ / "accum" / c.name;
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.ExpectStatistics(shape, false);
    reducer.WriteSumsInto(accum, static_cast<std::uint32_t>(c.order.size()));
    for (std::size_t i = 0; i < c.order.size(); ++i) {
      const std::uint32_t s = c.order[i];
      if (c.ahead && i + 1 == c.order.size()) reducer.AddExactCountsAhead(s);
      EXPECT_EQ(fs::exists(accum / "exact_counts"), i + 1 == c.order.size() && c.ahead) << "written before the last shard";
      reducer.Add(s, artifacts_[s]);
    }
    ReducedPass reduced = std::move(reducer).Finish();
    EXPECT_EQ(reduced.exact_counts_file, accum / "exact_counts");
    EXPECT_EQ(reduced.exact_counts_sha256, tail_digest);
    EXPECT_TRUE(ReadFileText(accum / "exact_counts") == ReadFileText(tail / "exact_counts"));
    if (c.order.size() == 1) {
      EXPECT_EQ(tail_digest, artifacts_[c.order[0]].payload[0].sha256);
    }
    struct stat before {}, after {};
    ASSERT_EQ(::stat((accum / "exact_counts").c_str(), &before), 0);
    EXPECT_EQ(WriteAndReleaseExactCounts(reduced, accum), tail_digest);
    ASSERT_EQ(::stat((accum / "exact_counts").c_str(), &after), 0);
    EXPECT_EQ(before.st_ino, after.st_ino) << "written again";
    EXPECT_FALSE(reduced.exact.has_value()) << "the sums are freed";
  }
  {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.WriteSumsInto(dir_ / "accum-one", 1);
    reducer.Add(1, artifacts_[1]);
    EXPECT_THROW(reducer.Add(2, artifacts_[2]), TrainingError) << "a second shard in a pass of one";
    EXPECT_THROW((void)std::move(reducer).Finish(), TrainingError);
  }
  {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.WriteSumsInto(dir_ / "accum-there", 1);
    reducer.Add(1, artifacts_[1]);
    ReducedPass reduced = std::move(reducer).Finish();
    EXPECT_THROW((void)WriteAndReleaseExactCounts(reduced, dir_ / "elsewhere"), TrainingError);
    EXPECT_FALSE(fs::exists(dir_ / "elsewhere" / "exact_counts"));
  }
  ShardReducer float32(dir_, ReductionMode::kFloat32);
  EXPECT_THROW(float32.WriteSumsInto(dir_ / "accum-f", 1), TrainingError);
  ShardReducer added_first(dir_, ReductionMode::kExact);
  added_first.Add(1, artifacts_[1]);
  EXPECT_THROW(added_first.WriteSumsInto(dir_ / "accum-late", 3), TrainingError);
}

// The last shard's file not as validated while the sums' file is written: truncated or of another
// shape, nothing is left of the sums' file (nor a temporary); a byte flipped, it is rejected by its
// digest as without the file, and Finish refuses the sums. A sums' file that cannot be written is a
// reduction error, not a rejection; sums out of range are refused by Finish.
TEST_F(ReducerOverflow, ALastShardNotAsValidatedLeavesNoSumsFileOrFailsThePass) {
  WriteShards();
  const AccumulatorShape shape{1, 1, 2, 1, 1};
  const fs::path shard_file = dir_ / ShardDirName(1) / "exact_counts";
  const std::string original = ReadFileText(shard_file);
  std::string flipped = original;
  flipped[flipped.size() - 3] = static_cast<char>(flipped[flipped.size() - 3] ^ 1);
  ExactAccumulators other(AccumulatorShape{1, 2, 2, 1, 1}, false);  // self-consistent, another shape
  other.AddValue(ExactAccumulators::Block::kDnom, 0, 1.0);
  const std::vector<std::uint8_t> encoded = other.EncodeExactCounts();
  const std::string other_shape(encoded.begin(), encoded.end());
  struct Change {
    const char* name;
    std::string bytes;
    const char* detail;
    bool leaves_no_file;  // (a flipped byte is read whole, then its digest is refused)
  };
  const Change changes[] = {{"truncated", original.substr(0, original.size() - 16), "not the file validated", true},
                            {"another shape", other_shape, "dimensions do not match", true},
                            {"a byte flipped", flipped, "SHA-256 does not match the artifact", false}};
  for (const Change& change : changes) {
    WriteFileAtomic(shard_file, change.bytes);
    for (const std::vector<std::uint32_t>& order : {std::vector<std::uint32_t>{1}, std::vector<std::uint32_t>{0, 2, 1}}) {
      SCOPED_TRACE(std::string(change.name) + (order.size() == 1 ? ", one shard" : ", three shards"));
      const fs::path into = dir_ / ("accum " + std::string(change.name) + " " + std::to_string(order.size()));
      ShardReducer reducer(dir_, ReductionMode::kExact);
      reducer.ExpectStatistics(shape, false);
      reducer.WriteSumsInto(into, static_cast<std::uint32_t>(order.size()));
      for (std::uint32_t s : order) {
        try {
          reducer.Add(s, artifacts_[s]);
          EXPECT_NE(s, 1u) << "the changed exact_counts was added";
        } catch (const ArtifactRejected& rejected) {
          EXPECT_EQ(rejected.shard(), 1u);
          EXPECT_EQ(rejected.check(), "payload-sha256");
          EXPECT_NE(std::string(rejected.what()).find(change.detail), std::string::npos) << rejected.what();
        }
      }
      if (change.leaves_no_file) {
        EXPECT_TRUE(!fs::exists(into) || fs::is_empty(into));
      }
      EXPECT_THROW((void)std::move(reducer).Finish(), TrainingError);
    }
  }
  WriteFileAtomic(shard_file, original);
  // The sums' file cannot be written (a regular file where its directory goes): a reduction error,
  // not the shard's rejection; Finish refuses the sums.
  WriteFileAtomic(dir_ / "not-a-directory", std::string("x"));
  for (const std::vector<std::uint32_t>& order : {std::vector<std::uint32_t>{1}, std::vector<std::uint32_t>{0, 2, 1}}) {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.ExpectStatistics(shape, false);
    reducer.WriteSumsInto(dir_ / "not-a-directory" / "accum", static_cast<std::uint32_t>(order.size()));
    bool failed = false;
    for (std::uint32_t s : order) {
      try {
        reducer.Add(s, artifacts_[s]);
      } catch (const ArtifactRejected& rejected) {
        ADD_FAILURE() << "a failed write reported as the shard's rejection: " << rejected.what();
      } catch (const std::exception&) {
        failed = true;
        EXPECT_EQ(s, 1u);
      }
    }
    EXPECT_TRUE(failed);
    EXPECT_THROW((void)std::move(reducer).Finish(), TrainingError);
  }
  // Shards 0 and 1 together are 1.5 times the range: the file is written, and Finish refuses the sums.
  ShardReducer reducer(dir_, ReductionMode::kExact);
  reducer.ExpectStatistics(shape, false);
  reducer.WriteSumsInto(dir_ / "accum-overflow", 2);
  reducer.Add(0, artifacts_[0]);
  reducer.Add(1, artifacts_[1]);
  try {
    (void)std::move(reducer).Finish();
    ADD_FAILURE() << "a total of 1.5 times the range was accepted";
  } catch (const TrainingError& error) {
    EXPECT_NE(std::string(error.what()).find("overflow"), std::string::npos) << error.what();
  }
}

// With the validated shape and variance kind given (ExpectStatistics), the sums are sized from
// them: a shard whose exact_counts, self-consistent, has another shape (the file replaced after
// validation) is rejected before anything is sized from its header.
TEST_F(ReducerOverflow, TheSumsAreSizedFromTheExpectationNotFromAHeader) {
  WriteShards();
  ExactAccumulators other(AccumulatorShape{40, 1, 2, 1, 1}, false);
  other.AddValue(ExactAccumulators::Block::kDnom, 0, 1.0);
  const fs::path dir = dir_ / ShardDirName(0);
  const std::string digest = other.WriteExactCounts(dir.string());
  ShardArtifact replaced = artifacts_[0];
  replaced.payload = {{"exact_counts", fs::file_size(dir / "exact_counts"), digest}};  // its own digest
  {
    ShardReducer reducer(dir_, ReductionMode::kExact);
    reducer.ExpectStatistics(AccumulatorShape{1, 1, 2, 1, 1}, false);
    try {
      reducer.Add(0, replaced);
      ADD_FAILURE() << "statistics of another shape were added";
    } catch (const ArtifactRejected& rejected) {
      EXPECT_EQ(rejected.check(), "payload-sha256");
      EXPECT_NE(std::string(rejected.what()).find("dimensions do not match"), std::string::npos) << rejected.what();
    }
  }
  ShardReducer unexpecting(dir_, ReductionMode::kExact);  // without the expectation the header decides
  EXPECT_NO_THROW(unexpecting.Add(0, replaced));
  EXPECT_EQ(std::move(unexpecting).Finish().exact->shape().n_senones, 40u);
}

// The float32 reducer checks the digests of bw's count files on the bytes it decodes (the
// coordinator's validation leaves them to it, PayloadDigests): a file changed after validation is
// rejected as its shard, before anything of that shard is added.
TEST_F(ReducedPassFiles, TheFloat32ReducerAddsOnlyCountFilesWhoseDigestsItChecked) {
  const AccumulatorShape shape{2, 1, 3, 1, 3};
  ShardArtifact artifacts[2];
  for (std::uint32_t s = 0; s < 2; ++s) {
    Accumulators acc(shape, false);
    acc.dnom(1, 0) = 1.5 + s;
    acc.mean(1, 0)[2] = 0.25 * (s + 1);
    const fs::path dir = dir_ / ShardDirName(s);
    const std::vector<std::string> digests = acc.Write(dir.string());
    for (std::size_t f = 0; f < std::size(kBwCountFiles); ++f) {
      artifacts[s].payload.push_back({kBwCountFiles[f], fs::file_size(dir / kBwCountFiles[f]), digests[f]});
    }
    artifacts[s].shard = s;
    artifacts[s].log_likelihood_exact = FixedToHex(0);
  }
  {
    ShardReducer reducer(dir_, ReductionMode::kFloat32);
    reducer.Add(0, artifacts[0]);
    reducer.Add(1, artifacts[1]);
    EXPECT_EQ(std::move(reducer).Finish().accumulators.dnom(1, 0), 4.0);
  }
  const fs::path file = dir_ / ShardDirName(1) / "gauden_counts";
  const std::string original = ReadFileText(file);
  std::string flipped = original;
  flipped[flipped.size() - 5] = static_cast<char>(flipped[flipped.size() - 5] ^ 1);  // inside a float: its checksum fails
  Accumulators other(shape, false);  // a valid file of the same size, other values
  other.dnom(1, 0) = 9.0;
  other.Write((dir_ / "other").string());
  const std::string replaced = ReadFileText(dir_ / "other" / "gauden_counts");
  ASSERT_EQ(replaced.size(), original.size());
  for (const auto& [name, changed, detail] : {std::tuple<const char*, std::string, const char*>{"replaced", replaced, "SHA-256 does not match"},
                                             {"a byte flipped", flipped, "not the files validated"},
                                             {"truncated", original.substr(0, original.size() - 4), "not the files validated"}}) {
    SCOPED_TRACE(name);
    WriteFileAtomic(file, changed);
    ShardReducer reducer(dir_, ReductionMode::kFloat32);
    reducer.Add(0, artifacts[0]);
    try {
      reducer.Add(1, artifacts[1]);
      ADD_FAILURE() << "the changed gauden_counts was added";
    } catch (const ArtifactRejected& rejected) {
      EXPECT_EQ(rejected.shard(), 1u);
      EXPECT_EQ(rejected.check(), "payload-sha256");
      EXPECT_NE(std::string(rejected.what()).find(detail), std::string::npos) << rejected.what();
    }
    EXPECT_EQ(reducer.reduced_shards(), 1u) << "nothing of the rejected shard may be added";
  }
}

}  // namespace
}  // namespace pstrain
