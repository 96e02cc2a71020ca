// The utterance reader (estep/utterance_input.h) on the real corpus: reading ahead on a second
// thread, or two at a time on the caller's, gives every utterance the input PrepareUtterance gives
// it, raises a bad feature file's error for that utterance and no other, and the corpus pass's
// statistics are the same bits with and without reading ahead.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.h"
#include "estep/corpus_pass.h"
#include "estep/utterance_input.h"
#include "formats/dictionary.h"
#include "manifest/manifest.h"
#include "support/test_helpers.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;

class UtteranceInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.fb.beams = {1e-100, 1e-100};
  }

  UtteranceInputContext Context(const fs::path& corpus_root) const {
    return UtteranceInputContext{manifest_, corpus_root, dictionary_, files_.mdef, model_, options_};
  }

  const ModelFiles files_ = ModelFiles::Load(An4Model().string());
  const Manifest manifest_ = Manifest::Load(TrainManifest());
  const Dictionary dictionary_ = CorpusDictionary();
  AccumulateOptions options_;
  const AcousticModel model_{files_, options_.model};
};

void ExpectSameInput(const UtteranceInput& a, const UtteranceInput& b) {
  EXPECT_EQ(a.features.dim, b.features.dim);
  EXPECT_EQ(a.features.n_frames, b.features.n_frames);
  EXPECT_TRUE(a.features.data == b.features.data);  // float ==: the same values (no NaN in features)
  ASSERT_EQ(a.hmm.states.size(), b.hmm.states.size());
  for (std::size_t i = 0; i < a.hmm.states.size(); ++i) {
    ASSERT_EQ(a.hmm.states[i].next.size(), b.hmm.states[i].next.size()) << i;
    for (std::size_t k = 0; k < a.hmm.states[i].next.size(); ++k) {
      EXPECT_EQ(a.hmm.states[i].next[k].state, b.hmm.states[i].next[k].state);
      EXPECT_EQ(a.hmm.states[i].next[k].prob, b.hmm.states[i].next[k].prob);
    }
  }
  EXPECT_EQ(a.hmm.senones, b.hmm.senones);
  EXPECT_EQ(a.fallback_senones, b.fallback_senones);
  ASSERT_EQ(a.graph_failure.has_value(), b.graph_failure.has_value());
  if (a.graph_failure) {
    EXPECT_EQ(a.graph_failure->reason, b.graph_failure->reason);
  }
}

TEST_F(UtteranceInputTest, ReadingAheadGivesEveryUtteranceWhatPreparingItGives) {
  const std::size_t n = std::min<std::size_t>(manifest_.size(), 40);
  for (const bool multipron : {false, true}) {
    options_.multipron = multipron;  // pronunciation graphs and their fallback senones too
    const UtteranceInputContext context = Context(CorpusDir());
    for (const bool background : {false, true}) {
      SCOPED_TRACE(std::string(multipron ? "multipron" : "linear") + (background ? ", background" : ""));
      UtteranceReader reader(context, 5, n, background);
      for (std::size_t i = 5; i < n; ++i) ExpectSameInput(reader.Take(i), PrepareUtterance(context, i));
    }
  }
}

TEST_F(UtteranceInputTest, FinishReportsTheReadersCpuTime) {
  const std::size_t n = std::min<std::size_t>(manifest_.size(), 20);
  UtteranceReader without(Context(CorpusDir()), 0, n, false);
  for (std::size_t i = 0; i < n; ++i) without.Take(i);
  const ThreadCpuSeconds none = without.Finish();
  EXPECT_EQ(none.user, 0.0);
  EXPECT_EQ(none.system, 0.0);
  // Every utterance of the corpus: a thread's CPU time comes from the kernel's accounting, which
  // on some kernels reads 0 for a thread that ran a millisecond or two (20 utterances' worth; seen
  // on a 6.18 VM kernel in 4 runs of 5).
  const std::size_t all = manifest_.size();
  UtteranceReader with(Context(CorpusDir()), 0, all, true);
  for (std::size_t i = 0; i < all; ++i) with.Take(i);
  const ThreadCpuSeconds cpu = with.Finish();
  EXPECT_GT(cpu.user + cpu.system, 0.0) << "hashing and features of " << all << " utterances took no CPU time";
}

TEST_F(UtteranceInputTest, AChangedOrMissingFeatureFileFailsItsOwnUtteranceOnly) {
  // A copy of the corpus root's feature files for the first utterances, one of them changed or
  // removed. Readers of [0, 8) prepare (0, 1), (2, 3), ...: utterance 4 is the first of a pair, 5
  // and 7 the second; readers of [1, 8) prepare (1, 2), ..., (5, 6) and 7 alone: 4 is the second, 5
  // the first, 7 the last. The others are given as PrepareUtterance gives them.
  const fs::path root = fs::temp_directory_path() / ("pstrain-utterance-input-" + std::to_string(::getpid()));
  const std::size_t n = 8;
  for (const std::size_t bad : {std::size_t{4}, std::size_t{5}, std::size_t{7}}) {
    for (const bool missing : {false, true}) {
      SCOPED_TRACE("utterance " + std::to_string(bad) + (missing ? " missing" : " changed"));
      fs::remove_all(root);
      for (std::size_t i = 0; i < n; ++i) {
        const fs::path from = ResolveFeaturePath(manifest_.entries()[i], CorpusDir());
        const fs::path to = ResolveFeaturePath(manifest_.entries()[i], root);
        fs::create_directories(to.parent_path());
        fs::copy_file(from, to);
      }
      const fs::path changed = ResolveFeaturePath(manifest_.entries()[bad], root);
      if (missing) {
        fs::remove(changed);
      } else {
        std::ofstream(changed, std::ios::binary | std::ios::app) << "extra";
      }
      const UtteranceInputContext context = Context(root);
      const std::string expected = test::InputErrorMessage([&] { PrepareUtterance(context, bad); });
      const std::string problem = missing ? "cannot" : "SHA-256 of the feature file does not match the manifest";
      EXPECT_NE(expected.find(problem), std::string::npos) << expected;
      for (const std::size_t begin : {std::size_t{0}, std::size_t{1}}) {
        for (const bool background : {false, true}) {
          SCOPED_TRACE("from " + std::to_string(begin) + (background ? ", background" : ""));
          UtteranceReader reader(context, begin, n, background);
          for (std::size_t i = begin; i < bad; ++i) EXPECT_NO_THROW(ExpectSameInput(reader.Take(i), PrepareUtterance(context, i))) << i;
          EXPECT_EQ(test::InputErrorMessage([&] { reader.Take(bad); }), expected);
          for (std::size_t i = bad + 1; i < n; ++i) ExpectSameInput(reader.Take(i), PrepareUtterance(context, i));
        }
      }
    }
  }
  fs::remove_all(root);
}

TEST_F(UtteranceInputTest, UtterancesMustBeTakenInOrder) {
  UtteranceReader reader(Context(CorpusDir()), 0, 4, true);
  EXPECT_THROW(reader.Take(1), TrainingError);
  EXPECT_NO_THROW(reader.Take(0));
  EXPECT_THROW(reader.Take(0), TrainingError);
}

TEST_F(UtteranceInputTest, AReaderLeftEarlyStopsItsThreadAndTakesNoMore) {
  UtteranceReader reader(Context(CorpusDir()), 0, manifest_.size(), true);
  reader.Take(0);
  reader.Finish();  // returns once the thread has stopped (a thread that never stops hangs the test)
  // Without its thread the reader hands out what the thread prepared, then prepares the rest itself.
  const std::size_t n = std::min<std::size_t>(manifest_.size(), 30);
  for (std::size_t i = 1; i < n; ++i) ExpectSameInput(reader.Take(i), PrepareUtterance(Context(CorpusDir()), i));
}

TEST_F(UtteranceInputTest, TheCorpusPassGivesTheSameBitsWithAndWithoutReadingAhead) {
  const std::size_t n = manifest_.size();
  AccumulateOptions ahead = options_;
  ahead.helper_threads = true;
  if (!TwoCpusAvailable()) GTEST_SKIP() << "one CPU: the pass would not read ahead";
  const CorpusPassResult serial = RunCorpusPass(files_, manifest_, 0, n, CorpusDir(), dictionary_, options_, nullptr);
  const CorpusPassResult read_ahead = RunCorpusPass(files_, manifest_, 0, n, CorpusDir(), dictionary_, ahead, nullptr);
  EXPECT_TRUE(read_ahead.accumulators == serial.accumulators);
  EXPECT_EQ(read_ahead.total_log_likelihood.fixed(), serial.total_log_likelihood.fixed());
  EXPECT_EQ(read_ahead.total_frames, serial.total_frames);
  ASSERT_EQ(read_ahead.outcomes.size(), serial.outcomes.size());
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(read_ahead.outcomes[i].kind, serial.outcomes[i].kind) << i;
}

}  // namespace
}  // namespace pstrain::testing
