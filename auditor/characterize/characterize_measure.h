// The measurements of `audit characterize`: two finished training runs of the same corpus that
// differ only in their shard count, compared pass by pass — the re-estimated means
// (passes/NNN/model/means), the reduced raw mean numerators (passes/NNN/accum/gauden_counts) and the
// per-frame log-likelihood (passes/NNN/pass.json).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace pstrain::audit {

// Element-wise comparison of two float arrays of the same shape. The relative difference of a
// pair is |a - b| / max(|a|, |b|), and 0 when a == b (so two zeros agree); a NaN on either side
// counts as an infinite difference.
struct DiffStats {
  std::size_t elements = 0;
  std::size_t differing = 0;     // pairs that are not equal
  std::size_t over_budget = 0;   // pairs whose relative difference exceeds the budget
  double max_relative = 0.0;
  std::size_t max_index = 0;     // the element of max_relative (0 when all agree)
};

// Throws AuditError ("WHAT: the two runs have ...") when the sizes differ.
DiffStats CompareArrays(const std::vector<float>& a, const std::vector<float>& b, double budget, const std::string& what);

// One training run of an arm: its shard count and per-pass log-likelihood.
struct ArmRun {
  std::uint32_t requested_jobs = 0;
  std::uint32_t shard_count = 0;  // effective (pass.json)
  std::string run_dir;
  std::vector<double> log_likelihood_per_frame;     // pass 1..N (the model each pass started from)
  std::vector<std::string> log_likelihood_exact;    // totals.total_log_likelihood_exact, pass 1..N
  bool Monotonic() const;                           // never falls from one pass to the next
  std::size_t FirstFall() const;                    // the first pass whose value is below its predecessor's (0: none)
};

struct PassComparison {
  std::uint32_t pass = 0;
  DiffStats means;            // passes/NNN/model/means
  DiffStats mean_numerators;  // passes/NNN/accum/gauden_counts, raw mean numerators
  bool means_identical_bytes = false;
  double log_likelihood_gap = 0.0;  // arm B minus arm A, per frame
  bool same_exact_log_likelihood = false;
};

// Both arms of one reduction mode.
struct ModeComparison {
  std::string reduction;  // "float32" or "exact"
  ArmRun a, b;
  std::vector<PassComparison> passes;

  double MaxMeansRelative() const;
  double MaxNumeratorRelative() const;
  bool AllZero() const;  // every pass: no differing mean or numerator, identical bytes, same exact log-likelihood
};

// Compares passes 1..`passes` of two finished runs. Throws AuditError naming the file when a
// pass.json or one of its fields is missing or unreadable, or when the runs' shapes differ; the
// trainer's pstrain::InputError (its parameter readers) when a means or gauden_counts file is.
ModeComparison CompareRuns(const std::string& reduction, const std::filesystem::path& run_a, std::uint32_t jobs_a,
                           const std::filesystem::path& run_b, std::uint32_t jobs_b, std::uint32_t passes, double budget);

}  // namespace pstrain::audit
