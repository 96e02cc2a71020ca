// The `utt>` line a shard's worker.log gets for each utterance, in the form of bw's per-utterance
// line (docs/sphinxtrain.md). Scripts read its fields by position (scripts/bench-vs-bw.sh,
// scripts/lib/bench-pass.sh), so the text is fixed: printf's "%5zu %25s %4u ..." conversions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pstrain {

struct UtteranceLogFields {
  std::size_t number = 0;  // 1-based, in the whole manifest
  std::string_view utt_id;
  std::uint32_t n_frames = 0;
  bool skipped = false;
  std::string_view reason;  // skipped: the failure's reason
  // Aligned:
  std::size_t n_states = 0;
  double avg_alpha_states = 0.0, avg_beta_states = 0.0, avg_pruned_posterior = 0.0;
  double log_likelihood = 0.0;
  bool retried = false;
};

// Writes the line (without its newline) into `out`, replacing what it held:
//   skipped: "utt> %5zu %25s %4u skipped %s"
//   aligned: "utt> %5zu %25s %4u %5zu %.1f %.1f %e %e %e" (+ " (retried)"), the three %e being
//            the mean pruned posterior, log likelihood / frames and log likelihood.
// The same text as snprintf with those formats (checked by tests), from std::to_chars, which is
// specified to give printf's text in the "C" locale; snprintf's floating-point conversions were
// most of the line's cost, and a worker writes a line for every utterance.
void FormatUtteranceLogLine(const UtteranceLogFields& fields, std::string& out);

}  // namespace pstrain
