// `norm` (pstrain invoked as `norm`, or `pstrain norm`): SphinxTrain's norm command line. Sums the
// accumulator directories exactly when every one holds a consistent exact_counts (written by
// pstrain's bw), otherwise in float32 as SphinxTrain's norm does, and writes norm's files: means,
// variances, and mixture weights and transition matrices as raw (unnormalized) counts.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <vector>

#include "accumulators/exact_accumulators.h"
#include "cli/commands.h"
#include "cli/sphinxtrain_flags.h"
#include "common/file_io.h"
#include "common/parallel_for.h"
#include "formats/param_files.h"
#include "reestimate/reestimate.h"

namespace pstrain::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kNormUsage =
    "usage: norm -accumdir DIR[,DIR...] -meanfn F -varfn F -mixwfn F -tmatfn F [flags]\n"
    "pstrain's norm: SphinxTrain's norm command line. Reduces exactly when every directory has a\n"
    "consistent exact_counts (pstrain's bw), else sums float32 as SphinxTrain's norm; the log says which.\n"
    "Flags (a flag marked refused, or a value outside the supported list, is an error):\n";

// Reads `dir`'s exact_counts (which the caller found present) into `exact`, and says why it cannot
// be used (empty: it can): it is not the exact form of the float32 files beside it (e.g. the
// directory was rewritten by another bw since).
std::string ExactCountsProblem(const fs::path& dir, ExactAccumulators* exact) {
  *exact = ExactAccumulators::Read(dir.string());
  // The files exact_counts' bw would have written beside it (ExactAccumulators::Write's float32
  // values, no double view of the sums).
  const BwCountFileBytes expected = EncodeBwCountFiles(exact->shape(), exact->pass2var(), exact->CountFloats());
  const bool same = ReadFileBytes(dir / "gauden_counts") == expected.gauden_counts &&
                    ReadFileBytes(dir / "mixw_counts") == expected.mixw_counts &&
                    ReadFileBytes(dir / "tmat_counts") == expected.tmat_counts;
  return same ? "" : (dir / "exact_counts").string() + " does not match the float32 files beside it (rewritten by another bw?)";
}

// SphinxTrain's own norm, for accumulators pstrain's bw does not write: `norm.stock` beside the
// invoked program (what sphinxtrain-bindir links), else $PSTRAIN_STOCK_NORM, else Debian's path.
fs::path StockNorm(const char* argv0) {
  const fs::path beside = fs::path(argv0).parent_path() / "norm.stock";
  if (fs::exists(beside)) return beside;
  if (const char* env = std::getenv("PSTRAIN_STOCK_NORM")) return env;
  return "/usr/lib/sphinxtrain/norm";
}

// init_gau (SphinxTrain's flat start: the global mean and variance) writes gauden_counts alone, in
// a form pstrain does not reduce; such directories go to the stock norm, unchanged command line.
[[noreturn]] void HandOverToStockNorm(int argc, char** argv, const std::string& why) {
  const fs::path stock = StockNorm(argv[0]);
  std::cout << "pstrain norm: " << why << ": handing over to SphinxTrain's norm " << stock.string() << "\n" << std::flush;
  std::vector<char*> args(argv, argv + argc);
  const std::string program = stock.string();
  args[0] = const_cast<char*>(program.c_str());
  args.push_back(nullptr);
  execv(program.c_str(), args.data());
  throw TrainingError("cannot run " + program + ": " + std::strerror(errno));
}

GaussianParams ZeroGaussians(const AccumulatorShape& shape) {
  return GaussianParams::OneStream(shape.n_senones, shape.n_density, shape.veclen);
}

Array3D ZeroArray(std::uint32_t d1, std::uint32_t d2, std::uint32_t d3) {
  Array3D array;
  array.d1 = d1;
  array.d2 = d2;
  array.d3 = d3;
  array.data.assign(std::size_t(d1) * d2 * d3, 0.0f);
  return array;
}

int RunNormChecked(int argc, char** argv) {
  const SphinxFlags flags = SphinxFlags::Parse(argc, argv, NormFlagTable(), "norm");
  std::vector<std::string> dirs;
  std::stringstream list(flags.Require("-accumdir"));
  for (std::string dir; std::getline(list, dir, ',');) {
    if (!dir.empty()) dirs.push_back(dir);
  }
  if (dirs.empty()) throw SphinxFlagError("flag -accumdir names no directory");
  for (const std::string& dir : dirs) {
    const fs::path d(dir);
    if (fs::is_directory(d) && !fs::exists(d / "exact_counts") && (!fs::exists(d / "mixw_counts") || !fs::exists(d / "tmat_counts"))) {
      HandOverToStockNorm(argc, argv, dir + " holds no mixw_counts/tmat_counts (not bw's output, e.g. init_gau's)");
    }
  }
  const std::optional<std::string> meanfn = flags.Get("-meanfn"), varfn = flags.Get("-varfn"), mixwfn = flags.Get("-mixwfn"),
                                   tmatfn = flags.Get("-tmatfn");
  if (!meanfn && !varfn && !mixwfn && !tmatfn) throw SphinxFlagError("no output: give -meanfn, -varfn, -mixwfn and/or -tmatfn");
  if (varfn && !meanfn) throw SphinxFlagError("flag -varfn needs -meanfn (variances are computed around the new means)");
  for (const std::string& dir : dirs) {
    if (!fs::is_directory(dir)) throw FileError(dir, "accumulator directory does not exist");
  }

  // Exact when every directory has a consistent exact_counts; the reason when not. The directories
  // are read and added one at a time, in the given order (integer sums: any order gives the same
  // bits), so memory does not grow with their number: SphinxTrain passes one per part, and holding
  // every part's sums at once took 62.5 MiB for 8 parts of the tied CD benchmark model (the stock
  // norm: 6.8 MiB). A missing exact_counts is looked for first, before anything is read.
  std::string not_exact;
  for (const std::string& dir : dirs) {
    if (!fs::is_regular_file(fs::path(dir) / "exact_counts")) {
      not_exact = dir + " has no exact_counts";
      break;
    }
  }
  std::optional<ExactAccumulators> sum;
  for (std::size_t i = 0; i < dirs.size() && not_exact.empty(); ++i) {
    ExactAccumulators part;
    not_exact = ExactCountsProblem(dirs[i], &part);
    if (!not_exact.empty()) break;
    if (i == 0) {
      sum = std::move(part);
    } else {
      sum->Add(part, dirs[i]);
    }
  }
  Accumulators total;
  if (not_exact.empty()) {
    total = sum->ToAccumulators();
    sum.reset();
    std::cout << "pstrain norm: reduction exact: " << dirs.size() << " accumulator director" << (dirs.size() == 1 ? "y" : "ies")
              << " summed exactly from exact_counts (any grouping gives the same bits)\n";
  } else {
    sum.reset();  // a partial exact sum (a later directory's exact_counts was stale)
    total = Accumulators::ReadBwFormat(dirs[0]);
    for (std::size_t i = 1; i < dirs.size(); ++i) total.AddInFloat32(Accumulators::ReadBwFormat(dirs[i]), dirs[i]);
    std::cout << "pstrain norm: reduction float32: " << dirs.size() << " accumulator director" << (dirs.size() == 1 ? "y" : "ies")
              << " summed in float32 in the given order, as SphinxTrain's norm (" << not_exact << ")\n";
  }

  // What a density, mixture row or transition row without counts gets: -inmeanfn/-invarfn's
  // values when given, else 0, as norm.
  const AccumulatorShape& shape = total.shape();
  ModelFiles previous;
  previous.means = flags.Get("-inmeanfn") ? ReadGaussianFile(*flags.Get("-inmeanfn")) : ZeroGaussians(shape);
  previous.variances = flags.Get("-invarfn") ? ReadGaussianFile(*flags.Get("-invarfn")) : ZeroGaussians(shape);
  if (!previous.variances.SameShape(previous.means)) throw FileError(*flags.Get("-invarfn"), "dimensions differ from the means");
  previous.mixture_weights = ZeroArray(shape.n_senones, 1, shape.n_density);
  previous.transition_matrices = ZeroArray(shape.n_tmat, shape.n_emit_state, shape.n_emit_state + 1);
  ReestimationReport report;
  const ModelFiles next = Reestimate(total, previous, &report, nullptr, CheckParallelism());

  if (meanfn) WriteGaussianFile(*meanfn, next.means);
  if (varfn) WriteGaussianFile(*varfn, next.variances);
  if (mixwfn) WriteArray3DFile(*mixwfn, next.mixture_weights);
  if (tmatfn) WriteArray3DFile(*tmatfn, next.transition_matrices);
  std::cout << "pstrain norm: " << shape.n_senones << " tied states x " << shape.n_density << " densities, " << shape.n_tmat
            << " transition matrices; densities without counts: " << report.densities_without_counts
            << (flags.Get("-inmeanfn") ? " (from -inmeanfn/-invarfn)" : " (written as 0, as norm does)")
            << ", mixture-weight rows without counts: " << report.mixw_rows_without_counts
            << ", transition rows without counts: " << report.tmat_rows_without_counts
            << ", negative variances written as 0: " << report.negative_variances << "\n";
  for (const auto* name : {&meanfn, &varfn, &mixwfn, &tmatfn}) {
    if (*name) std::cout << "pstrain norm: wrote " << **name << "\n";
  }
  return 0;
}

}  // namespace

int RunNorm(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-help" || arg == "--help" || arg == "-h") {
      std::cout << kNormUsage << DescribeFlags(NormFlagTable());
      return 0;
    }
  }
  return RunSphinxTool("norm", [&] { return RunNormChecked(argc, argv); });
}

}  // namespace pstrain::cli
