// `pstrain normalize`: re-estimation from accumulator directories (SphinxTrain's norm).
#include <filesystem>
#include <iostream>
#include <sstream>

#include "common/error.h"
#include "common/file_io.h"
#include "shards/fallback_sidecar.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "common/file_io.h"
#include "common/parallel_for.h"
#include "model/model_checks.h"
#include "reestimate/reestimate.h"

namespace pstrain::cli {

int RunNormalize(int argc, char** argv) {
  std::string accum_list, model_in, out;
  po::options_description desc("pstrain normalize options");
  desc.add_options()
      ("accum", po::value(&accum_list)->required(), "accumulator directories, comma-separated (summed in the given order)")
      ("model-in", po::value(&model_in)->required(), "the model the accumulators were collected with")
      ("out", po::value(&out)->required(), "model directory to write");
  if (!ParseCommandLine(argc, argv, desc,
                        "usage: pstrain normalize --accum ACCUMDIR[,ACCUMDIR...] --model-in DIR --out DIR\n"
                        "Re-estimates means, variances, mixture weights and transition matrices. Densities and rows\n"
                        "without counts keep the input model's parameters.")) {
    return 0;
  }
  std::vector<std::string> dirs;
  std::stringstream list(accum_list);
  for (std::string dir; std::getline(list, dir, ',');) {
    if (!dir.empty()) dirs.push_back(dir);
  }
  if (dirs.empty()) throw UsageError("--accum names no directory");
  // The output directory is replaced as a whole: it must not be, contain or lie inside an input.
  RequireOutput("--out", out);
  RefuseOutputOverlapping("--out", out, "the input model directory", "--model-in", model_in);
  for (const std::string& dir : dirs) RefuseOutputOverlapping("--out", out, "the accumulator directory", "--accum", dir);
  Accumulators total = Accumulators::Read(dirs[0]);
  for (std::size_t i = 1; i < dirs.size(); ++i) total.Add(Accumulators::Read(dirs[i]), dirs[i]);
  const ModelFiles previous = LoadCheckedModel(model_in);
  // Multipron accumulator directories carry the activation sidecar: their union gets the survival
  // prior, once.
  std::vector<std::uint8_t> activated;
  for (const std::string& dir : dirs) {
    const std::filesystem::path path = std::filesystem::path(dir) / kFallbackSidecarFile;
    if (!std::filesystem::exists(path)) continue;
    std::vector<std::uint8_t> flags;
    if (auto problem = DecodeFallbackSidecar(ReadFileText(path), previous.mdef.n_tied_state(), flags)) {
      throw FileError(path.string(), problem->detail + " (" + problem->check + ")");
    }
    if (activated.empty()) activated.assign(flags.size(), 0);
    for (std::size_t i = 0; i < flags.size(); ++i) activated[i] |= flags[i];
  }
  ReestimationReport report;
  const ModelFiles next = Reestimate(total, previous, &report, &activated, CheckParallelism());
  const std::filesystem::path dest(out);
  const std::filesystem::path staging = HiddenSibling(dest, ".staging");
  std::filesystem::remove_all(staging);
  std::filesystem::create_directories(staging);
  DirectorySyncScope staging_sync(staging);  // one fsync per directory, before the rename below
  next.Save(staging.string());
  ReplaceDirectory(staging, dest);
  std::cout << "wrote " << out << "; densities without counts (kept previous): " << report.densities_without_counts
            << ", mixture-weight rows kept: " << report.mixw_rows_without_counts
            << ", transition rows kept: " << report.tmat_rows_without_counts
            << ", negative variances: " << report.negative_variances << "\n";
  return 0;
}

}  // namespace pstrain::cli
