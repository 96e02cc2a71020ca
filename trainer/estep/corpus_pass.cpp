// One E-step over a range of the manifest, with retries, outcomes and the retry-beam syntax.
#include "estep/corpus_pass.h"

#include <cstdio>
#include <functional>
#include <ostream>
#include <sstream>

#include "common/error.h"
#include "common/interrupt.h"
#include "estep/statistics_adder.h"
#include "estep/utterance_input.h"
#include "estep/utterance_log_line.h"

namespace pstrain {

std::vector<BeamOptions> ParseRetryBeams(const std::string& text) {
  std::vector<BeamOptions> beams;
  if (text == "none" || text.empty()) return beams;
  std::stringstream list(text);
  std::string pair;
  while (std::getline(list, pair, ',')) {
    const std::size_t colon = pair.find(':');
    BeamOptions beam;
    try {
      if (colon == std::string::npos) throw std::invalid_argument("no colon");
      std::size_t used_a = 0, used_b = 0;
      beam.abeam = std::stod(pair.substr(0, colon), &used_a);
      beam.bbeam = std::stod(pair.substr(colon + 1), &used_b);
      if (used_a != colon || used_b != pair.size() - colon - 1) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
      throw InputError("--retry-beams: " + Quoted(pair) + " is not ABEAM:BBEAM (e.g. 1e-150:1e-30), or use \"none\"");
    }
    if (!(beam.abeam > 0.0 && beam.abeam <= 1.0 && beam.bbeam > 0.0 && beam.bbeam <= 1.0)) {
      throw InputError("--retry-beams: beams must be in (0, 1], got " + Quoted(pair));
    }
    beams.push_back(beam);
  }
  return beams;
}

std::string FormatRetryBeams(const std::vector<BeamOptions>& beams) {
  if (beams.empty()) return "none";
  std::string out;
  char buffer[64];
  for (const BeamOptions& beam : beams) {
    std::snprintf(buffer, sizeof(buffer), "%s%.6g:%.6g", out.empty() ? "" : ",", beam.abeam, beam.bbeam);
    out += buffer;
  }
  return out;
}

const char* OutcomeName(OutcomeKind kind) {
  switch (kind) {
    case OutcomeKind::kProcessed: return "processed";
    case OutcomeKind::kRetried: return "retried";
    case OutcomeKind::kSkipped: return "skipped";
  }
  return "?";
}

namespace {

CorpusPassResult RunCorpusPassOn(const Mdef& mdef, const AcousticModel& model, const Manifest& manifest, std::size_t begin,
                                 std::size_t end, const std::filesystem::path& corpus_root, const Dictionary& dictionary,
                                 const AccumulateOptions& options, std::ostream* log, std::size_t log_offset) {
  AccumulatorShape shape{model.n_senones(), model.n_density(), model.veclen(), model.n_tmat(), model.n_emit_state()};
  CorpusPassResult result{ExactAccumulators(shape, options.fb.pass2var), {}, 0, ExactSum(), 0, 0, 0, {}, {0.0, 0.0}};
  if (options.multipron) result.fallback_senones.assign(mdef.n_tied_state(), 0);
  ForwardBackward fb;
  UtteranceStats stats;  // (before the adder, whose thread may still read it as the adder goes)
  // With helper_threads, reading, hashing, the features and the HMM of the next utterances overlap
  // this one's forward-backward when a second CPU is there (estep/utterance_input.h), and so does
  // adding its statistics to the sums (estep/statistics_adder.h): the same inputs, sums and errors
  // either way.
  const bool second_cpu = options.helper_threads && end - begin >= 2 && TwoCpusAvailable();
  const UtteranceInputContext input_context{manifest, corpus_root, dictionary, mdef, model, options};
  UtteranceReader reader(input_context, begin, end, second_cpu);
  StatisticsAdder adder(result.accumulators, log, second_cpu, options.thread_add_min_values);
  // The last utterance's statistics are being added from `stats` until this utterance's alpha pass
  // is done: its beta pass waits for them there (ForwardBackward::Run).
  const std::function<void()> wait_for_stats = [&adder] { adder.Wait(); };
  std::string line;  // an utterance's log line (its buffer reused)
  try {
    for (std::size_t index = begin; index < end; ++index) {
      if (const std::optional<std::string> stop = StopRequest()) {
        throw TrainingError(*stop + " before utterance " + manifest.entries()[index].utt_id);
      }
      const ManifestEntry& entry = manifest.entries()[index];
      UtteranceOutcome outcome;
      outcome.utt_id = entry.utt_id;
      UtteranceInput input = reader.Take(index);
      const Features& features = input.features;
      const SentenceHmm& hmm = input.hmm;
      const std::vector<std::uint32_t>& fallback_senones = input.fallback_senones;
      outcome.n_frames = features.n_frames;

      std::optional<AlignmentFailure> failure = input.graph_failure;
      ForwardBackwardStats fb_stats;
      if (!failure) {
        ForwardBackwardOptions attempt_options = options.fb;
        failure = fb.Run(model, hmm, features, attempt_options, stats, fb_stats, wait_for_stats);
        std::optional<AlignmentFailure> first_failure = failure;
        for (std::size_t retry = 0; failure && failure->beam_related && retry < options.retry_beams.size(); ++retry) {
          attempt_options.beams = options.retry_beams[retry];
          ++outcome.attempts;
          failure = fb.Run(model, hmm, features, attempt_options, stats, fb_stats, wait_for_stats);
        }
        if (first_failure) {
          outcome.reason = first_failure->reason;
          outcome.detail = first_failure->message;
        }
      } else {
        outcome.reason = failure->reason;
        outcome.detail = failure->message;
      }
      if (failure) {
        outcome.kind = OutcomeKind::kSkipped;
        if (outcome.attempts > 1) outcome.detail += " (still failing after " + std::to_string(outcome.attempts - 1) + " wider-beam retries: " + failure->reason + ")";
        ++result.n_skipped;
      } else {
        outcome.kind = outcome.attempts > 1 ? OutcomeKind::kRetried : OutcomeKind::kProcessed;
        if (outcome.kind == OutcomeKind::kRetried) ++result.n_retried; else ++result.n_processed;
        outcome.log_likelihood = fb_stats.log_likelihood;
        adder.Add(stats);
        for (std::uint32_t senone : fallback_senones) result.fallback_senones[senone] = 1;
        result.total_frames += features.n_frames;
        result.total_log_likelihood.Add(fb_stats.log_likelihood, "log-likelihood total");
      }
      if (log) {
        UtteranceLogFields fields;
        fields.number = log_offset + index + 1;
        fields.utt_id = entry.utt_id;
        fields.n_frames = features.n_frames;
        fields.skipped = failure.has_value();
        if (failure) {
          fields.reason = outcome.reason;
        } else {
          fields.n_states = hmm.states.size();
          fields.avg_alpha_states = fb_stats.avg_alpha_states;
          fields.avg_beta_states = fb_stats.avg_beta_states;
          fields.avg_pruned_posterior = fb_stats.avg_pruned_posterior;
          fields.log_likelihood = fb_stats.log_likelihood;
          fields.retried = outcome.kind == OutcomeKind::kRetried;
        }
        FormatUtteranceLogLine(fields, line);
        adder.Log(line);
      }
      result.outcomes.push_back(std::move(outcome));
    }
    result.helper_cpu = adder.Finish();
  } catch (...) {
    // An add handed over before this failure failed first: its error is the pass's, as it would be
    // with every add in this thread (and the log then ends before that utterance).
    if (std::exception_ptr earlier = adder.Settle()) std::rethrow_exception(earlier);
    throw;
  }
  result.helper_cpu = CpuSum(result.helper_cpu, reader.Finish());
  return result;
}

}  // namespace

CorpusPassResult RunCorpusPass(const ModelFiles& model_files, const Manifest& manifest, std::size_t begin, std::size_t end,
                               const std::filesystem::path& corpus_root, const Dictionary& dictionary,
                               const AccumulateOptions& options, std::ostream* log, std::size_t log_offset) {
  const AcousticModel model(model_files, options.model);
  return RunCorpusPassOn(model_files.mdef, model, manifest, begin, end, corpus_root, dictionary, options, log, log_offset);
}

CorpusPassResult RunCorpusPass(ModelFiles&& model_files, const Manifest& manifest, std::size_t begin, std::size_t end,
                               const std::filesystem::path& corpus_root, const Dictionary& dictionary,
                               const AccumulateOptions& options, std::ostream* log, std::size_t log_offset) {
  // The E-step reads the parameters from `model` only: it takes the files' means (the && constructor
  // moves nothing else out of them), and the rest of the files goes before the E-step starts.
  const AcousticModel model(std::move(model_files), options.model);
  const Mdef mdef = std::move(model_files.mdef);
  model_files = ModelFiles();
  return RunCorpusPassOn(mdef, model, manifest, begin, end, corpus_root, dictionary, options, log, log_offset);
}

}  // namespace pstrain
