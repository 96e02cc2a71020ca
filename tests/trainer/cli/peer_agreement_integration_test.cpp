// Agreement with the real SphinxTrain binaries on the bundled corpus (real + synthetic speech):
//   - `pstrain accumulate` vs `/usr/lib/sphinxtrain/bw`: the same utterances succeed, the same total
//     frames, total log-likelihood within 1e-5 relative, and every accumulator element of every
//     density with dnom >= 1 within 1e-4*|bw| + 1e-5*dnom (bw accumulates in float32);
//   - `pstrain normalize` vs `/usr/lib/sphinxtrain/norm` on bw's accumulators.
// These are the checks that catch a defect our serial and sharded paths would share. They fail, not
// skip, when a peer is missing: scripts/bootstrap.sh installs sphinxtrain.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include "accumulators/accumulators.h"
#include "common/file_io.h"
#include "formats/param_files.h"
#include "support/cd_model_util.h"
#include "support/peer_compare_util.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;

constexpr double kLogLikelihoodRtol = 1e-5;
constexpr double kElementRtol = kPeerElementRtol;
constexpr double kElementCountTol = kPeerElementCountTol;

struct BwRun {
  std::set<std::string> succeeded;
  unsigned long long frames = 0;
  double total_log_likelihood = 0.0;
};

std::string BwCommonFlags(const fs::path& model, const fs::path& corpus, const std::string& set) {
  return "-moddeffn " + ShellQuote((model / "mdef").string()) + " -ts2cbfn .cont. -meanfn " + ShellQuote((model / "means").string()) +
         " -varfn " + ShellQuote((model / "variances").string()) + " -mixwfn " + ShellQuote((model / "mixture_weights").string()) +
         " -tmatfn " + ShellQuote((model / "transition_matrices").string()) + " -dictfn " + ShellQuote((corpus / "corpus.dic").string()) +
         " -fdictfn " + ShellQuote((corpus / "corpus.filler").string()) + " -ctlfn " + ShellQuote((corpus / (set + ".fileids")).string()) +
         " -lsnfn " + ShellQuote((corpus / (set + ".transcription")).string()) + " -cepdir " + ShellQuote((corpus / "feat").string()) +
         " -cepext mfc -feat 1s_c_d_dd -ceplen 13 -agc none -cmn batch -varnorm no -mwfloor 1e-8 -varfloor 1e-4 -tpfloor 1e-4"
         " -abeam 1e-90 -bbeam 1e-10 -timing no";
}

// Runs the real bw; parses its stdout: utterances with a complete `utt>` line succeeded.
BwRun RunBw(const fs::path& model, std::uint32_t topn, bool pass2var, const fs::path& accum_dir) {
  if (!fs::exists(kBw)) ADD_FAILURE() << kBw << " is missing: install Debian's sphinxtrain (scripts/bootstrap.sh)";
  fs::create_directories(accum_dir);
  const fs::path log = accum_dir.parent_path() / (accum_dir.filename().string() + ".log");
  const std::string command = "timeout 300 " + std::string(kBw) + " " + BwCommonFlags(model, CorpusDir(), "train") +
                              " -topn " + std::to_string(topn) + " -2passvar " + (pass2var ? "yes" : "no") + " -accumdir " +
                              ShellQuote(accum_dir.string()) + " > " + ShellQuote(log.string()) + " 2>/dev/null";
  CommandResult r = RunCommand(command);
  EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.output;
  const BwLog parsed = ParseBwLog(log);
  BwRun run;
  run.succeeded.insert(parsed.succeeded.begin(), parsed.succeeded.end());
  run.frames = parsed.frames;
  run.total_log_likelihood = parsed.total_log_likelihood;
  EXPECT_GT(run.frames, 0u) << "no overall> line in " << log;
  return run;
}

struct PstrainRun {
  std::set<std::string> succeeded;
  unsigned long long frames = 0;
  double total_log_likelihood = 0.0;
};

PstrainRun RunPstrainAccumulate(const fs::path& model, std::uint32_t topn, bool pass2var, const fs::path& out) {
  const fs::path corpus = CorpusDir();
  const std::string command = Pstrain("accumulate --model " + ShellQuote(model.string()) + " --manifest " +
                                      ShellQuote(TrainManifest().string()) + " --dict " + ShellQuote((corpus / "corpus.dic").string()) +
                                      " --filler " + ShellQuote((corpus / "corpus.filler").string()) + " --out " + ShellQuote(out.string()) +
                                      " --cmn batch --topn " + std::to_string(topn) + " --abeam 1e-90 --bbeam 1e-10 --varfloor 1e-4" +
                                      " --mwfloor 1e-8 --tpfloor 1e-4 --retry-beams none --2passvar " + (pass2var ? "yes" : "no"));
  CommandResult r = RunCommand(command);
  EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.output;
  PstrainRun run;
  const boost::json::value summary = boost::json::parse(ReadFileText(out / "summary.json"));
  for (const auto& id : summary.at("processed_ids").as_array()) run.succeeded.insert(std::string(id.as_string()));
  run.frames = summary.at("totals").at("total_frames").to_number<unsigned long long>();
  run.total_log_likelihood = summary.at("totals").at("total_log_likelihood").to_number<double>();
  return run;
}

void CompareAccumulators(const fs::path& ours_dir, const fs::path& bw_dir) {
  const PeerComparison c = CompareWithBw(ours_dir, bw_dir);
  ASSERT_TRUE(c.shapes_match) << c.worst_where;
  EXPECT_GT(c.densities, 50u) << "too few densities with counts to compare";
  std::cout << "[peer] compared " << c.elements << " elements of " << c.densities << " densities; worst: " << c.worst_where
            << " |diff|=" << c.worst_abs_diff << " rel=" << c.worst_rel_diff << " (" << c.worst_ratio * 100.0
            << "% of the allowed difference)\n";
  EXPECT_LE(c.worst_ratio, 1.0) << "largest difference exceeds 1e-4*|bw| + 1e-5*dnom at " << c.worst_where;
}

struct PeerCase {
  const char* name;
  bool pass2var;
  bool context_dependent;
};
// How GoogleTest prints a case (without it, the struct's bytes, its padding among them: valgrind
// reported reading those uninitialized bytes when the cases were registered).
void PrintTo(const PeerCase& c, std::ostream* out) { *out << c.name; }

class AccumulateAgreesWithBw : public ::testing::TestWithParam<PeerCase> {};

TEST_P(AccumulateAgreesWithBw, SameUtterancesFramesLikelihoodAndCounts) {
  const PeerCase& c = GetParam();
  const fs::path dir = FreshDir(std::string("peer-") + c.name);
  const fs::path model = c.context_dependent ? UntiedCdModel(dir) : An4Model();
  const BwRun bw = RunBw(model, 1, c.pass2var, dir / "bw");
  const PstrainRun ours = RunPstrainAccumulate(model, 1, c.pass2var, dir / "ours");
  EXPECT_EQ(ours.succeeded, bw.succeeded);
  EXPECT_GT(bw.succeeded.size(), 10u);
  EXPECT_EQ(ours.frames, bw.frames);
  const double rel = std::fabs(ours.total_log_likelihood - bw.total_log_likelihood) / std::fabs(bw.total_log_likelihood);
  std::cout << "[peer] " << bw.succeeded.size() << " utterances, " << bw.frames << " frames; total log-likelihood bw "
            << bw.total_log_likelihood << " ours " << ours.total_log_likelihood << " (rel diff " << rel << ")\n";
  EXPECT_LE(rel, kLogLikelihoodRtol);
  CompareAccumulators(dir / "ours", dir / "bw");
}

INSTANTIATE_TEST_SUITE_P(Pass1Flags, AccumulateAgreesWithBw,
                         ::testing::Values(PeerCase{"ci_onepassvar", false, false}, PeerCase{"ci_twopassvar", true, false},
                                           PeerCase{"cd_untied_onepassvar", false, true}),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

// norm writes raw mixture-weight and transition counts; compare rows after normalization.
void CompareNormalizedRows(const Array3D& ours, const Array3D& theirs, const char* what) {
  ASSERT_EQ(ours.data.size(), theirs.data.size());
  double worst = 0.0;
  std::size_t rows = 0;
  const std::size_t width = theirs.d3;
  for (std::size_t row = 0; row * width < theirs.data.size(); ++row) {
    double sum_ours = 0.0, sum_theirs = 0.0;
    for (std::size_t k = 0; k < width; ++k) {
      sum_ours += ours.data[row * width + k];
      sum_theirs += theirs.data[row * width + k];
    }
    if (sum_theirs < 1.0) continue;  // norm writes zeros for unseen rows; we keep the previous row
    ++rows;
    for (std::size_t k = 0; k < width; ++k) {
      const double a = ours.data[row * width + k] / sum_ours, b = theirs.data[row * width + k] / sum_theirs;
      const double ratio = std::fabs(a - b) / (kElementRtol * std::fabs(b) + kElementCountTol);
      worst = std::max(worst, ratio);
      EXPECT_LE(ratio, 1.0) << what << " row " << row << " entry " << k << ": ours " << a << " norm " << b;
    }
  }
  EXPECT_GT(rows, 10u);
  std::cout << "[norm] " << what << ": " << rows << " rows, worst " << worst * 100.0 << "% of allowed\n";
}

TEST(NormalizeAgreesWithNorm, OnBwAccumulators) {
  if (!fs::exists(kNorm)) FAIL() << kNorm << " is missing: install Debian's sphinxtrain (scripts/bootstrap.sh)";
  const fs::path dir = FreshDir("norm-agreement");
  RunBw(An4Model(), 1, false, dir / "bw");
  const fs::path norm_out = dir / "norm";
  fs::create_directories(norm_out);
  const fs::path m = An4Model();
  CommandResult norm = RunCommand("timeout 120 " + std::string(kNorm) + " -accumdir " + ShellQuote((dir / "bw").string()) + " -meanfn " +
                                  ShellQuote((norm_out / "means").string()) + " -varfn " + ShellQuote((norm_out / "variances").string()) +
                                  " -mixwfn " + ShellQuote((norm_out / "mixture_weights").string()) + " -tmatfn " +
                                  ShellQuote((norm_out / "transition_matrices").string()) + " -inmeanfn " +
                                  ShellQuote((m / "means").string()) + " -invarfn " + ShellQuote((m / "variances").string()));
  ASSERT_EQ(norm.exit_code, 0) << norm.output;
  CommandResult ours = RunCommand(Pstrain("normalize --accum " + ShellQuote((dir / "bw").string()) + " --model-in " +
                                          ShellQuote(m.string()) + " --out " + ShellQuote((dir / "ours").string())));
  ASSERT_EQ(ours.exit_code, 0) << ours.output;

  const GaudenCounts counts = ReadGaudenCountsFile((dir / "bw" / "gauden_counts").string());
  for (const char* file : {"means", "variances"}) {
    const GaussianParams a = ReadGaussianFile((dir / "ours" / file).string());
    const GaussianParams b = ReadGaussianFile((norm_out / file).string());
    ASSERT_TRUE(a.SameShape(b));
    double worst = 0.0;
    std::size_t compared = 0;
    const std::uint32_t veclen = b.veclen[0];
    for (std::size_t dens = 0; dens < counts.dnom.size(); ++dens) {
      for (std::uint32_t l = 0; l < veclen; ++l) {
        const double x = a.data[dens * veclen + l], y = b.data[dens * veclen + l];
        if (counts.dnom[dens] == 0.0) {
          EXPECT_EQ(x, y) << file << ": unseen density " << dens << " must keep the input parameter, as norm -inmeanfn/-invarfn does";
          continue;
        }
        if (counts.dnom[dens] < 1.0) continue;
        ++compared;
        // norm computes sigma^2 = E[x^2] - mu^2 in float32; allow its cancellation error, scaled by E[x^2].
        const double scale = std::string(file) == "variances"
                                 ? counts.var[dens * veclen + l] / counts.dnom[dens]
                                 : std::fabs(y);
        const double ratio = std::fabs(x - y) / (kElementRtol * scale + kElementCountTol);
        worst = std::max(worst, ratio);
        EXPECT_LE(ratio, 1.0) << file << " density " << dens << " dim " << l << ": ours " << x << " norm " << y;
      }
    }
    EXPECT_GT(compared, 1000u);
    std::cout << "[norm] " << file << ": " << compared << " elements, worst " << worst * 100.0 << "% of allowed\n";
  }
  CompareNormalizedRows(ReadArray3DFile((dir / "ours" / "mixture_weights").string()),
                        ReadArray3DFile((norm_out / "mixture_weights").string()), "mixture_weights");
  CompareNormalizedRows(ReadArray3DFile((dir / "ours" / "transition_matrices").string()),
                        ReadArray3DFile((norm_out / "transition_matrices").string()), "transition_matrices");
}

}  // namespace
}  // namespace pstrain::testing
