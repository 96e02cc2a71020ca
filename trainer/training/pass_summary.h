// The per-pass summary (RUNDIR/passes/NNN/summary.json): frames, log-likelihoods, every utterance
// outcome, re-estimation report and stop decision. JSON with a fixed key order; no times, PIDs or
// host names, so two identical runs write identical bytes.
#pragma once

#include <string>

#include "reestimate/reestimate.h"
#include "training/corpus_pass.h"

namespace pstrain {

struct PassSummaryInput {
  std::uint32_t pass = 0;
  std::string manifest_fingerprint;
  const CorpusPassResult* result = nullptr;
  const ReestimationReport* report = nullptr;
  std::string stop_decision;
  double gain = 0.0;
  bool has_gain = false;
};

std::string PassSummaryJson(const PassSummaryInput& input);

// The per-utterance outcomes and totals of an accumulate run (ACCUMDIR/summary.json).
std::string AccumulateSummaryJson(const CorpusPassResult& result, const std::string& manifest_fingerprint);

}  // namespace pstrain
