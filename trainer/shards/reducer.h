// Reduction of a validated pass: the shards' statistics summed.
//
//   exact    the shards' exact_counts are added as 128-bit fixed point, in any order (the
//            coordinator adds each as soon as it is validated): the result is the same bits for
//            every shard count and every completion order (and equals a serial pass).
//   float32  SphinxTrain's way: each shard's float32 counts (its bw-format files) are summed in
//            float32 in ascending shard id, so the result depends on the shard count.
// In both modes frames add as integers and the log-likelihood as exact fixed point, so the
// discrete state (outcomes, frames, stop decision) never depends on the shard count.
#pragma once

#include <filesystem>
#include <functional>
#include <future>
#include <optional>
#include <utility>
#include <vector>

#include "accumulators/exact_accumulators.h"
#include "provenance/fingerprints.h"
#include "reestimate/reestimate.h"
#include "shards/artifact.h"
#include "shards/shard_worker.h"

namespace pstrain {

struct ReducedPass {
  Accumulators accumulators;               // float32 mode only (exact mode: DoubleView)
  std::optional<ExactAccumulators> exact;  // exact mode only
  ExactSum log_likelihood;
  std::uint64_t total_frames = 0;
  // Multipron passes: the union of the shards' activation sidecars (empty otherwise).
  std::vector<std::uint8_t> fallback_senones;
  // Exact mode, a pass whose reducer wrote the sums' exact_counts as it added the last shard
  // (ShardReducer::WriteSumsInto): that file and its SHA-256 (empty otherwise).
  std::filesystem::path exact_counts_file;
  std::string exact_counts_sha256;
  // When that file is the lent sums' shard's, linked (ShardReducer::LendExactSums), and bw's count
  // files were linked beside it: their SHA-256 in kBwCountFiles order (empty otherwise), which
  // WriteReducedCountFiles returns instead of writing them.
  std::vector<std::string> count_files_sha256;
};

// The reduction of one pass, a shard at a time, each artifact as ValidateShard returned it
// (sidecars included; a shard whose payload lists the activation sidecar contributes it to the
// union). In exact mode Add hashes exact_counts as it adds it, in float32 mode bw's count files as it
// reads them (before adding anything), and rejects the shard (ArtifactRejected, "payload-sha256")
// when a digest is not the one its artifact lists, or a file no longer reads as validated: the sums
// hold only bytes whose digest was checked (or, lent by the shard's own process, the values whose
// bytes it hashed as it wrote them: LendExactSums). The rejected shard's bytes may already be in the sums
// then, and Finish refuses them (the pass fails). In exact mode the shards may come in any order,
// each once; in float32 mode in ascending shard id, Add(0, a0), Add(1, a1), ... (anything else is
// a TrainingError). Holds the running sums and, during Add, one shard's statistics. The coordinator adds each shard as soon as it is
// validated (float32: as soon as it and every lower shard are), while other shards still run.
// The exact sums and the log-likelihood total are added modulo 2^128 with their carries out of the
// range counted, and the range is checked once, in Finish: so neither the sums nor whether one
// leaves the range (|sum| < 2^63) depend on the order the shards come in.
class ShardReducer {
 public:
  ShardReducer(std::filesystem::path pass_dir, ReductionMode mode);
  // The shape and variance kind every shard's exact_counts must have (the validated expectation,
  // validator.h PassExpectation): the exact sums are then sized from them, before the first shard
  // is added, and a file whose header differs is rejected before anything is allocated for it.
  void ExpectStatistics(const AccumulatorShape& shape, bool pass2var);
  void Add(std::uint32_t shard, const ShardArtifact& artifact);
  // Exact mode, with ExpectStatistics called: adds `shard`'s exact_counts (hashing it as it reads
  // it) before its artifact is validated, so that the coordinator validates the artifact at the
  // same time, on another thread (nothing else may use the reducer meanwhile). Add(shard, artifact)
  // then checks that digest against the artifact's, and adds the rest; if the shard is rejected
  // instead, Discard(shard). Either way the file is read once and only regular files are opened (a
  // FIFO is refused without blocking), of them at most the expected number of bytes and one more
  // block of the reader's (256 KiB). The caller checks first that neither the shard directory nor
  // the file is a symbolic link (validation refuses those; it runs at the same time). A file that
  // cannot be read as the expected statistics throws ArtifactRejected ("payload-sha256", the same
  // as Add's) and leaves the sums holding part of it (or, the first shard's, none): Finish then
  // refuses them. With WriteSumsInto, a failed write of the sums' file is another error (not the
  // shard's rejection), and Finish refuses the sums too.
  void AddExactCountsAhead(std::uint32_t shard);
  // The shard whose exact_counts AddExactCountsAhead added was rejected: Finish refuses the sums.
  void Discard(std::uint32_t shard);
  // Exact mode, before Add(shard) of a pass's first shard: the shard's sums as the process that ran
  // it holds them (the pass's only shard, run in the coordinator's own process: ShardTask::lent_sums),
  // with the SHA-256 of the exact_counts bytes written from them, as written, and that file's
  // identity. Add then takes them as the sums instead of reading the file back, once that digest is
  // the one the artifact lists; the file is not read or hashed again in this pass (its bytes are
  // those values, hashed as they were written). With WriteSumsInto of one shard, the sums'
  // exact_counts is then a second name of the shard's file (a hard link: LinkFileAtomic), with
  // that digest, once the file linked is the one written (the same device and inode; another, e.g.
  // renamed over it since, is the shard's payload-sha256 rejection). Where the file system refuses
  // links, it is written from the sums after the reduction, as without WriteSumsInto. bw's count
  // files, which are those sums' too, when the shard lent their digests and identities
  // (LentShardSums::count_files): each digest must be the artifact's and each file still the one
  // written (else payload-sha256), whether or not they are linked, as their validation may have left
  // both to Add (PayloadDigests::kLentByThisProcess); with WriteSumsInto of one shard they are linked
  // beside exact_counts the same way; where a link is refused the pass's tail writes them from the
  // sums (WriteReducedCountFiles), renamed over any linked. A rejection, or an error while linking,
  // leaves nothing linked, and Finish refuses the sums.
  void LendExactSums(std::uint32_t shard, LentShardSums lent);
  // Exact mode, before any shard is added: the sums' exact_counts is written into `dir` (its
  // directory created) as the last of the pass's `shard_count` shards is added, not after the
  // reduction. With one shard its values are the sums, so each byte of its file, as read (and
  // hashed, and added), is written there too (or, its sums lent, the file is linked there:
  // LendExactSums); with more, each piece of the sums is encoded once the last shard's piece is
  // added to it, hashed beside that piece, and written by a thread of its own
  // (ExactAccumulators::AddFileWritingSums).
  // Finish then records the file and the digest of the bytes written in the ReducedPass
  // (exact_counts_file, exact_counts_sha256), and WriteAndReleaseExactCounts writes nothing. The
  // bytes are those the sums would be written as: Finish refuses sums out of range, and a shard
  // rejected meanwhile fails the pass (the file is then in a directory that is never promoted). A
  // file that cannot be read whole leaves nothing there; a failed write is a TrainingError.
  void WriteSumsInto(std::filesystem::path dir, std::uint32_t shard_count);
  // Whether Add would take `shard` now (not yet added; in float32 mode, the next in order).
  bool Takes(std::uint32_t shard) const;
  std::uint32_t reduced_shards() const { return n_added_; }
  // The sums of the shards added so far (at least one).
  ReducedPass Finish() &&;

 private:
  // Adds `shard`'s exact_counts to the sums; returns the SHA-256 of the bytes added.
  std::string AddExactCountsFile(std::uint32_t shard);
  // Add's exact part for the shard whose sums were lent (LendExactSums): its digests checked against
  // those its artifact lists (`listed`: a payload file's name -> its digest), its sums taken, and
  // with WriteSumsInto its files in `shard_dir` linked there.
  void TakeLentSums(std::uint32_t shard, const std::filesystem::path& shard_dir,
                    const std::function<std::string(const std::string&)>& listed);

  std::filesystem::path pass_dir_;
  ReductionMode mode_;
  std::vector<bool> added_;  // by shard id
  std::uint32_t n_added_ = 0;
  bool partly_added_ = false;  // a shard rejected while its exact_counts was being added
  // AddExactCountsAhead's shard and the digest of the bytes it added (until Add or Discard).
  std::optional<std::pair<std::uint32_t, std::string>> added_ahead_;
  std::optional<std::pair<AccumulatorShape, bool>> expected_statistics_;  // ExpectStatistics
  // LendExactSums: the shard and what it lent (until Add).
  struct Lent {
    std::uint32_t shard;
    LentShardSums lent;
  };
  std::optional<Lent> lent_;
  std::filesystem::path sums_dir_;  // WriteSumsInto
  std::uint32_t sums_shards_ = 0;
  std::string written_sha256_;  // the digest of the sums' file, once written whole
  std::vector<std::string> linked_count_files_sha256_;  // bw's count files linked beside it (LendExactSums)
  ReducedPass reduced_;
  FixedPoint log_likelihood_ = 0;            // modulo 2^128 until Finish
  std::int64_t log_likelihood_carry_ = 0;
};

// All of `artifacts` (shard i at index i), which must have passed ValidatePass, through a
// ShardReducer.
ReducedPass ReducePass(const std::filesystem::path& pass_dir, const std::vector<ShardArtifact>& artifacts, ReductionMode mode);

// Writes the reduced statistics into `dir` (a pass's accum/, or `pstrain accumulate`'s output):
// the bw-format files, exact_counts in exact mode, and the union of the activation sidecars in a
// multipron pass.
void WriteReducedStatistics(const ReducedPass& reduced, const std::filesystem::path& dir);
// The same files for a pass whose double view is built, in two halves that may run on two threads
// at once (they change different members of `reduced`; `dir` must exist):
//  - WriteAndReleaseExactCounts: exact_counts (nothing in float32 mode, nor when the reducer wrote
//    it, `reduced.exact_counts_file`, which must then be in `dir`), then the exact sums freed
//    (`reduced.exact` is empty on return, even on an exception), so that they are not held beside
//    the buffers of the bw-format files; returns the SHA-256 of the file's bytes (empty in
//    float32 mode). With `readers_done`, the sums are freed only once it is ready: the double view
//    may then be built from them (DoubleView, TakeDoubleView) while they are written, or, after a
//    TailView without the mean and variance sums, re-estimation and WriteReducedCountFiles read them;
//  - WriteReducedCountFiles: the bw-format files from `view`, which must be DoubleView(reduced),
//    TakeDoubleView(reduced) or TailView(reduced) (in exact mode its float32 values are those of the
//    exact sums: FromFixed, then float32), and the multipron sidecar. Reads `view`,
//    `reduced.fallback_senones` and, for a view without the mean and variance sums, the exact sums
//    (which must then not be released before it returns), so re-estimation may read them meanwhile.
//    Where the reducer linked them into `dir` (reduced.count_files_sha256), only the sidecar, and
//    their digests are those.
// Together they write what WriteReducedStatistics writes. A failure leaves `dir` partly written.
std::string WriteAndReleaseExactCounts(ReducedPass& reduced, const std::filesystem::path& dir,
                                       const std::shared_future<void>& readers_done = {});
// Returns the count files' SHA-256, in kBwCountFiles order, from the bytes written.
std::vector<std::string> WriteReducedCountFiles(const ReducedPass& reduced, const Accumulators& view, const std::filesystem::path& dir);

// The statistics as re-estimation reads them: `accumulators`, or in exact mode the exact sums'
// double view (converted on up to `threads` threads).
Accumulators DoubleView(const ReducedPass& reduced, unsigned threads = 1);
// The same for a pass that goes on to write its files from the view: in float32 mode
// `accumulators` is moved out (not copied), in exact mode the exact sums stay for the write.
Accumulators TakeDoubleView(ReducedPass& reduced, unsigned threads = 1);
// The view a pass's tail re-estimates from. In exact mode without a survival prior (no activation
// flags) it leaves out the mean and variance sums (Accumulators::has_gaussians() false), which
// re-estimation and WriteReducedCountFiles read from the exact sums (ReducedGaussianRows): for 2,102
// senones x 16 Gaussians that is 21 MB fewer held beside them. Otherwise TakeDoubleView.
Accumulators TailView(ReducedPass& reduced, unsigned threads = 1);
// The mean and variance sums of one density from the exact sums, for a TailView without them (the
// sums must outlive its use); empty when the view holds them.
GaussianRows ReducedGaussianRows(const ReducedPass& reduced, const Accumulators& view);

}  // namespace pstrain
