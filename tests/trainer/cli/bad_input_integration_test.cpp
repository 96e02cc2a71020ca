// Bad inputs through the real `pstrain` binary: every one must end the run with exit status 2 and a
// message that names the file (and the utterance, where there is one) and the problem. And a failed
// `pstrain train` must leave an existing RUNDIR/model byte-identical.
//
// Each case builds its own small corpus (3-5 utterances of the default training set: feature files,
// control file, transcript, and a manifest imported with `pstrain manifest import`) and/or its own
// copy of the an4_ci_cont model under the build tree's test scratch area, then breaks one thing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "estep/corpus_pass.h"
#include "formats/dictionary.h"
#include "formats/mfc_file.h"
#include "formats/param_files.h"
#include "shards/run_layout.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using Bytes = std::vector<std::uint8_t>;

// A fresh directory for this file's tests: test-scratch/bad_input/NAME.
fs::path ScratchDir(const std::string& name) { return FreshDir("bad_input/" + name); }

void WriteBytes(const fs::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}
void WriteText(const fs::path& path, const std::string& text) { WriteBytes(path, Bytes(text.begin(), text.end())); }

void Truncate(const fs::path& path, std::size_t keep) {
  const Bytes bytes = ReadFileBytes(path);
  ASSERT_LT(keep, bytes.size()) << path;
  WriteBytes(path, Bytes(bytes.begin(), bytes.begin() + keep));
}

void FlipByte(const fs::path& path, std::size_t pos) {
  Bytes bytes = ReadFileBytes(path);
  ASSERT_LT(pos, bytes.size()) << path;
  bytes[pos] ^= 0x01;
  WriteBytes(path, bytes);
}

std::vector<std::string> FirstLines(const fs::path& path, std::size_t n) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; lines.size() < n && std::getline(in, line);) lines.push_back(line);
  EXPECT_EQ(lines.size(), n) << path;
  return lines;
}

// A small corpus: `n` utterances of the default training set, copied into DIR (feat/UTT.mfc,
// small.fileids, small.transcription). The manifest DIR/small.manifest exists after Import().
struct SmallCorpus {
  fs::path dir;
  std::vector<std::string> utt_ids;

  fs::path Feature(const std::string& utt_id) const { return dir / "feat" / (utt_id + ".mfc"); }
  fs::path Manifest() const { return dir / "small.manifest"; }
  fs::path Fileids() const { return dir / "small.fileids"; }
  fs::path Transcription() const { return dir / "small.transcription"; }
};

SmallCorpus MakeSmallCorpus(const std::string& name, std::size_t n) {
  SmallCorpus corpus;
  corpus.dir = ScratchDir(name);
  const fs::path source = CorpusDir();
  fs::create_directories(corpus.dir / "feat");
  std::string fileids, transcription;
  for (const std::string& line : FirstLines(source / "train.fileids", n)) {
    corpus.utt_ids.push_back(line);
    fs::copy_file(source / "feat" / (line + ".mfc"), corpus.Feature(line));
    fileids += line + "\n";
  }
  for (const std::string& line : FirstLines(source / "train.transcription", n)) transcription += line + "\n";
  WriteText(corpus.Fileids(), fileids);
  WriteText(corpus.Transcription(), transcription);
  return corpus;
}

// `pstrain manifest import` of the small corpus; the import must succeed.
void Import(const SmallCorpus& corpus) {
  const CommandResult r = RunCommand(Pstrain("manifest import --fileids " + ShellQuote(corpus.Fileids().string()) +
                                             " --transcription " + ShellQuote(corpus.Transcription().string()) + " --cepdir " +
                                             ShellQuote((corpus.dir / "feat").string()) + " --out " +
                                             ShellQuote(corpus.Manifest().string())));
  ASSERT_EQ(r.exit_code, 0) << r.output;
}

// Replaces utterance `index`'s feature file of the (imported) corpus by a FIFO; returns its path.
fs::path ReplaceFeatureByFifo(const SmallCorpus& corpus, std::size_t index) {
  const fs::path feature = corpus.Feature(corpus.utt_ids[index]);
  fs::remove(feature);
  EXPECT_EQ(::mkfifo(feature.c_str(), 0600), 0) << feature;
  return feature;
}

// A writable copy of the an4_ci_cont model in `dir` (created).
fs::path CopyModelTo(const fs::path& dir) {
  fs::create_directories(dir);
  if (!fs::is_directory(An4Model())) {
    ADD_FAILURE() << An4Model() << " is missing: install the Debian package pocketsphinx-testdata";
    return dir;
  }
  for (const auto& entry : fs::directory_iterator(An4Model())) fs::copy_file(entry.path(), dir / entry.path().filename());
  return dir;
}
fs::path CopyModel(const std::string& name) { return CopyModelTo(ScratchDir(name)); }

std::string CorpusFlags(const fs::path& model, const fs::path& manifest) {
  const fs::path corpus = CorpusDir();
  return "--model " + ShellQuote(model.string()) + " --manifest " + ShellQuote(manifest.string()) + " --dict " +
         ShellQuote((corpus / "corpus.dic").string()) + " --filler " + ShellQuote((corpus / "corpus.filler").string());
}

enum class Command { kAccumulate, kTrain };
const char* CommandName(Command command) { return command == Command::kAccumulate ? "accumulate" : "train"; }

CommandResult RunPstrain(Command command, const fs::path& model, const fs::path& manifest, const fs::path& out) {
  std::string args = std::string(CommandName(command)) + " " + CorpusFlags(model, manifest) + " --out " + ShellQuote(out.string());
  if (command == Command::kTrain) args += " --max-passes 1";
  return RunCommand(Pstrain(args));
}

// Runs both commands and checks exit status 2 and every expected substring.
void ExpectInputError(const std::string& name, const fs::path& model, const fs::path& manifest,
                      const std::vector<std::string>& expected) {
  for (const Command command : {Command::kAccumulate, Command::kTrain}) {
    SCOPED_TRACE(CommandName(command));
    const fs::path out = ScratchDir(name + "-" + CommandName(command) + "-out") / "out";
    const CommandResult r = RunPstrain(command, model, manifest, out);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr(std::string("pstrain ") + CommandName(command) + ": error: "));
    for (const std::string& text : expected) EXPECT_THAT(r.output, HasSubstr(text));
    EXPECT_FALSE(fs::exists(out / "gauden_counts")) << "a failed run wrote accumulators";
    EXPECT_FALSE(fs::exists(out / "model")) << "a failed run wrote a model";
  }
}

// ---------------------------------------------------------------------------------------------
// Broken model files.

TEST(BadInputTest, BrokenModelFilesAreNamed) {
  struct Case {
    const char* name;
    const char* file;  // the model file that is broken
    std::function<void(const fs::path&)> corrupt;
    std::vector<std::string> expected;
  };
  const Case cases[] = {
      {"truncated-means", "means", [](const fs::path& p) { Truncate(p, 8000); }, {"truncated"}},
      {"truncated-means-header", "means", [](const fs::path& p) { Truncate(p, 20); }, {"truncated"}},
      {"flipped-byte-in-means", "means", [](const fs::path& p) { FlipByte(p, 5000); }, {"checksum"}},
      {"flipped-byte-in-variances", "variances", [](const fs::path& p) { FlipByte(p, 15000); }, {"checksum"}},
      {"truncated-transition-matrices", "transition_matrices", [](const fs::path& p) { Truncate(p, 1001); }, {"truncated"}},
      {"mdef-missing-phone-row", "mdef",
       [](const fs::path& p) {
         std::string text = ReadFileText(p);
         const std::string row = "    Z   -   - -    n/a   33   99  100  101    N\n";
         const std::size_t pos = text.find(row);
         ASSERT_NE(pos, std::string::npos);
         WriteText(p, text.erase(pos, row.size()));
       },
       {"missing phone", "34 CI phones"}},
  };
  SmallCorpus corpus = MakeSmallCorpus("bad-model-corpus", 3);
  Import(corpus);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path model = CopyModel(std::string("bad-model-") + c.name);
    c.corrupt(model / c.file);
    std::vector<std::string> expected = c.expected;
    expected.push_back((model / c.file).string());
    ExpectInputError(std::string("bad-model-") + c.name, model, corpus.Manifest(), expected);
  }
}

// Non-finite and negative parameter values (issue 13): a NaN mean was accepted (exit 0, the
// utterances skipped, the NaN carried into the final model), a variance of -1 and a transition
// matrix of -0.5 everywhere were trained into the output. Each is refused at load, naming the file,
// the tied state (or transition matrix), the density (or transition) and the dimension.
// (an4_ci_cont has one density per tied state: density 0.)
TEST(BadInputTest, NonFiniteAndNegativeModelParametersAreRefusedAtLoad) {
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  auto gaussian = [](std::uint32_t senone, std::uint32_t density, std::uint32_t dim, float value) {
    return [=](const fs::path& p) {
      GaussianParams params = ReadGaussianFile(p.string());
      params.data[params.Offset(senone, 0, density) + dim] = value;
      WriteGaussianFile(p.string(), params);
    };
  };
  auto array = [](std::function<void(Array3D&)> change) {
    return [=](const fs::path& p) {
      Array3D a = ReadArray3DFile(p.string());
      change(a);
      WriteArray3DFile(p.string(), a);
    };
  };
  struct Case {
    const char* name;
    const char* file;
    std::function<void(const fs::path&)> corrupt;
    std::vector<std::string> expected;
  };
  const Case cases[] = {
      {"nan-mean", "means", gaussian(5, 0, 7, kNaN), {"senone 5, density 0, dimension 7 is NaN"}},
      {"inf-mean", "means", gaussian(101, 0, 38, -kInf), {"senone 101, density 0, dimension 38 is -inf"}},
      {"inf-variance", "variances", gaussian(0, 0, 0, kInf), {"senone 0, density 0, dimension 0 is inf"}},
      {"nan-variance", "variances", gaussian(40, 0, 12, kNaN), {"senone 40, density 0, dimension 12 is NaN"}},
      {"negative-variance", "variances", gaussian(7, 0, 3, -1.0f), {"senone 7, density 0, dimension 3 is -1", "negative"}},
      {"nan-mixture-weight", "mixture_weights", array([](Array3D& a) { a.at(9, 0, 0) = kNaN; }), {"senone 9, density 0 is NaN"}},
      {"negative-mixture-weight", "mixture_weights", array([](Array3D& a) { a.at(12, 0, 0) = -0.25f; }),
       {"senone 12, density 0 is -0.25", "negative"}},
      {"nan-transition", "transition_matrices", array([](Array3D& a) { a.at(2, 1, 2) = kNaN; }),
       {"transition matrix 2, from state 1 to state 2 is NaN"}},
      {"inf-transition", "transition_matrices", array([](Array3D& a) { a.at(2, 0, 0) = kInf; }),
       {"transition matrix 2, from state 0 to state 0 is inf"}},
      {"negative-transition-matrix", "transition_matrices",
       array([](Array3D& a) {
         for (std::uint32_t from = 0; from < a.d2; ++from) {
           for (std::uint32_t to = 0; to < a.d3; ++to) a.at(3, from, to) = -0.5f;
         }
       }),
       {"transition matrix 3, from state 0 to state 0 is -0.5", "negative"}},
  };
  SmallCorpus corpus = MakeSmallCorpus("bad-parameter-corpus", 3);
  Import(corpus);
  const fs::path accum = ScratchDir("bad-parameter-accum") / "acc";
  const CommandResult accumulated = RunPstrain(Command::kAccumulate, An4Model(), corpus.Manifest(), accum);
  ASSERT_EQ(accumulated.exit_code, 0) << accumulated.output;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path model = CopyModel(std::string("bad-parameter-") + c.name);
    c.corrupt(model / c.file);
    std::vector<std::string> expected = c.expected;
    expected.push_back((model / c.file).string() + ": ");
    ExpectInputError(std::string("bad-parameter-") + c.name, model, corpus.Manifest(), expected);
    // normalize loads --model-in the same way.
    const CommandResult r = RunCommand(Pstrain("normalize --accum " + ShellQuote(accum.string()) + " --model-in " +
                                               ShellQuote(model.string()) + " --out " +
                                               ShellQuote((model.parent_path() / (model.filename().string() + "-norm")).string())));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    for (const std::string& text : expected) EXPECT_THAT(r.output, HasSubstr(text));
  }
}

// Features other than pstrain's (issue 13): `-feat s2_4x` in feat.params was accepted, training
// proceeded as 1s_c_d_dd and the output feat.params still said s2_4x. Every setting that declares
// other features is refused, naming the file, the line and the value.
TEST(BadInputTest, UnsupportedFeatureSettingsInFeatParamsAreRefused) {
  struct Case {
    const char* name;
    const char* line;  // replaces or is added to the shipped feat.params
    std::vector<std::string> expected;
  };
  const Case cases[] = {
      {"s2_4x", "-feat s2_4x", {"feat.params:4: setting -feat s2_4x is not supported", "1s_c_d_dd"}},
      {"1s_c", "-feat 1s_c", {"feat.params:4: setting -feat 1s_c is not supported"}},
      {"ceplen", "-ceplen 16", {"feat.params:8: setting -ceplen 16 is not supported", "13 cepstral"}},
      {"ncep", "-ncep 20", {"feat.params:8: setting -ncep 20 is not supported"}},
      {"lda", "-lda feature_transform", {"feat.params:8: setting -lda feature_transform is not supported", "transform"}},
      {"svspec", "-svspec 0-12/13-25/26-38", {"feat.params:8: setting -svspec 0-12/13-25/26-38 is not supported", "stream"}},
  };
  SmallCorpus corpus = MakeSmallCorpus("feat-params-corpus", 3);
  Import(corpus);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path model = CopyModel(std::string("feat-params-") + c.name);
    std::string text = ReadFileText(model / "feat.params");
    const std::string feat_line = "-feat 1s_c_d_dd\n";
    ASSERT_NE(text.find(feat_line), std::string::npos) << text;
    if (std::string(c.line).starts_with("-feat ")) text.replace(text.find(feat_line), feat_line.size(), std::string(c.line) + "\n");
    else text += std::string(c.line) + "\n";
    WriteText(model / "feat.params", text);
    std::vector<std::string> expected = c.expected;
    expected.push_back((model / "feat.params").string());
    ExpectInputError(std::string("feat-params-") + c.name, model, corpus.Manifest(), expected);
  }
}

// A variance of exactly zero is legitimate (a constant dimension; SphinxTrain's flat start can
// write one): it is floored to --varfloor when the model is loaded, and training proceeds.
TEST(BadInputTest, ZeroVarianceIsAcceptedAndFloored) {
  SmallCorpus corpus = MakeSmallCorpus("zero-variance-corpus", 3);
  Import(corpus);
  const fs::path model = CopyModel("zero-variance-model");
  GaussianParams variances = ReadGaussianFile((model / "variances").string());
  for (std::uint32_t dim = 0; dim < variances.veclen[0]; ++dim) variances.data[variances.Offset(3, 0, 0) + dim] = 0.0f;
  variances.data[variances.Offset(4, 0, 0)] = -0.0f;
  WriteGaussianFile((model / "variances").string(), variances);
  const fs::path out = ScratchDir("zero-variance-run");
  const CommandResult r = RunPstrain(Command::kTrain, model, corpus.Manifest(), out);
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// ---------------------------------------------------------------------------------------------
// Broken corpora.

TEST(BadInputTest, FeatureFileTruncatedAfterImportIsADigestMismatchNamingTheUtterance) {
  SmallCorpus corpus = MakeSmallCorpus("mfc-truncated-after-import", 3);
  Import(corpus);
  const std::string utt = corpus.utt_ids[1];
  Truncate(corpus.Feature(utt), 1000);
  ExpectInputError("mfc-truncated-after-import", An4Model(), corpus.Manifest(),
                   {corpus.Feature(utt).string(), "utterance \"" + utt + "\"", "SHA-256", "changed"});
  // `pstrain manifest check` says the same.
  const CommandResult check = RunCommand(Pstrain("manifest check " + ShellQuote(corpus.Manifest().string())));
  EXPECT_EQ(check.exit_code, 2) << check.output;
  EXPECT_THAT(check.output, HasSubstr(corpus.Feature(utt).string()));
  EXPECT_THAT(check.output, HasSubstr(utt));
}

// The pass (inline with one job, in a worker with two) reads the first utterance's changed file
// and fails on it; the whole feature-file check then runs, and its error (every changed file
// counted) is the one reported, with no staging directory left behind.
TEST(BadInputTest, AChangedCorpusIsReportedByTheFeatureFileCheckWithOneJobAsWithTwo) {
  SmallCorpus corpus = MakeSmallCorpus("mfc-changed-check-wins", 5);
  Import(corpus);
  FlipByte(corpus.Feature(corpus.utt_ids[0]), 400);
  FlipByte(corpus.Feature(corpus.utt_ids[3]), 400);
  for (const int jobs : {1, 2}) {
    SCOPED_TRACE("jobs " + std::to_string(jobs));
    const fs::path out = ScratchDir("mfc-changed-check-wins-" + std::to_string(jobs)) / "out";
    const CommandResult r = RunCommand(Pstrain("train " + CorpusFlags(An4Model(), corpus.Manifest()) + " --out " +
                                               ShellQuote(out.string()) + " --max-passes 1 --jobs " + std::to_string(jobs)));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr(corpus.Feature(corpus.utt_ids[0]).string()));
    EXPECT_THAT(r.output, HasSubstr("(2 of 5 utterances have missing or changed feature files)"));
    EXPECT_FALSE(fs::exists(out / "model"));
    EXPECT_FALSE(fs::exists(out / "passes" / ".001.staging"));
    EXPECT_FALSE(fs::exists(out / "passes" / "001"));
  }
}

// A run that reads no feature file still checks them all: a changed corpus fails both a rerun of a
// finished training (its model up to date) and a run whose every pass is resumed, with the
// check's error, and neither touches the model or the passes.
TEST(BadInputTest, AChangedCorpusFailsARunThatReusesEveryPass) {
  SmallCorpus corpus = MakeSmallCorpus("mfc-changed-after-training", 4);
  Import(corpus);
  const fs::path out = ScratchDir("mfc-changed-after-training-run") / "out";
  const std::string train =
      Pstrain("train " + CorpusFlags(An4Model(), corpus.Manifest()) + " --out " + ShellQuote(out.string()) + " --max-passes 1 --jobs 2");
  const CommandResult first = RunCommand(train);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const std::string means = ReadFileText(out / "model" / "means");
  FlipByte(corpus.Feature(corpus.utt_ids[2]), 400);
  const CommandResult cache_hit = RunCommand(train);
  EXPECT_EQ(cache_hit.exit_code, 2) << cache_hit.output;
  EXPECT_THAT(cache_hit.output, HasSubstr(corpus.Feature(corpus.utt_ids[2]).string()));
  EXPECT_THAT(cache_hit.output, HasSubstr("(1 of 4 utterances have missing or changed feature files)"));
  EXPECT_EQ(ReadFileText(out / "model" / "means"), means);
  // Without the final model, pass 1 is resumed and no pass runs.
  fs::remove_all(out / "model");
  const CommandResult resumed = RunCommand(train);
  EXPECT_EQ(resumed.exit_code, 2) << resumed.output;
  EXPECT_THAT(resumed.output, HasSubstr("pass 1: already complete (resumed)"));
  EXPECT_THAT(resumed.output, HasSubstr("(1 of 4 utterances have missing or changed feature files)"));
  EXPECT_FALSE(fs::exists(out / "model"));
  EXPECT_TRUE(fs::exists(out / "passes" / "001" / "pass.json"));
}

// A feature file replaced by a FIFO after import, or removed: the look at every file before the
// first pass finds it, the whole check reports it (exit 2) and no pass starts (no RUNDIR/passes;
// without the look the pass itself would refuse the FIFO and report the missing file, but only
// after starting). `timeout` bounds the run: a blocked open of the FIFO fails the test instead of
// stalling it. The pass's own refusal of a FIFO is tested alone below.
TEST(BadInputTest, AFeatureFileThatIsAFifoIsRefusedWithOneJobAsWithTwo) {
  SmallCorpus corpus = MakeSmallCorpus("mfc-fifo", 3);
  Import(corpus);
  const fs::path feature = ReplaceFeatureByFifo(corpus, 0);
  for (const int jobs : {1, 2}) {
    SCOPED_TRACE("jobs " + std::to_string(jobs));
    const fs::path out = ScratchDir("mfc-fifo-" + std::to_string(jobs)) / "out";
    const CommandResult r = RunCommand("timeout 60 " + Pstrain("train " + CorpusFlags(An4Model(), corpus.Manifest()) + " --out " +
                                                             ShellQuote(out.string()) + " --max-passes 1 --jobs " + std::to_string(jobs)));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr(feature.string()));
    EXPECT_THAT(r.output, HasSubstr("is not a regular file"));
    EXPECT_FALSE(fs::exists(out / "model"));
    EXPECT_FALSE(fs::exists(out / "passes"));
  }
}

TEST(BadInputTest, AMissingFeatureFileFailsBeforeAnyPassWithEveryBadFileCounted) {
  SmallCorpus corpus = MakeSmallCorpus("mfc-missing", 4);
  Import(corpus);
  fs::remove(corpus.Feature(corpus.utt_ids[3]));
  FlipByte(corpus.Feature(corpus.utt_ids[1]), 400);
  const fs::path out = ScratchDir("mfc-missing-run") / "out";
  const CommandResult r = RunCommand(Pstrain("train " + CorpusFlags(An4Model(), corpus.Manifest()) + " --out " +
                                             ShellQuote(out.string()) + " --max-passes 1 --jobs 2"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr(corpus.Feature(corpus.utt_ids[1]).string()));
  EXPECT_THAT(r.output, HasSubstr("(2 of 4 utterances have missing or changed feature files)"));
  EXPECT_FALSE(fs::exists(out / "passes"));
}

// The corpus pass itself, with no check before it, and a FIFO as its first utterance: an InputError
// naming the file, not a wait for a writer (run in a child that an alarm kills if it blocks).
TEST(BadInputTest, TheCorpusPassRefusesAFifoWithoutWaitingForAWriter) {
  SmallCorpus corpus = MakeSmallCorpus("mfc-fifo-pass", 2);
  Import(corpus);
  const fs::path feature = ReplaceFeatureByFifo(corpus, 0);
  const ModelFiles model = ModelFiles::Load(An4Model().string());
  const pstrain::Manifest manifest = pstrain::Manifest::Load(corpus.Manifest());
  const Dictionary dictionary = CorpusDictionary();
  EXPECT_EXIT(
      {
        ::alarm(20);
        try {
          RunCorpusPass(model, manifest, 0, manifest.size(), corpus.dir, dictionary, AccumulateOptions{}, nullptr);
        } catch (const InputError& error) {
          const std::string message = error.what();
          ::_exit(message.find(feature.string() + ": is not a regular file") != std::string::npos ? 0 : 1);
        }
        ::_exit(2);
      },
      ::testing::ExitedWithCode(0), "");
}

// `pstrain train` loads the model before it checks the manifest's feature files: with both broken,
// the model's error is the one reported (a version that loaded the model on a second thread during
// the check had to keep that order by hand).
TEST(BadInputTest, ABrokenModelIsReportedBeforeAChangedFeatureFile) {
  SmallCorpus corpus = MakeSmallCorpus("model-and-mfc-broken", 3);
  Import(corpus);
  Truncate(corpus.Feature(corpus.utt_ids[0]), 1000);
  const fs::path model = CopyModel("model-and-mfc-broken-model");
  Truncate(model / "means", 8000);
  const fs::path out = ScratchDir("model-and-mfc-broken-out") / "out";
  const CommandResult r = RunPstrain(Command::kTrain, model, corpus.Manifest(), out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr((model / "means").string()));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr(corpus.Feature(corpus.utt_ids[0]).string())));
  EXPECT_FALSE(fs::exists(out / "model"));
}

// The model is read and checked on a thread of its own while the manifest, the look at its feature
// files and the dictionary are read: with one of those broken too, the model's error is still the
// one reported, as when the steps ran one after another.
TEST(BadInputTest, ABrokenModelIsReportedBeforeABrokenManifestOrAMissingFeatureFile) {
  const fs::path model = CopyModel("model-broken-and-more-model");
  Truncate(model / "variances", 8000);
  {
    SCOPED_TRACE("manifest empty");
    const fs::path manifest = ScratchDir("model-broken-manifest-empty") / "train.manifest";
    WriteText(manifest, "");
    const CommandResult r = RunPstrain(Command::kTrain, model, manifest, ScratchDir("model-broken-manifest-empty-out") / "out");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr((model / "variances").string()));
    EXPECT_THAT(r.output, ::testing::Not(HasSubstr(manifest.string())));
  }
  {
    SCOPED_TRACE("feature file missing");
    SmallCorpus corpus = MakeSmallCorpus("model-broken-mfc-missing", 3);
    Import(corpus);
    fs::remove(corpus.Feature(corpus.utt_ids[1]));
    const CommandResult r = RunPstrain(Command::kTrain, model, corpus.Manifest(), ScratchDir("model-broken-mfc-missing-out") / "out");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr((model / "variances").string()));
    EXPECT_THAT(r.output, ::testing::Not(HasSubstr(corpus.Feature(corpus.utt_ids[1]).string())));
  }
}

TEST(BadInputTest, FeatureFileTruncatedBeforeImportFailsInTheMfcParser) {
  SmallCorpus corpus = MakeSmallCorpus("mfc-truncated-before-import", 3);
  const std::string utt = corpus.utt_ids[2];
  Truncate(corpus.Feature(utt), 1001);
  Import(corpus);  // the manifest records the truncated file's digest: only the parser can tell
  ExpectInputError("mfc-truncated-before-import", An4Model(), corpus.Manifest(), {corpus.Feature(utt).string(), "truncated"});
}

TEST(BadInputTest, FeatureFileWithANaNNamesTheFileAndFrame) {
  SmallCorpus corpus = MakeSmallCorpus("mfc-nan", 3);
  const fs::path feature = corpus.Feature(corpus.utt_ids[0]);
  Cepstra cepstra = ReadMfcFile(feature.string(), 13);
  ASSERT_GT(cepstra.n_frames, 20u);
  cepstra.data[17 * 13 + 4] = std::numeric_limits<float>::quiet_NaN();
  WriteBytes(feature, EncodeMfc(cepstra));
  Import(corpus);
  ExpectInputError("mfc-nan", An4Model(), corpus.Manifest(), {feature.string(), "frame 17", "coefficient 4", "NaN"});
}

TEST(BadInputTest, UnknownTranscriptWordNamesTheUtteranceAndTheWord) {
  SmallCorpus corpus = MakeSmallCorpus("unknown-word", 3);
  std::vector<std::string> lines = FirstLines(corpus.Transcription(), 3);
  const std::string utt = corpus.utt_ids[1];
  const std::size_t close = lines[1].rfind("</s>");
  ASSERT_NE(close, std::string::npos) << lines[1];
  lines[1].insert(close, "ZYZZYVA ");
  WriteText(corpus.Transcription(), lines[0] + "\n" + lines[1] + "\n" + lines[2] + "\n");
  Import(corpus);
  ExpectInputError("unknown-word", An4Model(), corpus.Manifest(),
                   {corpus.Manifest().string(), "utterance \"" + utt + "\"", "not in the dictionary", "ZYZZYVA"});
}

TEST(BadInputTest, EmptyAndHeaderOnlyManifestsAreRejected) {
  struct Case {
    const char* name;
    std::string text;
    std::vector<std::string> expected;
  };
  const Case cases[] = {
      {"empty-manifest", "", {"empty file"}},
      {"header-only-manifest-zero", "pstrain-manifest 1 utterances=0\n", {"no utterances"}},
      {"header-only-manifest-three", "pstrain-manifest 1 utterances=3\n", {"utterances=3"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path dir = ScratchDir(c.name);
    const fs::path manifest = dir / "train.manifest";
    WriteText(manifest, c.text);
    std::vector<std::string> expected = c.expected;
    expected.push_back(manifest.string());
    ExpectInputError(c.name, An4Model(), manifest, expected);
  }
}

// ---------------------------------------------------------------------------------------------
// A failed `pstrain train` leaves an existing output model untouched.

std::map<std::string, std::string> Snapshot(const fs::path& dir) {
  std::map<std::string, std::string> digests;
  for (const auto& entry : fs::directory_iterator(dir)) digests[entry.path().filename().string()] = Sha256OfFile(entry.path());
  return digests;
}

TEST(BadInputTest, FailedTrainLeavesTheExistingModelUntouched) {
  SmallCorpus corpus = MakeSmallCorpus("keep-model-corpus", 5);
  Import(corpus);
  const fs::path run_dir = ScratchDir("keep-model-run");
  const CommandResult first = RunPstrain(Command::kTrain, An4Model(), corpus.Manifest(), run_dir);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const std::map<std::string, std::string> before = Snapshot(run_dir / "model");
  ASSERT_EQ(before.size(), 8u) << "expected mdef, means, variances, mixture_weights, transition_matrices, feat.params, noisedict, provenance.json";
  const std::map<std::string, std::string> pass1_before = Snapshot(PassDir(run_dir, 1) / "model");
  ASSERT_EQ(pass1_before.size(), 7u);
  // The trained model differs from the input model (so an accidental copy of the input would be seen).
  EXPECT_NE(before.at("means"), Sha256OfFile(An4Model() / "means"));

  struct Case {
    const char* name;
    // Replaces the good model or manifest by a bad one; adds what the message must name.
    std::function<void(fs::path& model, fs::path& manifest, std::vector<std::string>& expected)> setup;
    std::vector<std::string> expected;
  };
  const Case cases[] = {
      {"corrupt means",
       [](fs::path& model, fs::path&, std::vector<std::string>& expected) {
         model = CopyModel("keep-model-corrupt-means");
         FlipByte(model / "means", 6000);
         expected.push_back((model / "means").string());
       },
       {"checksum"}},
      {"manifest whose feature file changed",
       [](fs::path&, fs::path& manifest, std::vector<std::string>& expected) {
         SmallCorpus changed = MakeSmallCorpus("keep-model-changed-feature", 5);
         Import(changed);
         FlipByte(changed.Feature(changed.utt_ids[3]), 400);  // still a valid .mfc, different digest
         manifest = changed.Manifest();
         expected.push_back(changed.Feature(changed.utt_ids[3]).string());
         expected.push_back("utterance \"" + changed.utt_ids[3] + "\"");
       },
       {"SHA-256", "changed"}},
      {"feature file that fails to parse during the pass",
       [](fs::path&, fs::path& manifest, std::vector<std::string>& expected) {
         SmallCorpus truncated = MakeSmallCorpus("keep-model-truncated-feature", 5);
         Truncate(truncated.Feature(truncated.utt_ids[4]), 2001);
         Import(truncated);
         manifest = truncated.Manifest();
         expected.push_back(truncated.Feature(truncated.utt_ids[4]).string());
       },
       {"truncated"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    fs::path model = An4Model();
    fs::path manifest = corpus.Manifest();
    std::vector<std::string> expected = c.expected;
    c.setup(model, manifest, expected);
    const CommandResult r = RunPstrain(Command::kTrain, model, manifest, run_dir);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    for (const std::string& text : expected) EXPECT_THAT(r.output, HasSubstr(text));
    EXPECT_EQ(Snapshot(run_dir / "model"), before) << "RUNDIR/model changed after a failed train";
    // The earlier run's completed pass survives too: a pass is staged and only renamed in when done.
    EXPECT_EQ(Snapshot(PassDir(run_dir, 1) / "model"), pass1_before) << "passes/001 changed after a failed train";
    EXPECT_TRUE(fs::is_regular_file(PassDir(run_dir, 1) / "pass.json"));
  }
}

// ---------------------------------------------------------------------------------------------
// An output that would overwrite an input (issue 13): `--out ""` wrote into the current directory
// (and rewrote ./model/means when the model was ./model), `--out D --model D/model` overwrote the
// input model. Every such output is refused with exit 2 before anything is written.

// Every regular file under `dir` (recursively) with its SHA-256, and every directory.
std::map<std::string, std::string> TreeSnapshot(const fs::path& dir) {
  std::map<std::string, std::string> entries;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string name = fs::relative(entry.path(), dir).generic_string();
    entries[name] = entry.is_regular_file() ? Sha256OfFile(entry.path()) : std::string("(directory)");
  }
  return entries;
}

struct OverwriteCase {
  const char* name;
  std::string args;                   // after `pstrain `, run in the work directory
  std::vector<std::string> expected;  // substrings of the message
};

void ExpectRefusedWithoutWriting(const fs::path& work, const std::vector<OverwriteCase>& cases) {
  const std::map<std::string, std::string> before = TreeSnapshot(work);
  for (const OverwriteCase& c : cases) {
    SCOPED_TRACE(c.name);
    const CommandResult r = RunCommand("cd " + ShellQuote(work.string()) + " && " + Pstrain(c.args));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    for (const std::string& text : c.expected) EXPECT_THAT(r.output, HasSubstr(text));
    const std::map<std::string, std::string> after = TreeSnapshot(work);
    std::string changes;
    for (const auto& [name, digest] : after) {
      if (!before.count(name)) changes += " added " + name + ";";
      else if (before.at(name) != digest) changes += " changed " + name + ";";
    }
    for (const auto& [name, digest] : before) {
      if (!after.count(name)) changes += " removed " + name + ";";
    }
    EXPECT_EQ(changes, "") << "a refused command changed the work directory";
  }
}

TEST(BadInputTest, TrainAndAccumulateRefuseAnOutputThatWouldOverwriteTheInputModel) {
  SmallCorpus corpus = MakeSmallCorpus("overwrite-corpus", 3);
  Import(corpus);
  const fs::path work = ScratchDir("overwrite-model");
  CopyModelTo(work / "model");
  CopyModelTo(work / "run" / "model");
  fs::create_directory_symlink("run", work / "link");
  const fs::path corpus_dir = CorpusDir();
  const std::string rest = " --manifest " + ShellQuote(corpus.Manifest().string()) + " --dict " +
                           ShellQuote((corpus_dir / "corpus.dic").string()) + " --filler " +
                           ShellQuote((corpus_dir / "corpus.filler").string());
  const std::string train = "train --max-passes 1" + rest;
  const std::string accumulate = "accumulate" + rest;
  const std::string resolved_run = fs::weakly_canonical(work / "run").string();
  const std::string resolved_model = fs::weakly_canonical(work / "run" / "model").string();
  std::vector<OverwriteCase> cases;
  for (const std::string& command : {train, accumulate}) {
    cases.push_back({"empty --out, model in the current directory", command + " --model model --out ''", {"--out is empty"}});
    cases.push_back({"--out is the model", command + " --model run/model --out run/model",
                     {"--out run/model is the input model directory --model run/model", resolved_model}});
    cases.push_back({"--out contains the model", command + " --model run/model --out run",
                     {"--out run contains the input model directory --model run/model"}});
    cases.push_back({"--out inside the model", command + " --model run/model --out run/model/inner",
                     {"--out run/model/inner lies inside the input model directory --model run/model"}});
    cases.push_back({"--out through a symbolic link", command + " --model run/model --out link",
                     {"--out link contains the input model directory --model run/model", resolved_run}});
    cases.push_back({"--out with ..", command + " --model run/model --out run/missing/..",
                     {"--out run/missing/.. contains the input model directory --model run/model", resolved_run}});
    cases.push_back({"--model through ..", command + " --model run/../run/model --out run",
                     {"--out run contains the input model directory --model run/../run/model"}});
  }
  // Replacing ACCUMDIR, RUNDIR/model or RUNDIR/passes as a whole would remove the other inputs too.
  // The one literal "passes" in this file: the expected messages quote the command line's paths.
  fs::create_directories(work / "run2" / "passes");
  fs::copy_file(corpus.Manifest(), work / "run2" / "passes" / "small.manifest");
  const std::string dicts = " --dict " + ShellQuote((corpus_dir / "corpus.dic").string()) + " --filler " +
                            ShellQuote((corpus_dir / "corpus.filler").string());
  cases.push_back({"accumulate --out contains the manifest",
                   "accumulate --model model --manifest run2/passes/small.manifest" + dicts + " --out run2",
                   {"--out run2 contains the manifest --manifest run2/passes/small.manifest"}});
  cases.push_back({"train replaces RUNDIR/passes, which holds the manifest",
                   "train --model model --manifest run2/passes/small.manifest" + dicts + " --out run2",
                   {"run2/passes (replaced by --out run2) contains the manifest --manifest run2/passes/small.manifest"}});
  cases.push_back({"accumulate --out is the corpus root",
                   "accumulate --model model --manifest run2/passes/small.manifest --corpus-root feat" + dicts + " --out feat",
                   {"--out feat is the corpus root --corpus-root feat"}});
  fs::create_directories(work / "feat");
  ExpectRefusedWithoutWriting(work, cases);
}

TEST(BadInputTest, NormalizeRefusesAnOutputThatWouldOverwriteItsInputs) {
  SmallCorpus corpus = MakeSmallCorpus("overwrite-normalize-corpus", 3);
  Import(corpus);
  const fs::path work = ScratchDir("overwrite-normalize");
  CopyModelTo(work / "model");
  const CommandResult accumulated = RunPstrain(Command::kAccumulate, work / "model", corpus.Manifest(), work / "accs" / "acc");
  ASSERT_EQ(accumulated.exit_code, 0) << accumulated.output;
  // A good normalize works (and is not refused by the checks).
  const CommandResult good = RunCommand("cd " + ShellQuote(work.string()) + " && " +
                                        Pstrain("normalize --accum accs/acc --model-in model --out normalized"));
  ASSERT_EQ(good.exit_code, 0) << good.output;
  const std::vector<OverwriteCase> cases = {
      {"empty --out", "normalize --accum accs/acc --model-in model --out ''", {"--out is empty"}},
      {"--out is --model-in", "normalize --accum accs/acc --model-in model --out model",
       {"--out model is the input model directory --model-in model"}},
      {"--out is --model-in through ..", "normalize --accum accs/acc --model-in model --out accs/../model",
       {"--out accs/../model is the input model directory --model-in model"}},
      {"--out inside --model-in", "normalize --accum accs/acc --model-in model --out model/next",
       {"--out model/next lies inside the input model directory --model-in model"}},
      {"--out is the second --accum directory", "normalize --accum accs/acc,accs/acc/ --model-in model --out accs/acc",
       {"--out accs/acc is the accumulator directory --accum accs/acc"}},
      {"--out contains an --accum directory", "normalize --accum accs/acc --model-in model --out accs",
       {"--out accs contains the accumulator directory --accum accs/acc"}},
      {"--out inside an --accum directory", "normalize --accum accs/acc --model-in model --out accs/acc/model",
       {"--out accs/acc/model lies inside the accumulator directory --accum accs/acc"}},
  };
  ExpectRefusedWithoutWriting(work, cases);
}

// ---------------------------------------------------------------------------------------------
// Unsigned options (issue 13): Boost's parser read "-1" for an unsigned option as 4294967295
// (`--jobs=-1` recorded requested_jobs 4294967295, `--max-passes -1` and `--topn -1` likewise).
// Every negative, non-numeric or out-of-range value of every unsigned option is refused with exit 2,
// naming the option and the value, before anything runs.
TEST(BadInputTest, NegativeAndOutOfRangeUnsignedOptionsAreRefused) {
  SmallCorpus corpus = MakeSmallCorpus("unsigned-options-corpus", 3);
  Import(corpus);
  const fs::path out = ScratchDir("unsigned-options-out");
  const std::string inputs = CorpusFlags(An4Model(), corpus.Manifest());
  const std::string train_any_passes = "train " + inputs + " --out " + ShellQuote((out / "run").string()) + " ";
  const std::string train = train_any_passes + "--max-passes 1 ";
  const std::string accumulate = "accumulate " + inputs + " --out " + ShellQuote((out / "acc").string()) + " ";
  const std::string worker = "worker " + inputs + " --out " + ShellQuote((out / "shard").string()) + " ";
  struct Case {
    std::string args;
    std::string option, value;
  };
  const Case cases[] = {
      {train + "--jobs=-1", "--jobs", "-1"},
      {train + "--jobs -1", "--jobs", "-1"},
      {train + "--jobs 0", "--jobs", "0"},
      {train + "--jobs 4294967296", "--jobs", "4294967296"},
      {train + "--jobs 2x", "--jobs", "2x"},
      {train_any_passes + "--max-passes -1", "--max-passes", "-1"},
      {train_any_passes + "--max-passes 0", "--max-passes", "0"},
      {train + "--min-passes -1", "--min-passes", "-1"},
      {train + "--topn -1", "--topn", "-1"},
      {train + "--topn=-4", "--topn", "-4"},
      {accumulate + "--jobs -1", "--jobs", "-1"},
      {accumulate + "--jobs 0", "--jobs", "0"},
      {accumulate + "--topn -1", "--topn", "-1"},
      {accumulate + "--topn 99999999999", "--topn", "99999999999"},
      {worker + "--pass -1 --shard 0 --shards 1", "--pass", "-1"},
      {worker + "--pass 1 --shard -1 --shards 1", "--shard", "-1"},
      {worker + "--pass 1 --shard 0 --shards -1", "--shards", "-1"},
      {worker + "--pass 1 --shard 0 --shards 1 --coordinator-pid -5", "--coordinator-pid", "-5"},
      {worker + "--pass 1 --shard 0 --shards 1 --topn -2", "--topn", "-2"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const CommandResult r = RunCommand(Pstrain(c.args));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr("the argument ('" + c.value + "') for option '" + c.option + "' is invalid"));
    EXPECT_THAT(r.output, HasSubstr("expected a whole number from"));
    EXPECT_FALSE(fs::exists(out / "run" / "model")) << "a refused command trained";
    EXPECT_FALSE(fs::exists(out / "acc")) << "a refused command accumulated";
    EXPECT_FALSE(fs::exists(out / "shard" / "artifact.json")) << "a refused worker ran";
  }
  // The valid extremes still parse.
  const CommandResult fine = RunCommand(Pstrain(train + "--jobs 2 --topn 0 --min-passes 0"));
  EXPECT_EQ(fine.exit_code, 0) << fine.output;
}

// ---------------------------------------------------------------------------------------------
// Yes/no and enum options (issue 16): their values are checked by the option's validator, so a
// refused value is exit 2 naming the option and the value, before anything runs, in every command
// that has the option.
TEST(BadInputTest, RefusedYesNoAndEnumValuesExitWith2NamingTheOption) {
  SmallCorpus corpus = MakeSmallCorpus("choice-options-corpus", 3);
  Import(corpus);
  const fs::path out = ScratchDir("choice-options-out");
  const std::string inputs = CorpusFlags(An4Model(), corpus.Manifest());
  const std::string commands[] = {
      "train " + inputs + " --out " + ShellQuote((out / "run").string()) + " --max-passes 1 ",
      "accumulate " + inputs + " --out " + ShellQuote((out / "acc").string()) + " ",
      "worker " + inputs + " --out " + ShellQuote((out / "shard").string()) + " --pass 1 --shard 0 --shards 1 "};
  struct Case {
    std::string option, value;
    bool train_and_accumulate_only;
  };
  const Case cases[] = {{"--varnorm", "maybe", false}, {"--2passvar", "1", false},     {"--multipron", "sure", false},
                        {"--cmn", "live", false},      {"--reduction", "exact32", false}, {"--launcher", "bogus", true}};
  for (const std::string& command : commands) {
    for (const Case& c : cases) {
      if (c.train_and_accumulate_only && command.rfind("worker", 0) == 0) continue;
      SCOPED_TRACE(command + c.option + " " + c.value);
      const CommandResult r = RunCommand(Pstrain(command + c.option + " " + c.value));
      EXPECT_EQ(r.exit_code, 2) << r.output;
      EXPECT_THAT(r.output, HasSubstr("the argument ('" + c.value + "') for option '" + c.option + "' is invalid"));
      EXPECT_FALSE(fs::exists(out / "run" / "model")) << "a refused command trained";
      EXPECT_FALSE(fs::exists(out / "acc")) << "a refused command accumulated";
      EXPECT_FALSE(fs::exists(out / "shard" / "artifact.json")) << "a refused worker ran";
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Unprintable file content in messages (issue 13): a manifest line with a NUL byte gave
// `...:4: word "</s>` and the reason was lost (what() is a C string). Quoted content is escaped
// (\x00, invalid UTF-8 as \xNN), whatever the file.
TEST(BadInputTest, NulAndInvalidUtf8InFilesAreEscapedAndTheReasonKept) {
  using std::string_literals::operator""s;
  SmallCorpus corpus = MakeSmallCorpus("unprintable-corpus", 3);
  Import(corpus);
  const fs::path dir = ScratchDir("unprintable");
  const fs::path corpus_dir = CorpusDir();

  // A manifest whose last word on line 4 ends with a NUL.
  const fs::path manifest = dir / "nul.manifest";
  std::string text = ReadFileText(corpus.Manifest());
  const std::size_t line4 = text.find('\n', text.find('\n', text.find('\n') + 1) + 1) + 1;
  const std::size_t close = text.find("</s>", line4);
  ASSERT_NE(close, std::string::npos);
  text.insert(close + 4, "\0"s);
  WriteText(manifest, text);
  const std::string manifest_reason = manifest.string() + ":4: word \"</s>\\x00\" contains control character 0x00";
  ExpectInputError("unprintable-manifest", An4Model(), manifest, {manifest_reason});
  const CommandResult check = RunCommand(Pstrain("manifest check " + ShellQuote(manifest.string())));
  EXPECT_EQ(check.exit_code, 2) << check.output;
  EXPECT_THAT(check.output, HasSubstr(manifest_reason));

  // Dictionaries: a NUL inside a line, a headword that is not UTF-8.
  const std::string dictionary = ReadFileText(corpus_dir / "corpus.dic");
  WriteText(dir / "nul.dic", dictionary + "BAD\0WORD B AE D\n"s);
  WriteText(dir / "latin1.dic", dictionary + "\xff" "BAD\n");
  const std::size_t extra_line = static_cast<std::size_t>(std::count(dictionary.begin(), dictionary.end(), '\n')) + 1;
  struct DictCase {
    const char* file;
    std::string expected;
  };
  const DictCase dict_cases[] = {
      {"nul.dic", ":" + std::to_string(extra_line) + ": control character 0x00 in line \"BAD\\x00WORD B AE D\""},
      {"latin1.dic", ":" + std::to_string(extra_line) + ": headword \"\\xffBAD\" has no phones"},
  };
  for (const DictCase& c : dict_cases) {
    SCOPED_TRACE(c.file);
    for (const char* command : {"accumulate", "train --max-passes 1"}) {
      const CommandResult r = RunCommand(Pstrain(std::string(command) + " --model " + ShellQuote(An4Model().string()) + " --manifest " +
                                                 ShellQuote(corpus.Manifest().string()) + " --dict " + ShellQuote((dir / c.file).string()) +
                                                 " --filler " + ShellQuote((corpus_dir / "corpus.filler").string()) + " --out " +
                                                 ShellQuote((dir / "out").string())));
      EXPECT_EQ(r.exit_code, 2) << r.output;
      EXPECT_THAT(r.output, HasSubstr((dir / c.file).string() + c.expected));
    }
  }

  // A transcript and a control file with a NUL, through `pstrain manifest import`.
  std::string transcription = ReadFileText(corpus.Transcription());
  const std::size_t end_of_first = transcription.find("</s>") + 4;
  const std::string first_line = transcription.substr(0, transcription.find('\n'));
  transcription.insert(end_of_first, "\0"s);
  WriteText(dir / "nul.transcription", transcription);
  std::string escaped_line = first_line;
  escaped_line.insert(end_of_first, "\\x00");
  std::string fileids = ReadFileText(corpus.Fileids());
  fileids.insert(fileids.find('\n'), "\0"s);
  WriteText(dir / "nul.fileids", fileids);
  struct ImportCase {
    fs::path fileids, transcription;
    std::string expected;
  };
  const ImportCase import_cases[] = {
      {corpus.Fileids(), dir / "nul.transcription",
       (dir / "nul.transcription").string() + ":1: control character 0x00 in line \"" + escaped_line + "\""},
      {dir / "nul.fileids", corpus.Transcription(),
       (dir / "nul.fileids").string() + ":1: control character 0x00 in line \"" + corpus.utt_ids[0] + "\\x00\""},
  };
  for (const ImportCase& c : import_cases) {
    SCOPED_TRACE(c.expected);
    const CommandResult r = RunCommand(Pstrain("manifest import --fileids " + ShellQuote(c.fileids.string()) + " --transcription " +
                                               ShellQuote(c.transcription.string()) + " --cepdir " +
                                               ShellQuote((corpus.dir / "feat").string()) + " --out " +
                                               ShellQuote((corpus.dir / "imported.manifest").string())));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.expected));
  }

  // A feat.params value with a NUL.
  const fs::path model = CopyModel("unprintable-model");
  std::string params = ReadFileText(model / "feat.params");
  params.replace(params.find("-feat 1s_c_d_dd"), 15, "-feat 1s_c\0_d_dd"s);
  WriteText(model / "feat.params", params);
  ExpectInputError("unprintable-feat-params", model, corpus.Manifest(),
                   {(model / "feat.params").string() + ":4: setting -feat 1s_c\\x00_d_dd is not supported"});
}

// ---------------------------------------------------------------------------------------------
// Bad input found by a shard worker (issue 13): a bad .mfc gave exit 2 and a clean message with
// --jobs 1 (the shard runs inline) but exit 1 "training failed: ... worker exited with status 2"
// with --jobs 2, the cause only in the tail of the worker's output. The worker's reason travels back
// (SHARD_DIR/failure.json): exit 2 and the same message whatever the job count.

// The line of `output` that holds the error message.
std::string ErrorLine(const std::string& output) {
  std::size_t begin = 0;
  while (begin < output.size()) {
    const std::size_t end = output.find('\n', begin);
    const std::string line = output.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    if (line.find(": error: ") != std::string::npos || line.find(": training failed: ") != std::string::npos) return line;
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return "(no error line in: " + output + ")";
}

TEST(BadInputTest, BadInputFoundByAWorkerGivesExit2AndTheSameMessageForEveryJobCount) {
  SmallCorpus corpus = MakeSmallCorpus("worker-input-error", 4);
  const fs::path bad = corpus.Feature(corpus.utt_ids[2]);
  Truncate(bad, 1001);  // before the import: only the shard's .mfc parser can tell
  Import(corpus);
  for (const Command command : {Command::kAccumulate, Command::kTrain}) {
    SCOPED_TRACE(CommandName(command));
    std::string inline_message;
    for (const int jobs : {1, 2, 4}) {
      SCOPED_TRACE("--jobs " + std::to_string(jobs));
      const fs::path out = ScratchDir("worker-input-error-" + std::string(CommandName(command)) + "-" + std::to_string(jobs)) / "out";
      std::string args = std::string(CommandName(command)) + " " + CorpusFlags(An4Model(), corpus.Manifest()) + " --out " +
                         ShellQuote(out.string()) + " --jobs " + std::to_string(jobs);
      if (command == Command::kTrain) args += " --max-passes 1";
      const CommandResult r = RunCommand(Pstrain(args));
      EXPECT_EQ(r.exit_code, 2) << r.output;
      const std::string message = ErrorLine(r.output);
      EXPECT_THAT(message, HasSubstr(std::string("pstrain ") + CommandName(command) + ": error: " + bad.string() + ": "));
      EXPECT_THAT(message, HasSubstr("truncated"));
      EXPECT_THAT(r.output, ::testing::Not(HasSubstr("worker exited"))) << "the worker's reason did not travel back";
      if (jobs == 1) inline_message = message;
      else EXPECT_EQ(message, inline_message);
    }
  }
}

}  // namespace
}  // namespace pstrain::testing
