// The statistics adder (estep/statistics_adder.h) on real utterances of the default corpus: the
// sums are the same bits whether each utterance is added in the caller's thread or on the adder's,
// also when the caller reuses one UtteranceStats and waits for it in forward-backward's
// before_statistics, as the corpus pass does; a log line waits for the adds before it and goes out
// once they are done; an add's error is raised by the next Wait (or by Add itself, in the caller's
// thread), drops the lines logged after it, and stays; and a corpus pass with its helper threads
// (every add on the thread, half of them, or the default split) gives the serial pass's sums, log
// and errors. Bit comparisons cannot see every race: scripts/nightly.sh also runs these tests under
// ThreadSanitizer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "estep/corpus_pass.h"
#include "estep/statistics_adder.h"
#include "estep/utterance_input.h"
#include "formats/dictionary.h"
#include "forward_backward/forward_backward.h"
#include "manifest/manifest.h"
#include "support/test_helpers.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kUtterances = 16;

class StatisticsAdderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.fb.beams = {1e-100, 1e-100};
    ASSERT_GE(manifest_.size(), kUtterances);
    for (std::size_t i = 0; i < kUtterances; ++i) inputs_.push_back(PrepareUtterance(Context(CorpusDir()), i));
  }

  UtteranceInputContext Context(const fs::path& corpus_root) const {
    return UtteranceInputContext{manifest_, corpus_root, dictionary_, files_.mdef, model_, options_};
  }
  ExactAccumulators EmptySums() const {
    return ExactAccumulators(AccumulatorShape{model_.n_senones(), model_.n_density(), model_.veclen(), model_.n_tmat(),
                                              model_.n_emit_state()},
                             options_.fb.pass2var);
  }
  // Utterance i's statistics, aligned on their own.
  UtteranceStats StatsOf(std::size_t i) {
    ForwardBackward fb;
    UtteranceStats stats;
    ForwardBackwardStats fb_stats;
    EXPECT_FALSE(fb.Run(model_, inputs_[i].hmm, inputs_[i].features, options_.fb, stats, fb_stats).has_value()) << i;
    return stats;
  }
  // Statistics whose first mixture-weight count is not a number: adding them throws.
  UtteranceStats PoisonedStats() {
    UtteranceStats stats = StatsOf(0);
    stats.AddDensityPosterior(0, 0, std::numeric_limits<double>::quiet_NaN());
    return stats;
  }

  const ModelFiles files_ = ModelFiles::Load(An4Model().string());
  const Manifest manifest_ = Manifest::Load(TrainManifest());
  const Dictionary dictionary_ = CorpusDictionary();
  AccumulateOptions options_;
  const AcousticModel model_{files_, options_.model};
  std::vector<UtteranceInput> inputs_;
};

TEST_F(StatisticsAdderTest, TheSumsAreTheSameBitsOnEitherThread) {
  std::vector<UtteranceStats> stats;
  ExactAccumulators expected = EmptySums();
  for (std::size_t i = 0; i < kUtterances; ++i) {
    stats.push_back(StatsOf(i));
    stats.back().AddTo(expected);
  }
  ASSERT_FALSE(expected == EmptySums());  // the comparison below can fail
  for (const bool background : {false, true}) {
    for (const std::size_t min_values : {std::size_t{0}, AccumulateOptions{}.thread_add_min_values, ~std::size_t{0}}) {
      SCOPED_TRACE(std::string(background ? "background" : "this thread") + ", from " + std::to_string(min_values) + " values");
      ExactAccumulators sums = EmptySums();
      StatisticsAdder adder(sums, nullptr, background, min_values);
      for (const UtteranceStats& utterance : stats) adder.Add(utterance);
      adder.Finish();
      EXPECT_TRUE(sums == expected);
    }
  }
}

// The corpus pass's protocol: one UtteranceStats, the next utterance's alpha pass run while the
// last one's statistics are added from it, its beta pass waiting for them.
TEST_F(StatisticsAdderTest, OneBufferReusedAfterTheAlphaPassGivesTheSameSums) {
  ExactAccumulators expected = EmptySums();
  for (std::size_t i = 0; i < kUtterances; ++i) StatsOf(i).AddTo(expected);
  ExactAccumulators sums = EmptySums();
  StatisticsAdder adder(sums, nullptr, true, 0);
  ForwardBackward fb;
  UtteranceStats stats;
  std::size_t waits = 0;
  const std::function<void()> wait = [&] {
    ++waits;
    adder.Wait();
  };
  for (std::size_t i = 0; i < kUtterances; ++i) {
    ForwardBackwardStats fb_stats;
    ASSERT_FALSE(fb.Run(model_, inputs_[i].hmm, inputs_[i].features, options_.fb, stats, fb_stats, wait).has_value()) << i;
    adder.Add(stats);
  }
  adder.Finish();
  EXPECT_EQ(waits, kUtterances);  // once per Run that reached its beta pass
  EXPECT_TRUE(sums == expected);
}

TEST_F(StatisticsAdderTest, BeforeStatisticsIsNotCalledWhenTheAlphaPassFails) {
  ForwardBackward fb;
  UtteranceStats stats;
  ForwardBackwardStats fb_stats;
  std::size_t calls = 0;
  const std::function<void()> count = [&] { ++calls; };
  Features short_features = inputs_[0].features;
  short_features.n_frames = 3;  // below forward-backward's minimum
  short_features.data.resize(std::size_t(3) * short_features.dim);
  ASSERT_TRUE(fb.Run(model_, inputs_[0].hmm, short_features, options_.fb, stats, fb_stats, count).has_value());
  EXPECT_EQ(calls, 0u);
  ASSERT_FALSE(fb.Run(model_, inputs_[0].hmm, inputs_[0].features, options_.fb, stats, fb_stats, count).has_value());
  EXPECT_EQ(calls, 1u);
  // What it throws leaves Run.
  const std::function<void()> fail = [] { throw TrainingError("from before_statistics"); };
  EXPECT_THROW(fb.Run(model_, inputs_[0].hmm, inputs_[0].features, options_.fb, stats, fb_stats, fail), TrainingError);
}

TEST_F(StatisticsAdderTest, ALineWaitsForTheAddsHandedOverBeforeIt) {
  const UtteranceStats first = StatsOf(0), second = StatsOf(1);
  for (const bool background : {false, true}) {
    SCOPED_TRACE(background ? "background" : "this thread");
    ExactAccumulators sums = EmptySums();
    std::ostringstream log;
    // The thread's first add is held back until the lines after it are checked (an add takes well
    // under a millisecond: done before the next Log, its lines would be written at once, as they
    // should be).
    std::promise<void> release;
    const std::shared_future<void> released = release.get_future().share();
    StatisticsAdder adder(sums, &log, background, 0, [released] { released.wait(); });
    adder.Log("skipped 0");  // nothing handed over: written at once
    EXPECT_EQ(log.str(), "skipped 0\n");
    adder.Add(first);
    adder.Log("added 1");
    adder.Log("skipped 2");
    EXPECT_EQ(log.str(), background ? "skipped 0\n" : "skipped 0\nadded 1\nskipped 2\n");
    release.set_value();
    adder.Add(second);  // waits for the first add: its lines are written
    EXPECT_EQ(log.str(), "skipped 0\nadded 1\nskipped 2\n");
    adder.Log("added 3");
    adder.Finish();
    EXPECT_EQ(log.str(), "skipped 0\nadded 1\nskipped 2\nadded 3\n");
  }
}

// A line that waited for an add is written by the first Log after the add is done, without a Wait
// (a killed process's log then lacks only what was still being added).
TEST_F(StatisticsAdderTest, AWaitingLineGoesOutWithTheFirstLogAfterItsAdd) {
  const UtteranceStats stats = StatsOf(0);
  ExactAccumulators sums = EmptySums();
  std::ostringstream log;
  StatisticsAdder adder(sums, &log, true, 0);
  adder.Add(stats);
  adder.Log("added 0");
  std::string expected = "added 0\n";
  // The add takes well under a millisecond; polled for up to 20 s (a loaded or sanitized run).
  int tick = 0;
  for (; tick < 2000 && log.str().empty(); ++tick) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const std::string line = "skipped " + std::to_string(tick + 1);
    adder.Log(line);
    expected += line + "\n";
  }
  EXPECT_LT(tick, 2000) << "no line was written while the add was done and nothing waited for it";
  EXPECT_EQ(log.str(), expected);
  adder.Finish();
}

TEST_F(StatisticsAdderTest, AFailedAddIsRaisedByTheNextWaitAndItsLinesAreDropped) {
  const UtteranceStats good = StatsOf(1);
  const UtteranceStats poisoned = PoisonedStats();
  ASSERT_GE(poisoned.MaxValues(), std::size_t{1});
  ExactAccumulators direct = EmptySums();
  const std::string expected = test::ErrorMessage<TrainingError>([&] { poisoned.AddTo(direct); });
  ASSERT_FALSE(expected.empty());

  // In the caller's thread the add itself throws, before its line is logged, and the error stays
  // as it does on the thread.
  for (const bool background : {false, true}) {
    SCOPED_TRACE(background ? "with a thread, below its threshold" : "without a thread");
    ExactAccumulators sums = EmptySums();
    std::ostringstream log;
    StatisticsAdder adder(sums, &log, background, ~std::size_t{0});
    adder.Add(good);
    adder.Log("good");
    EXPECT_EQ(test::ErrorMessage<TrainingError>([&] { adder.Add(poisoned); }), expected);
    adder.Log("poisoned");
    EXPECT_EQ(log.str(), "good\n");
    const std::exception_ptr stays = adder.Settle();
    ASSERT_TRUE(stays);
    EXPECT_EQ(test::ErrorMessage<TrainingError>([&] { std::rethrow_exception(stays); }), expected);
    EXPECT_EQ(test::ErrorMessage<TrainingError>([&] { adder.Wait(); }), expected);
    EXPECT_EQ(test::ErrorMessage<TrainingError>([&] { adder.Finish(); }), expected);
  }
  // On the adder's thread: the next Wait throws the same error, the lines logged after the failed
  // add are never written, and every later Wait, Settle and Add gives the error again.
  ExactAccumulators sums = EmptySums();
  std::ostringstream log;
  StatisticsAdder adder(sums, &log, true, 0);
  adder.Add(good);
  adder.Log("good");
  adder.Add(poisoned);
  adder.Log("poisoned");
  adder.Log("skipped after it");
  EXPECT_EQ(test::ErrorMessage<TrainingError>([&] { adder.Wait(); }), expected);
  EXPECT_EQ(log.str(), "good\n");
  const std::exception_ptr again = adder.Settle();
  ASSERT_TRUE(again);
  EXPECT_EQ(test::ErrorMessage<TrainingError>([&] { std::rethrow_exception(again); }), expected);
  EXPECT_EQ(test::ErrorMessage<TrainingError>([&] { adder.Add(good); }), expected);
  adder.Log("logged after the error");
  EXPECT_EQ(test::ErrorMessage<TrainingError>([&] { adder.Finish(); }), expected);
  EXPECT_EQ(log.str(), "good\n");
}

TEST_F(StatisticsAdderTest, AnAdderLeftWithAnAddInFlightFinishesIt) {
  const UtteranceStats stats = StatsOf(2);
  ExactAccumulators expected = EmptySums();
  stats.AddTo(expected);
  ExactAccumulators sums = EmptySums();
  {
    StatisticsAdder adder(sums, nullptr, true, 0);
    adder.Add(stats);
  }  // joined here; no Wait, no Finish
  EXPECT_TRUE(sums == expected);
}

TEST_F(StatisticsAdderTest, FinishReportsTheThreadsCpuTime) {
  ExactAccumulators sums = EmptySums();
  StatisticsAdder without(sums, nullptr, false, 0);
  const ThreadCpuSeconds none = without.Finish();
  EXPECT_EQ(none.user, 0.0);
  EXPECT_EQ(none.system, 0.0);
  StatisticsAdder with(sums, nullptr, true, 0);
  const UtteranceStats stats = StatsOf(3);
  for (int i = 0; i < 3; ++i) with.Add(stats);
  const ThreadCpuSeconds cpu = with.Finish();
  EXPECT_TRUE(cpu.known());
}

// The corpus pass with helper threads (every add on the adder's thread, or the default split)
// against the serial pass: the same sums, totals, outcomes and log.
TEST_F(StatisticsAdderTest, TheCorpusPassGivesTheSerialPassesSumsAndLog) {
  if (!TwoCpusAvailable()) GTEST_SKIP() << "one CPU: the pass would use no helper thread";
  const std::size_t n = manifest_.size();
  std::ostringstream serial_log;
  const CorpusPassResult serial = RunCorpusPass(files_, manifest_, 0, n, CorpusDir(), dictionary_, options_, &serial_log);
  // This corpus's utterances hold fewer values than the default threshold (a CI model of one
  // Gaussian a state): a threshold inside their range splits the adds between the two threads.
  std::vector<std::size_t> values;
  for (std::size_t i = 0; i < kUtterances; ++i) values.push_back(StatsOf(i).MaxValues());
  std::sort(values.begin(), values.end());
  const std::size_t split = values[kUtterances / 2];
  ASSERT_LT(values.front(), split);  // some below it, some not
  for (const std::size_t min_values : {std::size_t{0}, split, AccumulateOptions{}.thread_add_min_values}) {
    SCOPED_TRACE("from " + std::to_string(min_values) + " values");
    AccumulateOptions helped = options_;
    helped.helper_threads = true;
    helped.thread_add_min_values = min_values;
    std::ostringstream log;
    const CorpusPassResult result = RunCorpusPass(files_, manifest_, 0, n, CorpusDir(), dictionary_, helped, &log);
    EXPECT_TRUE(result.accumulators == serial.accumulators);
    EXPECT_EQ(result.total_log_likelihood.fixed(), serial.total_log_likelihood.fixed());
    EXPECT_EQ(result.total_frames, serial.total_frames);
    ASSERT_EQ(result.outcomes.size(), serial.outcomes.size());
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(result.outcomes[i].kind, serial.outcomes[i].kind) << i;
    EXPECT_EQ(log.str(), serial_log.str());
    EXPECT_TRUE(result.helper_cpu.known());
  }
}

// A changed feature file stops the pass at its utterance, with its error; the log ends before it,
// as in the serial pass (the adds before it were in the sums when the error was raised).
TEST_F(StatisticsAdderTest, ACorpusPassWithHelperThreadsStopsAtABadFileAsTheSerialPassDoes) {
  if (!TwoCpusAvailable()) GTEST_SKIP() << "one CPU: the pass would use no helper thread";
  const fs::path root = fs::temp_directory_path() / ("pstrain-statistics-adder-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const std::size_t n = 12, bad = 7;
  for (std::size_t i = 0; i < n; ++i) {
    const fs::path to = ResolveFeaturePath(manifest_.entries()[i], root);
    fs::create_directories(to.parent_path());
    fs::copy_file(ResolveFeaturePath(manifest_.entries()[i], CorpusDir()), to);
  }
  std::ofstream(ResolveFeaturePath(manifest_.entries()[bad], root), std::ios::binary | std::ios::app) << "extra";
  std::ostringstream serial_log;
  const std::string expected =
      test::InputErrorMessage([&] { RunCorpusPass(files_, manifest_, 0, n, root, dictionary_, options_, &serial_log); });
  EXPECT_NE(expected.find(manifest_.entries()[bad].utt_id), std::string::npos) << expected;
  AccumulateOptions helped = options_;
  helped.helper_threads = true;
  helped.thread_add_min_values = 0;
  std::ostringstream log;
  EXPECT_EQ(test::InputErrorMessage([&] { RunCorpusPass(files_, manifest_, 0, n, root, dictionary_, helped, &log); }), expected);
  EXPECT_EQ(log.str(), serial_log.str());
  EXPECT_NE(serial_log.str(), "");
  fs::remove_all(root);
}

}  // namespace
}  // namespace pstrain::testing
