// A shard artifact: what one worker leaves in its shard directory, the only channel from worker
// to coordinator.
//
//   SHARD_DIR/gauden_counts, mixw_counts, tmat_counts   payload: bw format (float32)
//   SHARD_DIR/exact_counts                              payload: exact statistics
//   SHARD_DIR/artifact.json                             the description below (deterministic)
//   SHARD_DIR/telemetry.json                            PID, times, CPU (never compared)
//   SHARD_DIR/worker.log                                per-utterance log lines
//
// artifact.json is written with a fixed key order and number format and holds no time, PID, host
// or absolute path. Layout in docs/contract.md; tests/trainer/shards/artifact_test.cpp round-trips
// every field.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "provenance/fingerprints.h"
#include "shards/run_layout.h"

namespace pstrain {

inline constexpr const char* kArtifactFormat = "pstrain-shard-artifact-2";
// The payload files, in the order their digests enter payload_sha256.
inline constexpr const char* kPayloadFiles[] = {"gauden_counts", "mixw_counts", "tmat_counts", "exact_counts"};
// The payload of a shard: kPayloadFiles, then for multipron shards the activation sidecar
// (shards/fallback_sidecar.h).
std::vector<std::string> PayloadFileNames(bool multipron);
inline constexpr std::size_t kMaxArtifactJsonBytes = 64u << 20;

struct PayloadFile {
  std::string name;
  std::uint64_t size = 0;
  std::string sha256;
  bool operator==(const PayloadFile&) const = default;
};

struct SkippedUtterance {
  std::string id;
  std::string reason;
  bool operator==(const SkippedUtterance&) const = default;
};

struct ShardArtifact {
  std::uint32_t pass = 0;
  std::uint32_t shard = 0;
  std::uint32_t shard_count = 0;
  PassFingerprints fingerprints;
  std::string code_identity;                       // CodeIdentity of the process that computed it (provenance/provenance.h)
  std::vector<std::string> assigned_ids;
  std::vector<std::string> processed_ids;          // succeeded (first try or after a retry)
  std::vector<std::uint32_t> processed_frames;     // parallel to processed_ids
  std::vector<std::string> retried_ids;            // needed at least one wider-beam retry
  std::vector<SkippedUtterance> skipped;
  std::uint64_t total_frames = 0;
  std::string log_likelihood;                      // FromFixed(log_likelihood_exact) as "%.17g", for people
  std::string log_likelihood_exact;                // 32 hex digits, 2^-64 fixed point
  std::vector<PayloadFile> payload;                // kPayloadFiles order
  std::string payload_sha256;                      // SHA-256 of "name size sha256\n" lines

  bool operator==(const ShardArtifact&) const = default;
};

// The top-level keys of artifact.json in the order they are written: the parser knows exactly these.
std::span<const std::string_view> ShardArtifactFields();

// SHA-256 over the payload entries (name, size, digest), in order.
std::string PayloadDigest(const std::vector<PayloadFile>& payload);

std::string SerializeArtifact(const ShardArtifact& artifact);
// Strict parse: every key present with the right type, no unknown or duplicate keys, integers in
// range, and the text in canonical form (SerializeArtifact of the result gives the same bytes).
// InputError names `path`.
ShardArtifact ParseArtifact(const std::string& text, const std::string& path);

}  // namespace pstrain
