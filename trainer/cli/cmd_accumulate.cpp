// `pstrain accumulate`: one E-step (SphinxTrain's bw) into an accumulator directory, optionally
// sharded over worker processes (--jobs N), with the same artifacts, validation and reduction as
// a training pass.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/options/launch_options.h"
#include "cli/options/pass_inputs_options.h"
#include "common/file_io.h"
#include "coordinator/pass_runner.h"
#include "model/model_checks.h"
#include "shards/partition.h"
#include "coordinator/pass_summary.h"

namespace pstrain::cli {

namespace fs = std::filesystem;

int RunAccumulate(int argc, char** argv) {
  CorpusInputs inputs;
  PassInputs pass_inputs;
  LaunchOptions launch;
  std::string out;
  po::options_description desc("pstrain accumulate options");
  AddOptions(desc, inputs);
  desc.add_options()
      ("out", po::value(&out)->required(), "accumulator directory to write (gauden_counts, mixw_counts, tmat_counts, exact_counts, summary.json, shards/)");
  AddOptions(desc, launch);
  AddOptions(desc, pass_inputs);
  if (!ParseCommandLine(argc, argv, desc,
                        "usage: pstrain accumulate --model DIR --manifest MANIFEST --dict DICT --filler FILLERDICT --out ACCUMDIR [options]\n"
                        "One Baum-Welch E-step over the whole manifest, like SphinxTrain's bw; `norm` can read the result.")) {
    return 0;
  }
  CheckOutputApartFromInputs(out, inputs, {});  // ACCUMDIR is replaced as a whole
  ResolvePassInputs(inputs, pass_inputs);
  LoadCheckedModel(inputs.model);  // bad model files fail here, before any worker starts
  const Manifest manifest = Manifest::Load(inputs.manifest);
  CheckManifest(manifest, pass_inputs.corpus_root);
  CheckWords(manifest, LoadMergedDictionary(inputs));
  std::unique_ptr<Launcher> launcher = MakeLauncher(launch);

  // Everything is built in a staging directory and moved into place whole.
  const fs::path dest(out);
  const fs::path staging = HiddenSibling(dest, ".staging");
  fs::remove_all(staging);
  fs::create_directories(staging);
  DirectorySyncScope staging_sync(staging);  // one fsync per directory, before the rename below
  const std::uint32_t shard_count = EffectiveShardCount(launch.jobs, manifest.size());
  const ShardedPassResult result = RunShardedPass(pass_inputs, manifest, 1, shard_count, staging / "shards", *launcher);
  for (std::uint32_t shard = 0; shard < shard_count; ++shard) {
    std::ifstream log(staging / "shards" / ShardDirName(shard) / "worker.log");
    std::cout << log.rdbuf();
  }
  WriteReducedStatistics(result.reduced, staging);
  WriteFileAtomic(staging / "summary.json", AccumulateSummaryJson(result.artifacts, result.reduced, launch.jobs, ReductionModeName(pass_inputs.reduction)));
  ReplaceDirectory(staging, dest);
  const double total_log_likelihood = result.reduced.log_likelihood.value();
  const std::uint64_t frames = result.reduced.total_frames;
  std::size_t processed = 0, retried = 0, skipped = 0;
  for (const ShardArtifact& a : result.artifacts) {
    processed += a.processed_ids.size();
    retried += a.retried_ids.size();
    skipped += a.skipped.size();
  }
  std::printf("overall> stats %llu (-0) %e %e\n", static_cast<unsigned long long>(frames), frames ? total_log_likelihood / double(frames) : 0.0,
              total_log_likelihood);
  std::printf("outcomes> processed %zu retried %zu skipped %zu (%u shard%s)\n", processed, retried, skipped, shard_count, shard_count == 1 ? "" : "s");
  std::printf("Counts saved to %s\n", out.c_str());
  return frames == 0 ? 1 : 0;
}

}  // namespace pstrain::cli
