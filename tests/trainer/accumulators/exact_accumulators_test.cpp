// ExactAccumulators' exact_counts file: Write then Read gives the same sums when every block spans
// several of Read's 64 KiB pieces, Read and DecodeExactCounts agree, AddFile adds what Read reads
// (and into fresh sums stores it), AddFileWritingSums writes the sums after the file as it adds it,
// WriteExactCounts returns the digest of what it wrote, WriteCountFiles writes bw's count files of
// the same sums, and a file cut short or grown, or of another shape, is refused with its path.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <chrono>
#include <random>
#include <string>

#include "accumulators/exact_accumulators.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/sha256.h"

namespace pstrain {
namespace {

namespace fs = std::filesystem;

// 20 senones x 8 densities x 39 dims: 6,240 mean and 6,240 variance sums (two pieces each); with
// 80 senones seven pieces each (17 in all).
ExactAccumulators Filled(bool pass2var = true, std::uint32_t n_senones = 20, std::uint64_t seed = 12) {
  using Block = ExactAccumulators::Block;
  const AccumulatorShape shape{n_senones, 8, 39, 3, 3};
  ExactAccumulators acc(shape, pass2var);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-60, 40);  // some go past the limbs, to base
  const std::size_t n_dens = std::size_t{n_senones} * 8, n_mean = n_dens * 39, n_tmat = 3 * 3 * 4;
  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < n_dens; ++i) acc.AddValue(Block::kMixw, i, std::ldexp(mantissa(rng), exponent(rng)));
    for (std::size_t i = 0; i < n_dens; ++i) acc.AddValue(Block::kDnom, i, std::ldexp(mantissa(rng), exponent(rng)));
    for (std::size_t i = 0; i < n_mean; ++i) acc.AddValue(Block::kMean, i, std::ldexp(mantissa(rng), exponent(rng)));
    for (std::size_t i = 0; i < n_mean; ++i) acc.AddValue(Block::kVar, i, std::ldexp(mantissa(rng), exponent(rng)));
    for (std::size_t i = 0; i < n_tmat; ++i) acc.AddValue(Block::kTmat, i, std::ldexp(mantissa(rng), exponent(rng)));
  }
  return acc;
}

class ExactCountsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pstrain-exact-counts-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ExactCountsFileTest, ReadGivesBackWhatWriteStored) {
  const ExactAccumulators acc = Filled();
  acc.Write(dir_.string());
  const ExactAccumulators read = ExactAccumulators::Read(dir_.string());
  EXPECT_TRUE(read == acc);
  EXPECT_TRUE(ExactAccumulators::DecodeExactCounts(ReadFileBytes(dir_ / "exact_counts"), "exact_counts") == acc);
  EXPECT_EQ(read.EncodeExactCounts(), ReadFileBytes(dir_ / "exact_counts"));
  // One value changed in the second piece of the variance block: the comparison sees it.
  ExactAccumulators changed = Filled();
  changed.AddValue(ExactAccumulators::Block::kVar, 5000, 1.0);
  EXPECT_FALSE(read == changed);
}

// WriteExactCounts returns the SHA-256 of the file it wrote (hashed as it wrote it).
TEST_F(ExactCountsFileTest, WriteExactCountsReturnsTheDigestOfTheFile) {
  const ExactAccumulators acc = Filled();
  const std::string digest = acc.WriteExactCounts(dir_.string());
  EXPECT_EQ(digest, Sha256OfFile(dir_ / "exact_counts"));
  EXPECT_EQ(digest, Sha256Hex(acc.EncodeExactCounts().data(), acc.ExactCountsSize()));
}

// WriteCountFiles streams bw's three count files from the sums: the bytes of their float32 values
// (EncodeBwCountFiles of CountFloats), and those bytes' digests; gauden_counts' mean and variance
// blocks are asked of the sums in two pieces each.
TEST_F(ExactCountsFileTest, WriteCountFilesWritesTheBytesOfTheCountFloats) {
  for (const bool pass2var : {true, false}) {
    SCOPED_TRACE(pass2var ? "2-pass variances" : "1-pass variances");
    const ExactAccumulators acc = Filled(pass2var);
    const std::vector<std::string> digests = acc.WriteCountFiles(dir_.string());
    const BwCountFileBytes expected = EncodeBwCountFiles(acc.shape(), acc.pass2var(), acc.CountFloats());
    const std::vector<std::uint8_t>* want[] = {&expected.gauden_counts, &expected.mixw_counts, &expected.tmat_counts};
    ASSERT_EQ(digests.size(), std::size(want));
    for (std::size_t f = 0; f < std::size(want); ++f) {
      EXPECT_EQ(ReadFileBytes(dir_ / kBwCountFiles[f]), *want[f]) << kBwCountFiles[f];
      EXPECT_EQ(digests[f], Sha256Hex(want[f]->data(), want[f]->size())) << kBwCountFiles[f];
    }
  }
}

TEST_F(ExactCountsFileTest, AFileOfTheWrongSizeIsRefusedWithItsPath) {
  const ExactAccumulators acc = Filled();
  acc.Write(dir_.string());
  const fs::path path = dir_ / "exact_counts";
  const auto size = fs::file_size(path);
  for (const std::uintmax_t new_size : {size - 16, size + 16, std::uintmax_t{30}}) {
    SCOPED_TRACE(new_size);
    acc.Write(dir_.string());
    fs::resize_file(path, new_size);
    try {
      ExactAccumulators::Read(dir_.string());
      ADD_FAILURE() << "a file of " << new_size << " bytes was read";
    } catch (const InputError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find(path.string()), std::string::npos) << message;
      EXPECT_TRUE(message.find("expected " + std::to_string(size)) != std::string::npos ||
                  message.find("truncated header") != std::string::npos)
          << message;
    }
  }
}

TEST(ExactAccumulatorsView, ConvertedOnSeveralThreadsIsTheSameView) {
  const ExactAccumulators acc = Filled();
  const Accumulators one = acc.ToAccumulators(1);
  for (unsigned threads : {2u, 5u, 8u}) {
    const Accumulators many = acc.ToAccumulators(threads);
    EXPECT_EQ(many.mixw_data(), one.mixw_data()) << threads;
    EXPECT_EQ(many.dnom_data(), one.dnom_data()) << threads;
    EXPECT_EQ(many.mean_data(), one.mean_data()) << threads;
    EXPECT_EQ(many.var_data(), one.var_data()) << threads;
    EXPECT_EQ(many.tmat_data(), one.tmat_data()) << threads;
  }
}

TEST_F(ExactCountsFileTest, AddFileAddsWhatReadReads) {
  using Block = ExactAccumulators::Block;
  ExactAccumulators other = Filled();
  other.AddValue(Block::kMean, 6000, 3.0e9);  // goes to base, not the limbs
  other.Write(dir_.string());
  ExactAccumulators expected = Filled();
  expected.AddValue(Block::kVar, 17, -0.75);
  ExactAccumulators sum = expected;
  expected.Add(ExactAccumulators::Read(dir_.string()), dir_.string());
  sum.AddFile(dir_.string());
  EXPECT_TRUE(sum == expected);
  EXPECT_EQ(sum.EncodeExactCounts(), expected.EncodeExactCounts());
  // Adding the file once more moves every non-zero sum: nothing was skipped.
  ExactAccumulators twice = sum;
  twice.AddFile(dir_.string());
  EXPECT_FALSE(twice == sum);
}

// AddFileWritingSums adds the file as AddFile does and writes the sums after it, piece by piece,
// into its own directory: the bytes WriteExactCounts writes once the carries are settled, with
// their digest, and the added file's digest as read; 17 pieces, more than the writer's buffers, and
// sums held in limbs (an E-step's) as well as in base (a reducer's). A file of another shape, or a
// sums' file that cannot be put in place, made, or encoded part-way, leaves nothing there (no
// temporary either) with its error; sums that hold nothing yet are refused before anything is read.
TEST_F(ExactCountsFileTest, AddFileWritingSumsWritesTheSumsAfterTheFileAndBothDigests) {
  using Block = ExactAccumulators::Block;
  const fs::path shard = dir_ / "shard";
  ExactAccumulators other = Filled(true, 80, 5);
  other.AddValue(Block::kVar, 6000, -2.5);
  (void)other.WriteExactCounts(shard.string());
  Filled(true, 80).WriteExactCounts((dir_ / "first").string());
  for (const bool limbs : {false, true}) {
    SCOPED_TRACE(limbs ? "sums in limbs" : "sums in base");
    ExactAccumulators sums = limbs ? Filled(true, 80) : ExactAccumulators::Read((dir_ / "first").string());
    const fs::path out = dir_ / (limbs ? "written-limbs" : "written-base");
    std::string read_digest;
    const std::string digest = sums.AddFileWritingSums(shard.string(), &read_digest, out.string());
    EXPECT_EQ(read_digest, Sha256OfFile(shard / "exact_counts"));
    sums.SettleCarries();
    const std::string tail = sums.WriteExactCounts((dir_ / "tail").string());
    EXPECT_EQ(digest, tail);
    EXPECT_EQ(ReadFileBytes(out / "exact_counts"), ReadFileBytes(dir_ / "tail" / "exact_counts"));
    EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 1) << "no temporary left";
    ExactAccumulators expected = Filled(true, 80);
    expected.Add(other, "other");
    EXPECT_TRUE(sums == expected);
  }

  ExactAccumulators sums = ExactAccumulators::Read((dir_ / "first").string());
  ExactAccumulators wrong_shape(AccumulatorShape{2, 8, 39, 3, 3}, true);
  wrong_shape.AddValue(Block::kDnom, 0, 1.0);
  (void)wrong_shape.WriteExactCounts((dir_ / "wrong").string());
  const fs::path none = dir_ / "none";
  EXPECT_THROW(sums.AddFileWritingSums((dir_ / "wrong").string(), nullptr, none.string()), InputError);
  EXPECT_TRUE(!fs::exists(none) || fs::is_empty(none));

  // A directory where the file would go: every piece written, then the rename refused.
  const fs::path blocked = dir_ / "blocked";
  fs::create_directories(blocked / "exact_counts" / "inside");
  try {
    (void)sums.AddFileWritingSums(shard.string(), nullptr, blocked.string());
    ADD_FAILURE() << "a file was put where a directory is";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find((blocked / "exact_counts").string()), std::string::npos) << error.what();
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(blocked), fs::directory_iterator()), 1) << "no temporary left";

  // The error of fn(), or "no error"; a call that waits for ever ends the test program (a wait
  // for a thread that has ended cannot be cut short from here).
  const auto error_within_a_minute = [](const std::function<void()>& fn) {
    std::future<std::string> call = std::async(std::launch::async, [&] {
      try {
        fn();
        return std::string("no error");
      } catch (const std::exception& error) {
        return std::string(error.what());
      }
    });
    if (call.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
      std::fprintf(stderr, "AddFileWritingSums waits for a thread that has ended\n");
      std::_Exit(1);
    }
    return call.get();
  };

  // The writer fails before its first piece (its temporary cannot be made in /proc, whoever runs
  // this), with more pieces than buffers: its error, not a wait for ever.
  const std::string unwritable = error_within_a_minute([&] {
    ExactAccumulators base = ExactAccumulators::Read((dir_ / "first").string());
    (void)base.AddFileWritingSums(shard.string(), nullptr, "/proc");
  });
  EXPECT_NE(unwritable.find("/proc/exact_counts"), std::string::npos) << unwritable;
  EXPECT_EQ(unwritable.find("stopped"), std::string::npos) << "not the writer's own error: " << unwritable;

  // The add fails part-way while both threads run: a sum whose base (the file's value, just below
  // 2^63) and pending limbs (4e9) together leave the range, met as its piece (the 13th) is encoded.
  // Its error, and nothing left.
  ExactAccumulators top(AccumulatorShape{80, 8, 39, 3, 3}, true);
  top.AddValue(Block::kVar, 20000, 9.223372036e18);
  (void)top.WriteExactCounts((dir_ / "top").string());
  const fs::path cut = dir_ / "cut";
  const std::string overflow = error_within_a_minute([&] {
    ExactAccumulators pending(AccumulatorShape{80, 8, 39, 3, 3}, true);
    pending.AddValue(Block::kVar, 20000, 4.0e9);  // (below 2^32: in the limbs)
    (void)pending.AddFileWritingSums((dir_ / "top").string(), nullptr, cut.string());
  });
  EXPECT_NE(overflow.find("overflow"), std::string::npos) << overflow;
  EXPECT_TRUE(!fs::exists(cut) || fs::is_empty(cut));

  ExactAccumulators fresh(AccumulatorShape{80, 8, 39, 3, 3}, true);
  const fs::path untouched = dir_ / "untouched";
  EXPECT_THROW(fresh.AddFileWritingSums(shard.string(), nullptr, untouched.string()), TrainingError);
  EXPECT_FALSE(fs::exists(untouched));
}

// Into sums nothing was added to, AddFile stores the file's values as they are (no zeroed memory
// added to): the same sums as Read, and the same as adding into sums that were touched and hold
// zero; the next AddFile adds. A file refused (cut short) leaves the fresh sums zero.
TEST_F(ExactCountsFileTest, AddFileIntoFreshSumsStoresTheFilesValues) {
  using Block = ExactAccumulators::Block;
  ExactAccumulators other = Filled();
  other.AddValue(Block::kMean, 6000, 3.0e9);  // goes to base, not the limbs
  other.Write(dir_.string());
  const ExactAccumulators read = ExactAccumulators::Read(dir_.string());

  ExactAccumulators fresh(read.shape(), true);
  std::string fresh_digest;
  fresh.AddFile(dir_.string(), &fresh_digest);
  EXPECT_TRUE(fresh == read);
  EXPECT_EQ(fresh.EncodeExactCounts(), ReadFileBytes(dir_ / "exact_counts"));
  EXPECT_EQ(fresh_digest, Sha256OfFile(dir_ / "exact_counts"));

  ExactAccumulators touched(read.shape(), true);
  touched.AddValue(Block::kDnom, 3, 1.0);
  touched.AddValue(Block::kDnom, 3, -1.0);  // zero again, but added to: the adding path
  touched.AddFile(dir_.string());
  EXPECT_TRUE(touched == fresh);

  fresh.AddFile(dir_.string());  // now an addition: every value doubled
  ExactAccumulators doubled = read;
  doubled.Add(read, "read");
  EXPECT_TRUE(fresh == doubled);

  const fs::path path = dir_ / "exact_counts";
  fs::resize_file(path, fs::file_size(path) - 16);
  ExactAccumulators cut(read.shape(), true);
  EXPECT_THROW(cut.AddFile(dir_.string()), InputError);
  EXPECT_TRUE(cut == ExactAccumulators(read.shape(), true)) << "a refused file leaves the sums zero";
}

TEST_F(ExactCountsFileTest, AddFileRefusesAnotherShapeOrVarianceKind) {
  const ExactAccumulators acc = Filled();
  acc.Write(dir_.string());
  ExactAccumulators smaller(AccumulatorShape{19, 8, 39, 3, 3}, true);
  ExactAccumulators one_pass(acc.shape(), false);
  for (ExactAccumulators* into : {&smaller, &one_pass}) {
    try {
      into->AddFile(dir_.string());
      ADD_FAILURE() << "a file of another kind was added";
    } catch (const InputError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find(dir_.string()), std::string::npos) << message;
      EXPECT_TRUE(message.find("dimensions do not match") != std::string::npos || message.find("2-pass") != std::string::npos) << message;
    }
  }
}

}  // namespace
}  // namespace pstrain
