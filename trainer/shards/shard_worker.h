// One shard of one pass: the work a `pstrain worker` process (or, with one job, the coordinator
// itself) does. Reads the pass's input model, the manifest range of the shard and the dictionaries,
// runs the E-step, and writes the shard's payload, artifact.json, telemetry.json and worker.log into
// the shard directory.
#pragma once

#include <cstdint>
#include <string>

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
