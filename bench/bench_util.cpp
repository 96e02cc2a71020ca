// Loading the benchmarks' data (the default corpus's model and features) for the benchmark programs.
#include "bench_util.h"

#include <cstdlib>
#include <exception>
#include <filesystem>

#include "formats/control_file.h"
#include "formats/mfc_file.h"

namespace pstrain::bench {

namespace fs = std::filesystem;

namespace {

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return (value != nullptr && *value != '\0') ? std::string(value) : fallback;
}

}  // namespace

std::string An4ModelDir() { return EnvOr("PSTRAIN_AN4_MODEL", "/usr/share/pocketsphinx/test/data/an4_ci_cont"); }

std::string DefaultCorpusDir() {
  return EnvOr("PSTRAIN_BENCH_DEFAULT_CORPUS", std::string(PSTRAIN_BUILD_DIR) + "/corpus/default");
}

std::string GrownModelDir(unsigned n_gaussians) {
  return EnvOr("PSTRAIN_BENCH_MODELS", std::string(PSTRAIN_BUILD_DIR) + "/models") + "/bench_g" + std::to_string(n_gaussians);
}

std::variant<std::shared_ptr<const UtteranceCase>, std::string> LoadUtteranceCase(const std::string& model_dir,
                                                                                 const std::string& how_to_make_model,
                                                                                 const std::string& corpus_dir,
                                                                                 const std::string& utt_id) {
  const std::string make_corpus = "run: bash " + std::string(PSTRAIN_SOURCE_DIR) + "/scripts/prepare-corpus.sh " + corpus_dir;
  for (const char* name : {"mdef", "means", "variances", "mixture_weights", "transition_matrices"}) {
    if (!fs::is_regular_file(fs::path(model_dir) / name)) {
      return "benchmark data missing: model file " + (fs::path(model_dir) / name).string() + " not found; " + how_to_make_model;
    }
  }
  const fs::path corpus(corpus_dir);
  const fs::path mfc = corpus / "feat" / (utt_id + ".mfc");
  for (const fs::path& path : {corpus / "corpus.dic", corpus / "corpus.filler", corpus / "train.transcription", mfc}) {
    if (!fs::is_regular_file(path)) return "benchmark data missing: " + path.string() + " not found; " + make_corpus;
  }
  try {
    auto out = std::make_shared<UtteranceCase>();
    out->files = ModelFiles::Load(model_dir);
    ModelOptions options;  // SphinxTrain's CI flags: varfloor 1e-4, mwfloor 1e-8, topn = all
    out->model = std::make_unique<AcousticModel>(out->files, options);
    Dictionary dictionary = Dictionary::Load((corpus / "corpus.dic").string(), false);
    dictionary.Merge(Dictionary::Load((corpus / "corpus.filler").string(), true));
    const std::vector<TranscriptEntry> transcripts = LoadTranscriptFile((corpus / "train.transcription").string());
    const TranscriptEntry* transcript = nullptr;
    for (const TranscriptEntry& entry : transcripts) {
      if (entry.utt_id == utt_id) transcript = &entry;
    }
    if (transcript == nullptr) {
      return "benchmark data missing: utterance " + utt_id + " not in " + (corpus / "train.transcription").string() + "; " + make_corpus;
    }
    out->feature_path = mfc.string();
    FeatureOptions feature_options;  // -cmn batch -varnorm no, 13 cepstra -> 39 dims
    out->features = ComputeFeatures(ReadMfcFile(out->feature_path, feature_options.ceplen), feature_options, out->feature_path);
    try {
      out->hmm = BuildSentenceHmm(transcript->words, dictionary, out->files.mdef, *out->model);
    } catch (const GraphError& error) {
      return "cannot build the sentence HMM of " + utt_id + ": " + error.message;
    }
    return std::shared_ptr<const UtteranceCase>(std::move(out));
  } catch (const std::exception& error) {
    return std::string("cannot load benchmark data: ") + error.what();
  }
}

}  // namespace pstrain::bench
