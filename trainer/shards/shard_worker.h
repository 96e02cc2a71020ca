// One shard of one pass: the work a `pstrain worker` process (or, with one job, the coordinator
// itself) does. Reads the pass's input model (or, run in the coordinator, takes the coordinator's
// copy: ShardTask::lent_model), the manifest range of the shard and the dictionaries,
// runs the E-step, and writes the shard's payload, artifact.json, telemetry.json and worker.log into
// the shard directory.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "accumulators/exact_accumulators.h"
#include "provenance/fingerprints.h"
#include "estep/corpus_pass.h"

namespace pstrain {

// The inputs every shard of a pass shares.
struct PassInputs {
  std::string model_dir;  // the pass's input model (files on disk: workers read them)
  std::string manifest_path;
  std::string corpus_root;
  std::string dict;
  std::string filler;
  AccumulateOptions options;
  ReductionMode reduction = ReductionMode::kExact;
};

struct LentShardSums;

struct ShardTask {
  PassInputs inputs;
  std::uint32_t pass = 0;
  std::uint32_t shard = 0;
  std::uint32_t shard_count = 1;
  std::string shard_dir;      // created by the worker
  // The coordinator that runs this shard on this machine (in its own process, or as its child)
  // fsyncs the shard's files itself once it has validated them (at once while another shard still
  // runs, the last shard's with the pass's own files, before the pass directory is renamed): the
  // worker then writes and renames its files without fsyncing them. Otherwise (a Slurm task, on another node) it fsyncs them,
  // its payload before artifact.json.
  bool coordinator_syncs = false;
  // A `pstrain worker` process: once the artifact and telemetry.json are written (every file
  // closed), RunShardTask flushes the standard streams and ends the process with exit status 0
  // instead of returning, so that the coordinator, which waits for the exit, is not kept waiting
  // while the shard's memory is freed piece by piece (the kernel frees it at once). Never set for
  // a shard run inline in the coordinator, and ignored by a sanitizer build (whose checks run at
  // exit). Not passed on a command line.
  bool end_process_when_written = false;
  // The pass's only shard, run inline in the coordinator (InlineLauncher): the coordinator's copy
  // of inputs.model_dir's parameter files, lent so that the shard does not load them a second time,
  // with the digests of their files (what the shard's model fingerprint is then made of: the bytes
  // the coordinator loaded or wrote). RunShardTask takes them (moves them out, once); the
  // coordinator reads its copy back afterwards (training/train_loop.cpp). Not passed on a command
  // line.
  ModelFiles* lent_model = nullptr;
  const ModelFileDigests* lent_model_digests = nullptr;
  // A shard run on the coordinator's thread (InlineLauncher): the coordinator's whole manifest,
  // parsed from inputs.manifest_path (its Fingerprint() is that file's SHA-256, the one the shard's
  // artifact must carry), so that the shard does not parse the file again; the shard's range is
  // taken from it. Not passed on a command line.
  const Manifest* lent_manifest = nullptr;
  // With a lent model, if set: called once the E-step has ended and the model it was built from is
  // freed, before the shard writes its files (the lender may then read its copy back meanwhile).
  // Must not throw.
  std::function<void()> lent_model_freed;
  // The pass's only shard, run inline in the coordinator: once its files are written, its exact
  // sums (the values its exact_counts was written from), the SHA-256 of that file's bytes, as they
  // were written, and the file's identity are moved here, so that the coordinator's reduction takes
  // them instead of reading the file back (shards/reducer.h LendExactSums). Not passed on a
  // command line.
  LentShardSums* lent_sums = nullptr;
};

// What a shard run in the coordinator's process lends back (ShardTask::lent_sums): its exact sums
// (each value in 16 bytes: ExactAccumulators::Compact) and, for exact_counts and for bw's count
// files, which are those sums' too, the SHA-256 of the bytes written, as written, and which file
// that is (its device and inode once in place).
struct LentShardSums {
  struct WrittenFile {
    std::string sha256;
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
  };
  std::optional<ExactAccumulators> sums;
  WrittenFile exact_counts;
  std::vector<WrittenFile> count_files;  // (kBwCountFiles order)
};

// Runs the shard and writes its artifact. Throws InputError/TrainingError on failure (the shard
// directory may then be incomplete; the coordinator never reduces it).
//
// Fault injection for tests (environment variable PSTRAIN_FAULT_INJECTION, comma-separated):
//   delay:SHARD:MILLISECONDS   sleep before writing the artifact (completion-order tests)
//   crash:SHARD:PASS           abort() before writing the artifact
//   hang:SHARD:PASS            sleep for an hour before writing (kill tests)
//   crash-once:SHARD:PASS:FILE abort() before writing unless FILE exists, creating it first (the
//                              retry test of the Slurm launcher: fails the first attempt only)
void RunShardTask(const ShardTask& task);

}  // namespace pstrain
