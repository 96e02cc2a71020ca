// `pstrain accumulate`: one E-step (SphinxTrain's bw) into an accumulator directory.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "common/file_io.h"
#include "model/acoustic_model.h"
#include "training/corpus_pass.h"
#include "training/pass_summary.h"

namespace pstrain::cli {

int RunAccumulate(int argc, char** argv) {
  CorpusInputs inputs;
  AccumulateFlags flags;
  std::string out;
  po::options_description desc("pstrain accumulate options");
  AddCorpusInputOptions(desc, inputs);
  desc.add_options()("out", po::value(&out)->required(), "accumulator directory to write (gauden_counts, mixw_counts, tmat_counts, exact_counts, summary.json)");
  AddAccumulateOptions(desc, flags);
  po::variables_map vm;
  if (!ParseCommandLine(argc, argv, desc,
                        "usage: pstrain accumulate --model DIR --manifest MANIFEST --dict DICT --filler FILLERDICT --out ACCUMDIR [options]\n"
                        "One Baum-Welch E-step over the whole manifest, like SphinxTrain's bw; `norm` can read the result.",
                        vm)) {
    return 0;
  }
  const AccumulateOptions options = ResolveAccumulateOptions(flags);
  const ModelFiles model = ModelFiles::Load(inputs.model);
  const Manifest manifest = Manifest::Load(inputs.manifest);
  const std::filesystem::path root = CorpusRoot(inputs);
  CheckManifest(manifest, root);
  const Dictionary dictionary = LoadMergedDictionary(inputs);
  CheckWords(manifest, dictionary);
  CorpusPassResult result = RunCorpusPass(model, manifest, 0, manifest.size(), root, dictionary, options, &std::cout);
  // Write into a staging directory, then move it into place: never a half-written accumulator dir.
  const std::filesystem::path dest(out);
  const std::filesystem::path staging = (dest.has_parent_path() ? dest.parent_path() : std::filesystem::path(".")) /
                                        ("." + dest.filename().string() + ".staging");
  std::filesystem::remove_all(staging);
  result.accumulators.Write(staging.string());
  WriteFileAtomic(staging / "summary.json", AccumulateSummaryJson(result, manifest.Fingerprint()));
  ReplaceDirectory(staging, dest);
  const double total_log_likelihood = result.total_log_likelihood.value();
  const double per_frame = result.total_frames ? total_log_likelihood / double(result.total_frames) : 0.0;
  std::printf("overall> stats %llu (-0) %e %e\n", static_cast<unsigned long long>(result.total_frames), per_frame,
              total_log_likelihood);
  std::printf("outcomes> processed %u retried %u skipped %u\n", result.n_processed, result.n_retried, result.n_skipped);
  std::printf("Counts saved to %s\n", out.c_str());
  return result.total_frames == 0 ? 1 : 0;
}

}  // namespace pstrain::cli
