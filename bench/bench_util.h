// Shared data loading for the Google Benchmark programs. Benchmarks never fabricate a substitute for
// missing data: a loader returns an error message that says which command makes the data, and the
// benchmark reports it with state.SkipWithError (shown as "ERROR OCCURRED" in the output).
//
// Data locations (environment variables override the defaults):
//   PSTRAIN_AN4_MODEL             /usr/share/pocketsphinx/test/data/an4_ci_cont
//   PSTRAIN_BENCH_DEFAULT_CORPUS  <build>/corpus/default   (scripts/prepare-corpus.sh DIR)
//   PSTRAIN_BENCH_MODELS          <build>/models           (bench_g8, bench_g16 from scripts/grow-model.sh)
#pragma once

#include <memory>
#include <string>
#include <variant>

#include "features/features.h"
#include "formats/dictionary.h"
#include "graph/sentence_hmm.h"
#include "model/acoustic_model.h"

namespace pstrain::bench {

std::string An4ModelDir();
std::string DefaultCorpusDir();
std::string GrownModelDir(unsigned n_gaussians);  // <models>/bench_g<N>

// The real utterance the forward-backward benchmarks align: librivox_0890 of the default corpus
// (read speech from pocketsphinx-testdata, 529 frames). It aligns with an4_ci_cont and with the
// 8- and 16-Gaussian models grown on the benchmark corpus.
inline constexpr const char* kBenchUtterance = "librivox_0890";

// A model (as the E-step prepares it) plus one utterance's features and sentence HMM.
struct UtteranceCase {
  ModelFiles files;
  std::unique_ptr<AcousticModel> model;
  Features features;
  SentenceHmm hmm;
  std::string feature_path;
};

// Loads `model_dir` and utterance `utt_id` of the corpus at `corpus_dir` (corpus.dic + corpus.filler,
// train.transcription, feat/<utt_id>.mfc; -cmn batch, 1s_c_d_dd). `how_to_make_model` is appended
// to the message when the model is missing. Returns the case or an error message.
std::variant<std::shared_ptr<const UtteranceCase>, std::string> LoadUtteranceCase(const std::string& model_dir,
                                                                                 const std::string& how_to_make_model,
                                                                                 const std::string& corpus_dir,
                                                                                 const std::string& utt_id);

}  // namespace pstrain::bench
