// Our readers and writers against accumulator files written by the REAL SphinxTrain bw
// (/usr/lib/sphinxtrain/bw) on the bundled corpus: gauden_counts, mixw_counts and tmat_counts must
// re-encode to exactly the bytes bw wrote, and Accumulators::Read must see the right shape and the
// pass2var flag. Fails (does not skip) when bw is missing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "accumulators/accumulators.h"
#include "common/error.h"
#include "common/file_io.h"
#include "formats/param_files.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A fresh directory for this file's tests: test-scratch/bw_accumulator_roundtrip/NAME.
fs::path ScratchDir(const std::string& name) { return FreshDir("bw_accumulator_roundtrip/" + name); }

struct BwResult {
  CommandResult command;
  unsigned long long frames = 0;  // from bw's "overall> stats FRAMES ..." line
};

// Runs the real bw over the default corpus's training set into `accum_dir` (which must exist: bw
// retries a failed write forever, hence the timeout).
BwResult RunBw(const fs::path& accum_dir, bool pass2var) {
  BwResult result;
  if (!fs::exists(kBw)) {
    ADD_FAILURE() << kBw << " is missing: install the Debian package sphinxtrain (scripts/bootstrap.sh does)";
    return result;
  }
  const fs::path model = An4Model();
  const fs::path corpus = CorpusDir();
  const std::string command =
      "timeout 120 " + std::string(kBw) + " -moddeffn " + ShellQuote((model / "mdef").string()) + " -ts2cbfn .cont." +
      " -meanfn " + ShellQuote((model / "means").string()) + " -varfn " + ShellQuote((model / "variances").string()) +
      " -mixwfn " + ShellQuote((model / "mixture_weights").string()) + " -tmatfn " +
      ShellQuote((model / "transition_matrices").string()) + " -dictfn " + ShellQuote((corpus / "corpus.dic").string()) +
      " -fdictfn " + ShellQuote((corpus / "corpus.filler").string()) + " -ctlfn " +
      ShellQuote((corpus / "train.fileids").string()) + " -lsnfn " + ShellQuote((corpus / "train.transcription").string()) +
      " -cepdir " + ShellQuote((corpus / "feat").string()) + " -cepext mfc" + " -accumdir " + ShellQuote(accum_dir.string()) +
      " -feat 1s_c_d_dd -ceplen 13 -cmn batch -agc none -varnorm no -mwfloor 1e-8 -varfloor 1e-4 -topn 1"
      " -abeam 1e-90 -bbeam 1e-10 -2passvar " +
      (pass2var ? "yes" : "no") + " -timing no";
  result.command = RunCommand(command);
  EXPECT_EQ(result.command.exit_code, 0) << command << "\n" << result.command.output;
  std::istringstream in(result.command.output);
  for (std::string line; std::getline(in, line);) {
    std::istringstream tokens(line);
    std::string tag, stats;
    if (tokens >> tag >> stats && tag == "overall>" && stats == "stats") tokens >> result.frames;
  }
  EXPECT_GT(result.frames, 0u) << "no overall> stats line in bw's output:\n" << result.command.output;
  return result;
}

double Sum(const std::vector<double>& values) { return std::accumulate(values.begin(), values.end(), 0.0); }

TEST(BwAccumulatorRoundTripTest, BwCountFilesReencodeByteIdentically) {
  struct Case {
    const char* name;
    bool pass2var;
  };
  const Case cases[] = {{"bw_roundtrip_1pass", false}, {"bw_roundtrip_2passvar", true}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path dir = ScratchDir(c.name);
    RunBw(dir, c.pass2var);
    // Exactly the three files of a default bw run (no exact_counts: that one is ours).
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    ASSERT_EQ(names, (std::vector<std::string>{"gauden_counts", "mixw_counts", "tmat_counts"}));

    // Sizes from docs: 44 + 6*4 + 4+4 + 2*(4 + 3978*4) + 16 + 102*4 + 4; 3-D arrays as the model files.
    const std::vector<std::uint8_t> gauden_bytes = ReadFileBytes(dir / "gauden_counts");
    EXPECT_EQ(gauden_bytes.size(), 32332u);
    const GaudenCounts gauden = ReadGaudenCountsFile((dir / "gauden_counts").string());
    EXPECT_TRUE(gauden.has_means);
    EXPECT_TRUE(gauden.has_vars);
    EXPECT_EQ(gauden.pass2var, c.pass2var);
    EXPECT_EQ(gauden.n_cb, 102u);
    EXPECT_EQ(gauden.n_density, 1u);
    EXPECT_EQ(gauden.veclen, std::vector<std::uint32_t>{39});
    EXPECT_TRUE(EncodeGaudenCountsFile(gauden) == gauden_bytes) << "gauden_counts does not re-encode to bw's bytes";

    struct ArrayCase {
      const char* file;
      std::uint32_t d1, d2, d3;
      std::size_t size;
    };
    const ArrayCase arrays[] = {{"mixw_counts", 102, 1, 1, 472}, {"tmat_counts", 34, 3, 4, 1696}};
    for (const ArrayCase& a : arrays) {
      SCOPED_TRACE(a.file);
      const std::vector<std::uint8_t> bytes = ReadFileBytes(dir / a.file);
      EXPECT_EQ(bytes.size(), a.size);
      const Array3D array = ReadArray3DFile((dir / a.file).string());
      EXPECT_EQ(array.d1, a.d1);
      EXPECT_EQ(array.d2, a.d2);
      EXPECT_EQ(array.d3, a.d3);
      EXPECT_GT(std::accumulate(array.data.begin(), array.data.end(), 0.0), 0.0) << "bw accumulated nothing";
      EXPECT_TRUE(EncodeArray3DFile(array) == bytes) << a.file << " does not re-encode to bw's bytes";
    }
  }
}

TEST(BwAccumulatorRoundTripTest, AccumulatorsReadBwDirectory) {
  const fs::path dir = ScratchDir("bw_accumulators_read");
  const BwResult bw = RunBw(dir, /*pass2var=*/false);
  const Accumulators acc = Accumulators::Read(dir.string());
  const AccumulatorShape expected{/*n_senones=*/102, /*n_density=*/1, /*veclen=*/39, /*n_tmat=*/34, /*n_emit_state=*/3};
  EXPECT_EQ(acc.shape(), expected);
  EXPECT_FALSE(acc.pass2var());
  EXPECT_EQ(acc.mixw_data().size(), 102u);
  EXPECT_EQ(acc.dnom_data().size(), 102u);
  EXPECT_EQ(acc.mean_data().size(), 102u * 39u);
  EXPECT_EQ(acc.var_data().size(), 102u * 39u);
  EXPECT_EQ(acc.tmat_data().size(), 34u * 3u * 4u);
  // Every frame of every aligned utterance has total state posterior 1: the dnom sum is bw's frame
  // count (up to float32 accumulation), and mixw counts are the same quantity.
  const double dnom_total = Sum(acc.dnom_data());
  EXPECT_NEAR(dnom_total, double(bw.frames), 1e-6 * double(bw.frames));
  EXPECT_NEAR(Sum(acc.mixw_data()), dnom_total, 1e-5 * dnom_total);
  // The values are bw's float32 values, widened.
  const GaudenCounts gauden = ReadGaudenCountsFile((dir / "gauden_counts").string());
  ASSERT_EQ(gauden.dnom.size(), acc.dnom_data().size());
  for (std::size_t senone = 0; senone < gauden.dnom.size(); ++senone) {
    EXPECT_EQ(acc.dnom_data()[senone], double(gauden.dnom[senone])) << "senone " << senone;
  }
  ASSERT_EQ(gauden.var.size(), acc.var_data().size());
  for (std::size_t idx = 0; idx < gauden.var.size(); ++idx) {
    ASSERT_EQ(acc.var_data()[idx], double(gauden.var[idx])) << "var element " << idx;
  }
  // Writing them back in bw's format gives bw's bytes (no exact_counts was read, so nothing is lost).
  EXPECT_TRUE(EncodeGaudenCountsFile(acc.ToGaudenCounts()) == ReadFileBytes(dir / "gauden_counts"));
  EXPECT_TRUE(EncodeArray3DFile(acc.ToMixwCounts()) == ReadFileBytes(dir / "mixw_counts"));
  EXPECT_TRUE(EncodeArray3DFile(acc.ToTmatCounts()) == ReadFileBytes(dir / "tmat_counts"));
}

TEST(BwAccumulatorRoundTripTest, TwoPassVarianceFlagReadsBack) {
  const fs::path one_pass = ScratchDir("bw_pass2var_no");
  const fs::path two_pass = ScratchDir("bw_pass2var_yes");
  RunBw(one_pass, /*pass2var=*/false);
  RunBw(two_pass, /*pass2var=*/true);
  const Accumulators acc1 = Accumulators::Read(one_pass.string());
  const Accumulators acc2 = Accumulators::Read(two_pass.string());
  EXPECT_FALSE(acc1.pass2var());
  EXPECT_TRUE(acc2.pass2var());
  EXPECT_EQ(acc2.shape(), acc1.shape());
  // Only the variance accumulators change: around the input means instead of around zero.
  EXPECT_EQ(acc2.dnom_data(), acc1.dnom_data());
  EXPECT_EQ(acc2.mean_data(), acc1.mean_data());
  EXPECT_NE(acc2.var_data(), acc1.var_data());
  EXPECT_LT(Sum(acc2.var_data()), Sum(acc1.var_data()));  // sum of squares about the mean is smaller
  // A 2-pass and a 1-pass directory cannot be added.
  Accumulators mixed = acc1;
  try {
    mixed.Add(acc2, "mixed run");
    ADD_FAILURE() << "adding 1-pass and 2-pass accumulators should be an InputError";
  } catch (const InputError& error) {
    EXPECT_THAT(error.what(), HasSubstr("mixed run"));
    EXPECT_THAT(error.what(), HasSubstr("2-pass"));
  }
}

}  // namespace
}  // namespace pstrain::testing
