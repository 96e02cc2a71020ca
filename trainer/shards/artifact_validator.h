// Validation of a pass's shard artifacts before anything is reduced (the runtime guard; the
// coordinator leaves the digests of the files the reducer adds to the reducer, which checks them on
// the bytes it adds: PayloadDigests below). Artifacts are treated as untrusted input: they may come
// from other processes and, later, other machines.
//
// For every shard, in ascending order: the shard directory and artifact.json are real files (no
// symlinks), artifact.json is well-formed and not oversized; pass, shard id, shard count and all
// four fingerprints match the current pass; the code identity is the expected one (the same pstrain
// binary and shared libraries computed every shard); assigned_ids are exactly the shard's manifest range;
// processed and skipped partition the assigned ids without duplicates, retried ids are assigned
// ids; processed_frames add up to total_frames; the exact log-likelihood matches its double; the
// payload lists exactly the expected files, each a regular file inside the shard directory with the
// recorded size, SHA-256 (those the reducer adds may be left to it: PayloadDigests) and a valid
// header (exact_counts: of the pass's statistics' shape, when the expectation has it);
// payload_sha256 covers them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "accumulators/accumulators.h"
#include "common/error.h"
#include "shards/artifact.h"

namespace pstrain {

struct PassExpectation {
  std::uint32_t pass = 0;
  std::uint32_t shard_count = 0;
  PassFingerprints fingerprints;
  // The code identity every artifact must record (provenance/provenance.h CodeIdentity): the
  // coordinator's own while it runs the pass, the one pass.json records for a finished pass.
  std::string code_identity;
  std::vector<std::string> manifest_ids;  // all utterance ids, manifest order
  // Multipron passes: every shard has the activation sidecar, sized for this many tied states.
  bool multipron = false;
  std::uint32_t n_tied_states = 0;
  // The shape of the pass's statistics (its model's), which every exact_counts header must have
  // (unchecked when absent), and whether they hold 2-pass variances (unchecked when absent). So a
  // shard of another shape is rejected here, lowest shard first, before the reducer (which adds the
  // shards as they come) meets it, and no header can make the reducer allocate more than the
  // model's statistics take.
  std::optional<AccumulatorShape> statistics_shape;
  std::optional<bool> pass2var;
};

// A rejected artifact: which shard, which file, which check (a stable code such as
// "payload-sha256", "stale-pass", "coverage"), and what was found.
class ArtifactRejected : public TrainingError {
 public:
  ArtifactRejected(std::uint32_t shard, std::string file, std::string check, const std::string& detail);
  std::uint32_t shard() const { return shard_; }
  const std::string& file() const { return file_; }
  const std::string& check() const { return check_; }

 private:
  std::uint32_t shard_;
  std::string file_;
  std::string check_;
};

// Which payload files ValidateShard hashes.
enum class PayloadDigests {
  kAll,
  // All but exact_counts, whose SHA-256 ShardReducer::Add checks on the very bytes it adds (and
  // rejects as "payload-sha256", as here): the coordinator's way in exact mode. The file is read
  // once, and what is added is what was checked, even if the file changes after this validation.
  // (A shard run in the coordinator's own process lends its sums instead, with the digest of the
  // bytes it wrote from them, which Add checks against the artifact's: LendExactSums.)
  kExactCountsByTheReducer,
  // All but bw's three count files, which the float32 reducer checks the same way (and rejects
  // before adding anything of the shard).
  kCountFilesByTheReducer,
  // All but exact_counts and bw's three count files of a shard run in the coordinator's own
  // process, which hashed each as it wrote it and lends those digests with its sums: the reducer
  // checks them against the artifact's (LendExactSums). What vouches for those files' bytes in the
  // pass is the hash taken as they were written, as for the lent exact_counts; their sizes and
  // formats are still checked here.
  kLentByThisProcess,
};

// Validates the artifact of one shard of the pass directory (every check above, the payload's
// digests as `digests` says); throws ArtifactRejected for the first failing check.
ShardArtifact ValidateShard(const std::filesystem::path& pass_dir, std::uint32_t shard, const PassExpectation& expected,
                            PayloadDigests digests = PayloadDigests::kAll);

// The payload-sha256 check, shared by ValidateShard and the reducer (which checks the files it adds):
// throws ArtifactRejected naming `path` unless `actual`, a digest of the file's bytes, is `listed`,
// the artifact's.
void RequirePayloadDigest(std::uint32_t shard, const std::string& path, const std::string& listed, const std::string& actual);

// Validates every shard of the pass directory; returns the artifacts in shard order. Throws
// ArtifactRejected for the first failing check (lowest shard first).
std::vector<ShardArtifact> ValidatePass(const std::filesystem::path& pass_dir, const PassExpectation& expected);

}  // namespace pstrain
