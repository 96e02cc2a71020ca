// RUNDIR/passes/NNN/pass.json, "pstrain-pass-3": the one module that writes it, reads it and lists
// its fields. The training loop writes it (PassFileFrom in coordinator/pass_summary.h builds the
// value), resume and `pstrain validate` read it through ReadPassFile, and `audit mutate` reads it
// through the validation; tests/trainer/coordinator/pass_file_test.cpp round-trips every field.
// Compact JSON with a fixed key order (the order of PassFileFields) and a final newline; layout in
// docs/formats.md.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "provenance/fingerprints.h"
#include "shards/artifact.h"  // SkippedUtterance

namespace pstrain {

inline constexpr const char* kPassFileFormat = "pstrain-pass-3";
inline constexpr const char* kPassFileName = "pass.json";
// The most ReadPassFile reads (the bound artifact.json has: a pass.json lists every utterance id).
inline constexpr std::size_t kMaxPassFileBytes = 64u << 20;

// The per-utterance outcomes of a pass, over all shards in manifest order. `pstrain validate`
// recomputes them from the shard artifacts (coordinator/pass_summary.h OutcomesFrom).
struct PassTotals {
  std::uint64_t utterances = 0;
  std::uint64_t processed = 0;
  std::uint64_t retried = 0;
  std::uint64_t skipped = 0;
  std::uint64_t total_frames = 0;
  double total_log_likelihood = 0.0;        // for people; the exact value is the next one
  std::string total_log_likelihood_exact;   // FixedToHex of the exact sum
  double log_likelihood_per_frame = 0.0;
  bool operator==(const PassTotals&) const = default;
};

struct PassOutcomes {
  PassTotals totals;
  std::vector<std::string> utterance_ids;
  std::vector<std::string> processed_ids;
  std::vector<std::string> retried_ids;
  std::vector<SkippedUtterance> skipped;  // the shards' skipped entries, concatenated
  bool operator==(const PassOutcomes&) const = default;
};

struct PassReestimation {
  std::uint64_t densities_without_counts = 0;
  std::uint64_t mixw_rows_without_counts = 0;
  std::uint64_t tmat_rows_without_counts = 0;
  std::uint64_t negative_variances = 0;
  std::vector<std::uint64_t> unseen_senones_kept_previous;
  bool operator==(const PassReestimation&) const = default;
};

// Present on multipron passes only (docs/multipron.md).
struct PassMultipron {
  std::vector<std::uint64_t> activated_senones;
  std::uint64_t survival_prior_states = 0;
  std::uint64_t activated_states_without_counts = 0;
  bool operator==(const PassMultipron&) const = default;
};

// One file of the pass directory and its SHA-256 ("model/means", "accum/exact_counts", ...).
struct PassFileDigest {
  std::string file;
  std::string sha256;
  bool operator==(const PassFileDigest&) const = default;
};

struct PassFile {
  std::uint32_t pass = 0;
  std::string training_fingerprint;
  std::uint32_t requested_jobs = 1;
  std::uint32_t shard_count = 1;
  std::string reduction;
  PassFingerprints fingerprints;
  std::string code_identity;
  PassOutcomes outcomes;
  std::optional<double> log_likelihood_gain_per_frame;  // null on a training's first pass
  std::string stop_decision;
  PassReestimation reestimation;
  std::vector<PassFileDigest> files;
  std::optional<PassMultipron> multipron;
  bool operator==(const PassFile&) const = default;
};

// The top-level keys of pass.json in the order they are written ("multipron" last, optional).
std::span<const std::string_view> PassFileFields();

// The outcome members (totals, utterance_ids, processed_ids, retried_ids, skipped), appended to
// `root` in that order: pass.json's and `pstrain accumulate`'s summary.json's.
void AppendOutcomeFields(const PassOutcomes& outcomes, boost::json::object& root);

// The file's bytes.
std::string SerializePassFile(const PassFile& file);

// Parses pass.json's text. Every field must be there with its type, integers in range (never
// truncated), and no key unknown to PassFileFields; throws std::runtime_error naming the field.
// The doubles (for people; the exact values are the hex fields) come from Boost.JSON 1.81's parser,
// which is not correctly rounded: a 17-digit double may come back a few units in the last place
// off. Nothing deterministic is computed from them.
PassFile ParsePassFile(std::string_view text);

// Reads PASS_DIR's pass.json: a regular file (a FIFO does not block, /dev/zero is not read without
// bound) of at most kMaxPassFileBytes, parsed by ParsePassFile. Throws InputError
// "PATH: unreadable: REASON".
PassFile ReadPassFile(const std::filesystem::path& path);

}  // namespace pstrain
