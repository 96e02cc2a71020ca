// The E-step's statistics on the real corpus do not depend on how the manifest is cut: running the
// pass over contiguous ranges and adding the results gives the same bits as one serial run, for
// several cut counts (what sharded training relies on; the shards themselves arrive with issue 3).
#include <gtest/gtest.h>

#include "formats/dictionary.h"
#include "support/test_util.h"
#include "manifest/manifest.h"
#include "estep/corpus_pass.h"

namespace pstrain::testing {
namespace {

TEST(ExactPartition, ContiguousRangesAddUpToTheSerialPassBitForBit) {
  const ModelFiles model = ModelFiles::Load(An4Model().string());
  const Manifest manifest = Manifest::Load(TrainManifest());
  const Dictionary dictionary = CorpusDictionary();
  AccumulateOptions options;         // default retry schedule: exercises retried outcomes too
  options.fb.beams = {1e-100, 1e-100};  // bw's built-in beams, as this test has always run
  const std::size_t n = manifest.size();
  const CorpusPassResult serial = RunCorpusPass(model, manifest, 0, n, CorpusDir(), dictionary, options, nullptr);
  ASSERT_GT(serial.n_retried, 0u) << "the fixture should contain utterances that need a retry";
  for (std::size_t parts : {2u, 3u, 7u}) {
    SCOPED_TRACE(parts);
    ExactAccumulators total(serial.accumulators.shape(), serial.accumulators.pass2var());
    ExactSum log_likelihood;
    std::uint64_t frames = 0;
    for (std::size_t part = parts; part-- > 0;) {  // reduced in descending order on purpose
      const CorpusPassResult piece =
          RunCorpusPass(model, manifest, part * n / parts, (part + 1) * n / parts, CorpusDir(), dictionary, options, nullptr);
      total.Add(piece.accumulators, "part " + std::to_string(part));
      log_likelihood.Add(piece.total_log_likelihood, "log-likelihood");
      frames += piece.total_frames;
    }
    EXPECT_TRUE(total == serial.accumulators) << "reduced statistics differ from the serial pass";
    EXPECT_EQ(log_likelihood.fixed(), serial.total_log_likelihood.fixed());
    EXPECT_EQ(frames, serial.total_frames);
  }
}

}  // namespace
}  // namespace pstrain::testing
