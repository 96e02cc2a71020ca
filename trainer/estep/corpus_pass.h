// One E-step over a range of the manifest (what one `bw` run does): for each utterance, read and
// check its features, build its sentence HMM, run forward-backward, and add its statistics to the
// accumulators only if it succeeded. A failed alignment is retried with each wider beam pair of
// the retry schedule before the utterance is skipped; every outcome is recorded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "accumulators/exact_accumulators.h"
#include "accumulators/exact_sum.h"
#include "common/thread_cpu.h"
#include "features/features.h"
#include "formats/dictionary.h"
#include "forward_backward/forward_backward.h"
#include "manifest/manifest.h"
#include "model/acoustic_model.h"

namespace pstrain {

struct AccumulateOptions {
  FeatureOptions features;
  ModelOptions model;
  ForwardBackwardOptions fb;
  // Train over every dictionary pronunciation of each word (graph/pronunciation_graph.h) and
  // record the fallback senones of succeeded utterances.
  bool multipron = false;
  // Wider beam pairs tried in order after a beam-related failure; empty = no retries.
  std::vector<BeamOptions> retry_beams = {{1e-150, 1e-30}, {1e-300, 1e-100}};
  // Prepare the next utterances' inputs (read, hash, features, HMM) and add each utterance's
  // statistics to the sums on two more threads while forward-backward runs, if the process may use
  // two CPUs (estep/utterance_input.h, estep/statistics_adder.h). Speed only: never part of the
  // configuration or of any number. The coordinator sets it for a shard it runs inline (one job:
  // the other CPU would idle); workers of a multi-job pass leave it off, since their neighbours have
  // the other CPUs (a reader thread each made a 2-job pass 2-3 % slower).
  bool helper_threads = false;
  // With helper_threads: an utterance's statistics go to the adding thread when they may hold this
  // many values or more (UtteranceStats::MaxValues); fewer are added in the E-step's thread, where
  // they cost less than waking the other. On the benchmark set (docs/performance.md, thirty-sixth
  // round) an utterance of the CI model of one Gaussian a state may hold 2,328-6,888 values (all of
  // them on the thread made its 1-job pass 6.6 % slower), one of 8 Gaussians 15,768-52,248. Speed
  // only, like helper_threads (tests set other values).
  std::size_t thread_add_min_values = 8192;
};

// Parses "none" or a comma-separated list of ABEAM:BBEAM pairs, e.g. "1e-150:1e-30,1e-300:1e-100".
std::vector<BeamOptions> ParseRetryBeams(const std::string& text);
std::string FormatRetryBeams(const std::vector<BeamOptions>& beams);

enum class OutcomeKind { kProcessed, kRetried, kSkipped };
const char* OutcomeName(OutcomeKind kind);

struct UtteranceOutcome {
  std::string utt_id;
  OutcomeKind kind = OutcomeKind::kProcessed;
  std::uint32_t attempts = 1;
  std::uint32_t n_frames = 0;
  double log_likelihood = 0.0;  // 0 when skipped
  std::string reason;           // first failure's code (retried, skipped); empty when processed
  std::string detail;           // its message
};

struct CorpusPassResult {
  ExactAccumulators accumulators;          // exact: independent of how utterances are grouped
  std::vector<UtteranceOutcome> outcomes;  // manifest order
  std::uint64_t total_frames = 0;          // successful utterances only, as bw counts
  ExactSum total_log_likelihood;           // successful utterances only, exact
  std::uint32_t n_processed = 0, n_retried = 0, n_skipped = 0;
  // Multipron only (empty otherwise): one flag per tied state, 1 when a CI fallback put the state
  // into the graph of an utterance that succeeded.
  std::vector<std::uint8_t> fallback_senones;
  // CPU time of the threads that read ahead and added statistics (AccumulateOptions::helper_threads;
  // 0 without them): telemetry only.
  ThreadCpuSeconds helper_cpu{0.0, 0.0};
};

// Runs the E-step over manifest entries [begin, end). Feature files are checked against the
// manifest digests; unreadable or corrupt inputs throw InputError (the run stops) — only alignment
// failures become skipped outcomes. `log` (may be null) gets one line per utterance, numbered
// log_offset + its manifest index + 1 (a bw part whose manifest holds its own utterances only
// passes the number of utterances before it, so the numbers stay positions in the whole corpus).
CorpusPassResult RunCorpusPass(const ModelFiles& model_files, const Manifest& manifest, std::size_t begin, std::size_t end,
                               const std::filesystem::path& corpus_root, const Dictionary& dictionary,
                               const AccumulateOptions& options, std::ostream* log, std::size_t log_offset = 0);
// The same, releasing `model_files`' parameter arrays once the model is built (the shard worker's
// form: about 1.5 MB less for the tied CD benchmark model).
CorpusPassResult RunCorpusPass(ModelFiles&& model_files, const Manifest& manifest, std::size_t begin, std::size_t end,
                               const std::filesystem::path& corpus_root, const Dictionary& dictionary,
                               const AccumulateOptions& options, std::ostream* log, std::size_t log_offset = 0);

}  // namespace pstrain
