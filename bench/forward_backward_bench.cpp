// Forward-backward (ForwardBackward::Run: forward pass, backward pass and per-utterance statistics)
// per frame on a real utterance: librivox_0890 of the default corpus (read speech, 529 frames),
// with the model as the E-step prepares it (SphinxTrain's CI flags: varfloor 1e-4, mwfloor 1e-8,
// topn = all densities, abeam 1e-90, bbeam 1e-10, 1-pass variance).
//
//   ForwardBackward/an4_ci_cont_1g   /usr/share/pocketsphinx/test/data/an4_ci_cont (102 x 1 Gaussian)
//   ForwardBackward/grown_8g         build/models/bench_g8  (scripts/grow-model.sh ... 8)
//   ForwardBackward/grown_16g        build/models/bench_g16 (scripts/grow-model.sh ... 16)
//   UtteranceInput                   what RunCorpusPass does before forward-backward: read the .mfc,
//                                    SHA-256 it (manifest check), parse, CMN + 1s_c_d_dd
//   FeatureFileRead                  ReadFileBytes of the .mfc alone
//   FeatureFileManifestCheckHash     Sha256OfFile of the .mfc (the manifest check before the pass)
//   FeatureSha256                    SHA-256 of the .mfc bytes in memory
//   UtteranceStatsAddToDouble        adding one utterance's statistics to double Accumulators
//   UtteranceStatsAddToExact         the same into ExactAccumulators (2^-64 fixed point, 128-bit):
//                                    what RunCorpusPass does once per aligned utterance
//
// items_processed = frames, so the items_per_second column is frames/s. Missing data is an error
// (SkipWithError naming the command that makes it), never a silent pass.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>

#include "accumulators/accumulators.h"
#include "accumulators/exact_accumulators.h"
#include "bench_util.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "formats/mfc_file.h"
#include "forward_backward/forward_backward.h"

namespace pstrain::bench {
namespace {

std::string GrowCommand(unsigned n_gaussians) {
  const std::string src = PSTRAIN_SOURCE_DIR, build = PSTRAIN_BUILD_DIR;
  return "run: bash " + src + "/scripts/prepare-bench-corpus.sh " + build + "/corpus/bench && bash " + src +
         "/scripts/grow-model.sh " + build + "/corpus/bench " + GrownModelDir(n_gaussians) + " " + std::to_string(n_gaussians);
}

// Loads each case once per process (Google Benchmark calls a benchmark function several times).
std::variant<std::shared_ptr<const UtteranceCase>, std::string> CachedCase(unsigned n_gaussians) {
  static std::mutex mutex;
  static std::map<unsigned, std::variant<std::shared_ptr<const UtteranceCase>, std::string>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(n_gaussians);
  if (it == cache.end()) {
    const bool an4 = n_gaussians == 1;
    const std::string model_dir = an4 ? An4ModelDir() : GrownModelDir(n_gaussians);
    const std::string how = an4 ? std::string("install pocketsphinx-testdata (scripts/bootstrap.sh) or set PSTRAIN_AN4_MODEL")
                                : GrowCommand(n_gaussians);
    it = cache.emplace(n_gaussians, LoadUtteranceCase(model_dir, how, DefaultCorpusDir(), kBenchUtterance)).first;
  }
  return it->second;
}

// The case, or nullptr after marking the benchmark skipped with the reason (and how to fix it).
const UtteranceCase* CaseOrSkip(benchmark::State& state, unsigned n_gaussians) {
  const auto loaded = CachedCase(n_gaussians);
  if (const std::string* error = std::get_if<std::string>(&loaded)) {
    state.SkipWithError(error->c_str());
    return nullptr;
  }
  return std::get<std::shared_ptr<const UtteranceCase>>(loaded).get();  // owned by the cache
}

ForwardBackwardOptions CiOptions() {
  ForwardBackwardOptions options;
  options.beams.abeam = 1e-90;
  options.beams.bbeam = 1e-10;
  options.pass2var = false;
  return options;
}

void BM_ForwardBackward(benchmark::State& state, unsigned n_gaussians) {
  const UtteranceCase* case_ptr = CaseOrSkip(state, n_gaussians);
  if (case_ptr == nullptr) return;
  const UtteranceCase& c = *case_ptr;
  const ForwardBackwardOptions options = CiOptions();
  ForwardBackward fb;
  UtteranceStats acc;
  ForwardBackwardStats stats;
  // One untimed run: the utterance must align, and the scratch buffers reach their final size.
  if (auto failure = fb.Run(*c.model, c.hmm, c.features, options, acc, stats)) {
    const std::string message = std::string(kBenchUtterance) + " does not align with this model: " + failure->reason + ": " + failure->message;
    state.SkipWithError(message.c_str());
    return;
  }
  for (auto _ : state) {
    auto failure = fb.Run(*c.model, c.hmm, c.features, options, acc, stats);
    benchmark::DoNotOptimize(failure);
    benchmark::DoNotOptimize(stats.log_likelihood);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * c.features.n_frames);
  state.counters["frames"] = c.features.n_frames;
  state.counters["hmm_states"] = static_cast<double>(c.hmm.states.size());
  state.counters["alpha_states"] = stats.avg_alpha_states;
  state.counters["beta_states"] = stats.avg_beta_states;
  state.counters["gaussians"] = c.model->n_density();
}
BENCHMARK_CAPTURE(BM_ForwardBackward, an4_ci_cont_1g, 1u)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ForwardBackward, grown_8g, 8u)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ForwardBackward, grown_16g, 16u)->Unit(benchmark::kMicrosecond);

// Per-utterance input work of RunCorpusPass before forward-backward: read the feature file, check its
// SHA-256 (as RunCorpusPass does for every utterance; `pstrain accumulate` also hashes every file
// once more in the manifest check before the pass), parse it, CMN + 1s_c_d_dd.
void BM_UtteranceInput(benchmark::State& state) {
  const UtteranceCase* case_ptr = CaseOrSkip(state, 1);
  if (case_ptr == nullptr) return;
  const UtteranceCase& c = *case_ptr;
  for (auto _ : state) {
    const std::vector<std::uint8_t> bytes = ReadFileBytes(c.feature_path);
    std::string digest = Sha256Hex(bytes.data(), bytes.size());
    benchmark::DoNotOptimize(digest);
    Features features = ComputeFeatures(ParseMfc(bytes, c.feature_path, 13), FeatureOptions{}, c.feature_path);
    benchmark::DoNotOptimize(features.data.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * c.features.n_frames);
  state.counters["frames"] = c.features.n_frames;
}
BENCHMARK(BM_UtteranceInput)->Unit(benchmark::kMicrosecond);

// Reading the feature file alone (ReadFileBytes, as RunCorpusPass reads it).
void BM_FeatureFileRead(benchmark::State& state) {
  const UtteranceCase* case_ptr = CaseOrSkip(state, 1);
  if (case_ptr == nullptr) return;
  const UtteranceCase& c = *case_ptr;
  for (auto _ : state) {
    std::vector<std::uint8_t> bytes = ReadFileBytes(c.feature_path);
    benchmark::DoNotOptimize(bytes.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * c.features.n_frames);
}
BENCHMARK(BM_FeatureFileRead)->Unit(benchmark::kMicrosecond);

// Sha256OfFile: what the manifest check (CheckManifest, run by `pstrain accumulate` before the pass)
// does for every feature file.
void BM_FeatureFileManifestCheckHash(benchmark::State& state) {
  const UtteranceCase* case_ptr = CaseOrSkip(state, 1);
  if (case_ptr == nullptr) return;
  const UtteranceCase& c = *case_ptr;
  for (auto _ : state) {
    std::string digest = Sha256OfFile(c.feature_path);
    benchmark::DoNotOptimize(digest);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * c.features.n_frames);
}
BENCHMARK(BM_FeatureFileManifestCheckHash)->Unit(benchmark::kMicrosecond);

// SHA-256 alone of the same feature file's bytes (per frame: 13 float32 = 52 bytes).
void BM_FeatureSha256(benchmark::State& state) {
  const UtteranceCase* case_ptr = CaseOrSkip(state, 1);
  if (case_ptr == nullptr) return;
  const UtteranceCase& c = *case_ptr;
  const std::vector<std::uint8_t> bytes = ReadFileBytes(c.feature_path);
  for (auto _ : state) {
    std::string digest = Sha256Hex(bytes.data(), bytes.size());
    benchmark::DoNotOptimize(digest);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * c.features.n_frames);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes.size()));
}
BENCHMARK(BM_FeatureSha256)->Unit(benchmark::kMicrosecond);

// Adding one aligned utterance's statistics into the global accumulators (done once per utterance):
// the double view (kExact = false) or the exact fixed-point accumulators the pass uses (true).
template <bool kExact>
void BM_UtteranceStatsAddTo(benchmark::State& state, unsigned n_gaussians) {
  const UtteranceCase* case_ptr = CaseOrSkip(state, n_gaussians);
  if (case_ptr == nullptr) return;
  const UtteranceCase& c = *case_ptr;
  ForwardBackward fb;
  UtteranceStats acc;
  ForwardBackwardStats stats;
  if (auto failure = fb.Run(*c.model, c.hmm, c.features, CiOptions(), acc, stats)) {
    state.SkipWithError((std::string(kBenchUtterance) + " does not align: " + failure->reason).c_str());
    return;
  }
  const AcousticModel& m = *c.model;
  const AccumulatorShape shape{m.n_senones(), m.n_density(), m.veclen(), m.n_tmat(), m.n_emit_state()};
  std::conditional_t<kExact, ExactAccumulators, Accumulators> global(shape, false);
  for (auto _ : state) {
    acc.AddTo(global);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * c.features.n_frames);
}
void BM_UtteranceStatsAddToDouble(benchmark::State& state, unsigned n_gaussians) { BM_UtteranceStatsAddTo<false>(state, n_gaussians); }
void BM_UtteranceStatsAddToExact(benchmark::State& state, unsigned n_gaussians) { BM_UtteranceStatsAddTo<true>(state, n_gaussians); }
BENCHMARK_CAPTURE(BM_UtteranceStatsAddToDouble, an4_ci_cont_1g, 1u)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_UtteranceStatsAddToDouble, grown_8g, 8u)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_UtteranceStatsAddToExact, an4_ci_cont_1g, 1u)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_UtteranceStatsAddToExact, grown_8g, 8u)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace pstrain::bench
