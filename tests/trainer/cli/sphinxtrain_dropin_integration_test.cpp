// pstrain as a drop-in for SphinxTrain's bw and norm (docs/sphinxtrain.md): the partition rule
// against the real bw, SphinxTrain's norm reading pstrain's accumulators, norm's float32 and exact
// reductions, refused flags as the FATAL lines SphinxTrain's scripts detect, no accidental
// failure/completion words, the bindir, and stage 20.ci_hmm of the real perl pipeline giving the
// same bytes for CFG_NPART 1 and 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "accumulators/exact_accumulators.h"
#include "common/file_io.h"
#include "formats/param_files.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;

// bw's flags as SphinxTrain's 20.ci_hmm/baum_welch.pl passes them (an4_ci_cont, the default corpus;
// by default its train.fileids and train.transcription).
std::string StageFlags(const fs::path& accum, const fs::path& ctl = CorpusDir() / "train.fileids",
                       const fs::path& lsn = CorpusDir() / "train.transcription") {
  const fs::path model = An4Model(), corpus = CorpusDir();
  return "-moddeffn " + ShellQuote((model / "mdef").string()) + " -ts2cbfn .cont. -mixwfn " + ShellQuote((model / "mixture_weights").string()) +
         " -mwfloor 1e-08 -tmatfn " + ShellQuote((model / "transition_matrices").string()) + " -meanfn " + ShellQuote((model / "means").string()) +
         " -varfn " + ShellQuote((model / "variances").string()) + " -dictfn " + ShellQuote((corpus / "corpus.dic").string()) + " -fdictfn " +
         ShellQuote((corpus / "corpus.filler").string()) + " -ctlfn " + ShellQuote(ctl.string()) + " -cepdir " +
         ShellQuote((corpus / "feat").string()) + " -cepext mfc -lsnfn " + ShellQuote(lsn.string()) +
         " -accumdir " + ShellQuote(accum.string()) +
         " -varfloor 0.0001 -topn 1 -abeam 1e-90 -bbeam 1e-10 -agc none -cmn batch -varnorm no -meanreest yes -varreest yes"
         " -2passvar no -tmatreest yes -fullvar no -diagfull no -feat 1s_c_d_dd -ceplen 13 -timing no";
}

std::string PartFlags(std::uint32_t part, std::uint32_t npart) { return " -part " + std::to_string(part) + " -npart " + std::to_string(npart); }

// A bw log's `utt>` lines, in order: their number (second field) and utterance id (third field, in
// both tools).
struct UttLine {
  std::size_t number = 0;
  std::string id;
};
std::vector<UttLine> UttLines(const std::string& log) {
  std::vector<UttLine> lines;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("utt>", 0) != 0) continue;
    std::istringstream fields(line);
    std::string tag;
    UttLine utt;
    fields >> tag >> utt.number >> utt.id;
    lines.push_back(std::move(utt));
  }
  return lines;
}

std::vector<std::string> UttIds(const std::string& log) {
  std::vector<std::string> ids;
  for (const UttLine& utt : UttLines(log)) ids.push_back(utt.id);
  return ids;
}

// The number of a bw log's first `utt>` line, 0 when there is none.
std::size_t FirstUttNumber(const std::string& log) {
  const std::vector<UttLine> lines = UttLines(log);
  return lines.empty() ? 0 : lines.front().number;
}

// norm's output flags into `out` (created).
std::string NormOutputFlags(const fs::path& out) {
  fs::create_directories(out);
  return " -meanfn " + ShellQuote((out / "means").string()) + " -varfn " + ShellQuote((out / "variances").string()) + " -mixwfn " +
         ShellQuote((out / "mixture_weights").string()) + " -tmatfn " + ShellQuote((out / "transition_matrices").string()) +
         " -fullvar no";
}

// The first n lines of a text file.
std::vector<std::string> FirstLines(const fs::path& path, std::size_t n) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; lines.size() < n && std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The words and patterns by which SphinxTrain's scripts recognize failure and completion:
// RunTool's /^FATAL:.*line \d+/, WaitForConvergence's /failed/, /Aborting/ and /COMPLETE/
// (scripts/lib/SphinxTrain/Util.pm). Returns the offending lines.
std::vector<std::string> MarkerLines(const std::string& output, bool fatal_allowed) {
  static const std::regex fatal("^FATAL:.*line [0-9]+");
  static const std::regex words("failed|Aborting|COMPLETE", std::regex::icase);
  std::vector<std::string> bad;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, words) || (!fatal_allowed && std::regex_search(line, fatal))) bad.push_back(line);
  }
  return bad;
}

std::size_t FatalLines(const std::string& output) {
  static const std::regex fatal("^FATAL:.*line [0-9]+");
  std::size_t n = 0;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) n += std::regex_search(line, fatal);
  return n;
}

std::vector<std::uint8_t> Bytes(const fs::path& path) { return ReadFileBytes(path); }

TEST(SphinxtrainDropin, PartitionMatchesRealBw) {
  const fs::path dir = FreshDir("sphinxtrain_dropin/partition");
  for (std::uint32_t npart : {2u, 3u}) {
    std::size_t total = 0;
    for (std::uint32_t part = 1; part <= npart; ++part) {
      const std::string tag = std::to_string(part) + "of" + std::to_string(npart);
      fs::create_directories(dir / ("stock" + tag));  // the real bw does not create its -accumdir
      const CommandResult stock = RunCommand("timeout 120 " + std::string(kBw) + " " + StageFlags(dir / ("stock" + tag)) + PartFlags(part, npart));
      const CommandResult ours = RunCommand("timeout 120 " + Pstrain("bw " + StageFlags(dir / ("ours" + tag)) + PartFlags(part, npart)));
      ASSERT_EQ(ours.exit_code, 0) << ours.output;
      ASSERT_NE(stock.output.find("Counts saved to"), std::string::npos) << stock.output;
      const std::vector<std::string> stock_ids = UttIds(stock.output), our_ids = UttIds(ours.output);
      ASSERT_FALSE(our_ids.empty());
      // bw prints utt> only for utterances it processed; pstrain prints one for every utterance of
      // the part (skipped ones too). Every id bw printed must be ours, in the same order.
      std::size_t j = 0;
      for (const std::string& id : stock_ids) {
        while (j < our_ids.size() && our_ids[j] != id) ++j;
        ASSERT_LT(j, our_ids.size()) << "part " << tag << ": bw processed " << id << ", which pstrain's part does not hold";
      }
      // The rule: floor(92 / npart) per part (Debian's bw counts 93 - 1 lines), the rest to the last.
      const std::size_t expected = part < npart ? 92 / npart : 93 - (npart - 1) * (92 / npart);
      if (stock_ids.size() == expected) {
        EXPECT_EQ(stock_ids, our_ids) << "part " << tag;
      }
      EXPECT_EQ(our_ids.size(), expected) << "part " << tag;
      // A part's utt> lines are numbered by position in the whole control file (1-based), though
      // its manifest holds its own utterances only.
      EXPECT_EQ(FirstUttNumber(ours.output), total + 1) << "part " << tag;
      total += our_ids.size();
    }
    EXPECT_EQ(total, 93u);
  }
}

// -nskip/-runlen count raw control lines, comments included: a range may hold comments only, or
// start and end on them. Each part holds the utterances on its lines, numbered by position in the
// whole control file; a part without any writes (zero) counts and succeeds, as bw does.
TEST(SphinxtrainDropin, SkipAndRunLengthRangesWithCommentLines) {
  const fs::path dir = FreshDir("sphinxtrain_dropin/nskip_runlen");
  const std::vector<std::string> ids = FirstLines(CorpusDir() / "train.fileids", 3);
  const fs::path ctl = dir / "part.fileids", lsn = dir / "part.transcription";
  {
    std::ofstream(ctl) << "# first\n" << ids[0] << "\n# second\n" << ids[1] << "\n" << ids[2] << "\n";  // 5 lines
    std::ofstream out(lsn);
    for (const std::string& line : FirstLines(CorpusDir() / "train.transcription", 3)) out << line << "\n";
  }
  struct Case {
    const char* flags;
    std::vector<std::string> expected_ids;
    std::size_t first_number;  // of the first utt> line (0: none)
  };
  const Case cases[] = {
      {" -nskip 2 -runlen 1", {}, 0},                         // line 3, a comment
      {" -nskip 0 -runlen 2", {ids[0]}, 1},                   // lines 1-2: a comment, then ids[0]
      {" -nskip 2 -runlen 3", {ids[1], ids[2]}, 2},           // lines 3-5: starts on a comment
      {" -nskip 9 -runlen 2", {}, 0},                         // past the end
  };
  int n = 0;
  for (const Case& c : cases) {
    const fs::path accum = dir / ("accum" + std::to_string(n++));
    const CommandResult ours = RunCommand("timeout 120 " + Pstrain("bw " + StageFlags(accum, ctl, lsn) + c.flags));
    ASSERT_EQ(ours.exit_code, 0) << c.flags << "\n" << ours.output;
    EXPECT_NE(ours.output.find(": " + std::to_string(c.expected_ids.size()) + " utterances"), std::string::npos) << c.flags << "\n" << ours.output;
    EXPECT_EQ(UttIds(ours.output), c.expected_ids) << c.flags;
    EXPECT_EQ(FirstUttNumber(ours.output), c.first_number) << c.flags;
    EXPECT_NE(ours.output.find("Counts saved to"), std::string::npos) << c.flags;
    EXPECT_TRUE(fs::exists(accum / "gauden_counts")) << c.flags;
  }
}

TEST(SphinxtrainDropin, SphinxTrainNormReadsPstrainCountsAndBothNormsAgree) {
  const fs::path dir = FreshDir("sphinxtrain_dropin/norm");
  // pstrain bw in two parts and the real bw in two parts.
  for (std::uint32_t part = 1; part <= 2; ++part) {
    const CommandResult ours = RunCommand("timeout 120 " + Pstrain("bw " + StageFlags(dir / ("ours" + std::to_string(part))) + PartFlags(part, 2)));
    ASSERT_EQ(ours.exit_code, 0) << ours.output;
    EXPECT_TRUE(MarkerLines(ours.output, false).empty()) << ours.output;
    ASSERT_TRUE(fs::exists(dir / ("ours" + std::to_string(part)) / "exact_counts"));
    fs::create_directories(dir / ("stock" + std::to_string(part)));  // the real bw does not create its -accumdir
    const CommandResult stock = RunCommand("timeout 120 " + std::string(kBw) + " " + StageFlags(dir / ("stock" + std::to_string(part))) + PartFlags(part, 2));
    ASSERT_NE(stock.output.find("Counts saved to"), std::string::npos) << stock.output;
  }
  const std::string ours_dirs = (dir / "ours1").string() + "," + (dir / "ours2").string();
  const std::string stock_dirs = (dir / "stock1").string() + "," + (dir / "stock2").string();
  auto outputs = [&](const std::string& name) { return NormOutputFlags(dir / name); };
  // SphinxTrain's norm reads pstrain's accumulators.
  const CommandResult real_on_ours = RunCommand("timeout 120 " + std::string(kNorm) + " -accumdir " + ours_dirs + outputs("real_on_ours"));
  ASSERT_EQ(real_on_ours.exit_code, 0) << real_on_ours.output;
  EXPECT_EQ(FatalLines(real_on_ours.output), 0u) << real_on_ours.output;
  // pstrain's norm on its own directories: exact.
  const CommandResult exact = RunCommand(Pstrain("norm -accumdir " + ours_dirs + outputs("exact")));
  ASSERT_EQ(exact.exit_code, 0) << exact.output;
  EXPECT_NE(exact.output.find("reduction exact"), std::string::npos) << exact.output;
  EXPECT_TRUE(MarkerLines(exact.output, false).empty()) << exact.output;
  // pstrain's norm on the real bw's directories: float32, SphinxTrain's sums; the raw counts it
  // writes for mixture weights and transition matrices are the real norm's, bit for bit.
  const CommandResult real = RunCommand("timeout 120 " + std::string(kNorm) + " -accumdir " + stock_dirs + outputs("real"));
  ASSERT_EQ(real.exit_code, 0) << real.output;
  const CommandResult float32 = RunCommand(Pstrain("norm -accumdir " + stock_dirs + outputs("float32")));
  ASSERT_EQ(float32.exit_code, 0) << float32.output;
  EXPECT_NE(float32.output.find("reduction float32"), std::string::npos) << float32.output;
  EXPECT_TRUE(MarkerLines(float32.output, false).empty()) << float32.output;
  for (const char* file : {"mixture_weights", "transition_matrices"}) {
    EXPECT_EQ(Bytes(dir / "float32" / file), Bytes(dir / "real" / file)) << file;
  }
  // Means and variances: the same sums, divided in double (pstrain) or float32 (norm).
  const GaussianParams ours_means = ReadGaussianFile((dir / "float32" / "means").string());
  const GaussianParams real_means = ReadGaussianFile((dir / "real" / "means").string());
  ASSERT_EQ(ours_means.data.size(), real_means.data.size());
  for (std::size_t i = 0; i < ours_means.data.size(); ++i) {
    ASSERT_NEAR(ours_means.data[i], real_means.data[i], 1e-5 * (1.0 + std::abs(real_means.data[i]))) << "mean " << i;
  }
  // The mixture weights are raw counts, not probabilities (what decoders normalize on load).
  const Array3D mixw = ReadArray3DFile((dir / "exact" / "mixture_weights").string());
  double row_sum = 0;
  for (std::uint32_t k = 0; k < mixw.d3; ++k) row_sum += mixw.at(0, 0, k);
  EXPECT_GT(row_sum, 1.5);
  // A stale exact_counts (the directory rewritten by another bw) is not trusted.
  fs::copy_file(dir / "ours1" / "exact_counts", dir / "stock1" / "exact_counts");
  fs::copy_file(dir / "ours2" / "exact_counts", dir / "stock2" / "exact_counts");
  const CommandResult stale = RunCommand(Pstrain("norm -accumdir " + stock_dirs + outputs("stale")));
  ASSERT_EQ(stale.exit_code, 0) << stale.output;
  EXPECT_NE(stale.output.find("reduction float32"), std::string::npos) << stale.output;
  EXPECT_EQ(Bytes(dir / "stale" / "mixture_weights"), Bytes(dir / "real" / "mixture_weights"));
}

// SphinxTrain hands norm one accumulator directory per part. pstrain's norm adds them one at a time,
// so its peak memory does not grow with their number: here one directory of about 30 MB of exact
// sums (3,000 senones x 8 densities x 39), given twice and six times (the running sum and the
// directory being added, either way). Holding every directory's sums at once, as it did, added
// about 120 MB for the four more.
TEST(SphinxtrainDropin, NormMemoryDoesNotGrowWithTheNumberOfDirectories) {
  ASSERT_TRUE(fs::exists("/usr/bin/time")) << "GNU time (Debian package time, installed by scripts/bootstrap.sh) is needed";
  const fs::path dir = FreshDir("sphinxtrain_dropin/norm_memory");
  const AccumulatorShape shape{3000, 8, 39, 1, 3};
  ExactAccumulators sums(shape, false);
  std::vector<double> values(std::size_t(shape.n_density) * shape.veclen);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.25 + double(i % 97);
  for (std::uint32_t senone = 0; senone < shape.n_senones; ++senone) {
    const std::size_t first = std::size_t(senone) * shape.n_density * shape.veclen;
    sums.AddValues(ExactAccumulators::Block::kMean, first, values.data(), values.size());
    sums.AddValues(ExactAccumulators::Block::kVar, first, values.data(), values.size());
    sums.AddValues(ExactAccumulators::Block::kDnom, std::size_t(senone) * shape.n_density, values.data(), shape.n_density);
    sums.AddValues(ExactAccumulators::Block::kMixw, std::size_t(senone) * shape.n_density, values.data(), shape.n_density);
  }
  const std::vector<double> tmat(std::size_t(shape.n_emit_state) * (shape.n_emit_state + 1), 1.0);
  sums.AddValues(ExactAccumulators::Block::kTmat, 0, tmat.data(), tmat.size());
  sums.Write((dir / "accum").string());

  // The largest resident set of `pstrain norm` over `copies` times the same directory, in KiB.
  auto peak_kib = [&](int copies) {
    std::string list = (dir / "accum").string();
    for (int i = 1; i < copies; ++i) list += "," + (dir / "accum").string();
    // Under AddressSanitizer (the nightly's sanitized suite) freed memory is held in a quarantine,
    // which would count every directory: none here, so that the test measures pstrain's own peak.
    const CommandResult run = RunCommand("ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0\" /usr/bin/time -f 'peak-kib %M' " +
                                         Pstrain("norm -accumdir " + ShellQuote(list) + NormOutputFlags(dir / ("out" + std::to_string(copies)))));
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("reduction exact: " + std::to_string(copies) + " accumulator"), std::string::npos) << run.output;
    const std::size_t at = run.output.rfind("peak-kib ");
    EXPECT_NE(at, std::string::npos) << run.output;
    return at == std::string::npos ? 0L : std::stol(run.output.substr(at + 9));
  };
  const long two = peak_kib(2), six = peak_kib(6);
  ASSERT_GT(two, 30L * 1024) << "the directory's sums are about 30 MB";
  EXPECT_LT(six, two + 15L * 1024) << "two directories: " << two << " KiB, six: " << six << " KiB";
  // And six copies give three times the counts of two: every directory is added.
  const Array3D mixw2 = ReadArray3DFile((dir / "out2" / "mixture_weights").string());
  const Array3D mixw6 = ReadArray3DFile((dir / "out6" / "mixture_weights").string());
  ASSERT_EQ(mixw2.data.size(), mixw6.data.size());
  EXPECT_FLOAT_EQ(mixw6.data[5], 3.0f * mixw2.data[5]);
}

TEST(SphinxtrainDropin, RefusedFlagsAreFatalLinesNamingTheFlag) {
  const fs::path dir = FreshDir("sphinxtrain_dropin/refused");
  const std::vector<std::pair<std::string, std::string>> bw_cases = {
      {"-svspec", "0-12/13-25/26-38"}, {"-lda", "x.mllt"},       {"-ldadim", "29"},       {"-outputfullpath", "yes"},
      {"-ts2cbfn", ".semi."},          {"-fullvar", "yes"},      {"-viterbi", "yes"},     {"-outphsegdir", "phseg"},
      {"-phsegdir", "phseg"},          {"-diagfull", "yes"},     {"-nosuchflag", "1"},    {"-feat", "s2_4x"}};
  for (const auto& [flag, value] : bw_cases) {
    // The refused flag replaces the stage's own when it has one.
    std::string flags = StageFlags(dir / "accum");
    const std::size_t at = flags.find(" " + flag + " ");
    if (at != std::string::npos) flags.erase(at, flags.find(' ', at + flag.size() + 2) - at);
    const CommandResult run = RunCommand(Pstrain("bw " + flags + " " + flag + " " + value));
    EXPECT_EQ(run.exit_code, 2) << flag << ": " << run.output;
    EXPECT_EQ(FatalLines(run.output), 1u) << flag << ": " << run.output;
    EXPECT_NE(run.output.find(flag), std::string::npos) << run.output;
    EXPECT_EQ(run.output.find("Counts saved to"), std::string::npos) << run.output;
    EXPECT_TRUE(MarkerLines(run.output, true).empty()) << run.output;
  }
  EXPECT_FALSE(fs::exists(dir / "accum"));
  const CommandResult live = RunCommand(Pstrain("bw " + std::regex_replace(StageFlags(dir / "accum"), std::regex("-cmn batch"), "-cmn live")));
  EXPECT_EQ(live.exit_code, 2);
  EXPECT_EQ(FatalLines(live.output), 1u) << live.output;
  for (const char* flag : {"-fullvar yes", "-tiedvar yes", "-dcountfn d", "-oaccumdir d"}) {
    const CommandResult run = RunCommand(Pstrain("norm -accumdir " + (dir / "none").string() + " -meanfn " + (dir / "m").string() + " " + flag));
    EXPECT_EQ(run.exit_code, 2) << flag;
    EXPECT_EQ(FatalLines(run.output), 1u) << flag << ": " << run.output;
    EXPECT_NE(run.output.find(std::string(flag).substr(0, std::string(flag).find(' '))), std::string::npos) << run.output;
    EXPECT_TRUE(MarkerLines(run.output, true).empty()) << run.output;
  }
  // Bad input (a missing accumulator directory) is a FATAL line too, with the path.
  const CommandResult missing = RunCommand(Pstrain("norm -accumdir " + (dir / "none").string() + " -meanfn " + (dir / "m").string()));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(FatalLines(missing.output), 1u) << missing.output;
  EXPECT_NE(missing.output.find((dir / "none").string()), std::string::npos) << missing.output;
  // Help lists every flag, without marker words.
  for (const char* tool : {"bw", "norm"}) {
    const CommandResult help = RunCommand(Pstrain(std::string(tool) + " -help"));
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_TRUE(MarkerLines(help.output, false).empty()) << help.output;
  }
}

// Every flag the installed stage scripts can pass to bw (baum_welch.pl of 20, 30, 50) and norm
// (norm.pl) is in pstrain's table (accepted or refused by name, never "unknown").
TEST(SphinxtrainDropin, FlagTablesCoverTheStageScripts) {
  const fs::path scripts = "/usr/lib/x86_64-linux-gnu/sphinxtrain/scripts";
  const std::regex flag("(?:^|[\\s(,])'?(-[A-Za-z0-9_]+)'?\\s*=>");
  for (const auto& [tool, files] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"bw", {"20.ci_hmm/baum_welch.pl", "30.cd_hmm_untied/baum_welch.pl", "50.cd_hmm_tied/baum_welch.pl"}},
           {"norm", {"20.ci_hmm/norm.pl", "30.cd_hmm_untied/norm.pl", "50.cd_hmm_tied/norm.pl"}}}) {
    const CommandResult help = RunCommand(Pstrain(tool + " -help"));
    ASSERT_EQ(help.exit_code, 0);
    std::size_t seen = 0;
    for (const std::string& file : files) {
      const std::string text = ReadFileText(scripts / file);
      for (auto it = std::sregex_iterator(text.begin(), text.end(), flag); it != std::sregex_iterator(); ++it) {
        const std::string name = (*it)[1];
        ++seen;
        EXPECT_NE(help.output.find("  " + name + " "), std::string::npos) << tool << " flag " << name << " of " << file << " is not in the table";
      }
    }
    EXPECT_GT(seen, tool == "bw" ? 60u : 15u) << tool;  // the scripts were read
  }
}

TEST(SphinxtrainDropin, BindirLinksPstrainAndTheStockTools) {
  const fs::path dir = FreshDir("sphinxtrain_dropin/bindir") / "bin";
  const CommandResult made = RunCommand(Pstrain("sphinxtrain-bindir " + ShellQuote(dir.string())));
  ASSERT_EQ(made.exit_code, 0) << made.output;
  EXPECT_EQ(fs::read_symlink(dir / "bw"), fs::canonical(PSTRAIN_BINARY));
  EXPECT_EQ(fs::read_symlink(dir / "norm"), fs::canonical(PSTRAIN_BINARY));
  for (const char* tool : {"mk_flat", "init_gau", "mk_mdef_gen", "bldtree", "tiestate", "inc_comp", "init_mixw", "prunetree", "make_quests"}) {
    EXPECT_EQ(fs::read_symlink(dir / tool), fs::path("/usr/lib/sphinxtrain") / tool) << tool;
  }
  // Invoked under the name bw, pstrain is bw.
  const CommandResult help = RunCommand(ShellQuote((dir / "bw").string()) + " -help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("-npart"), std::string::npos) << help.output;
  // Running it again replaces the links (idempotent).
  EXPECT_EQ(RunCommand(Pstrain("sphinxtrain-bindir " + ShellQuote(dir.string()))).exit_code, 0);
}

// Stage 20.ci_hmm of SphinxTrain's own perl pipeline with pstrain's bindir: CFG_NPART=1 and 2 give
// byte-identical CI models.
TEST(SphinxtrainDropin, Stage20SameBytesForNpart1And2) {
  const fs::path dir = FreshDir("sphinxtrain_dropin/stage20");
  ASSERT_EQ(RunCommand(Pstrain("sphinxtrain-bindir " + ShellQuote((dir / "bin").string()))).exit_code, 0);
  for (const char* npart : {"1", "2"}) {
    const CommandResult run = RunCommand("timeout 600 bash " + std::string(PSTRAIN_SOURCE_DIR) + "/scripts/sphinxtrain-stages.sh " +
                                         ShellQuote(CorpusDir().string()) + " " + ShellQuote((dir / ("npart" + std::string(npart))).string()) +
                                         " " + ShellQuote((dir / "bin").string()) + " " + npart + " 20");
    ASSERT_EQ(run.exit_code, 0) << run.output;
  }
  // The parts really ran through pstrain, twice per iteration with CFG_NPART=2.
  const std::string part2 = ReadFileText(dir / "npart2" / "logdir" / "20.ci_hmm" / "corpus.1.1-2.bw.log");
  EXPECT_NE(part2.find("pstrain bw: control lines 47..93 of 93"), std::string::npos) << part2;
  const std::string norm = ReadFileText(dir / "npart2" / "logdir" / "20.ci_hmm" / "corpus.1.1.norm.log");
  EXPECT_NE(norm.find("reduction exact: 2 accumulator directories"), std::string::npos) << norm;
  EXPECT_TRUE(MarkerLines(part2, false).empty());
  for (const char* file : {"means", "variances", "mixture_weights", "transition_matrices"}) {
    EXPECT_EQ(Bytes(dir / "npart1" / "model_parameters" / "corpus.ci_cont" / file), Bytes(dir / "npart2" / "model_parameters" / "corpus.ci_cont" / file))
        << file;
  }
}

}  // namespace
}  // namespace pstrain::testing
