// `audit gates run` end to end: the built audit runs the built gate binary (gates/gate_tests) on
// the default corpus, quick profile, only the fixed-count-reproducibility gate (about a second),
// and summarizes it; with overrides (--shards, --passes, --corpus: an 8-utterance manifest written
// here) on two gates and on every gate; with a deliberately broken trainer (--pstrain: a wrapper
// that makes the final means depend on its PID), which must fail with the file and the first
// differing offset; and with bad override values (exit 2). (Fake gate binaries:
// tests/auditor/gates/audit_gates_test.cpp.)
//
// Needs the `audit` and `gate_tests` targets built (integration_tests depends on them). The gate's
// scratch directories go below audit's work directory (PSTRAIN_GATE_SCRATCH), so this test and
// ctest's own run of the same gate can run at the same moment.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <sstream>
#include <string>

#include "common/file_io.h"
#include "support/test_util.h"

namespace pstrain::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

TEST(AuditGatesRunTest, FixedCountGatePassesAndTheSummaryNamesItsChecks) {
  const fs::path audit = AuditBinary();
  const fs::path gate_tests = fs::path(PSTRAIN_BUILD_DIR) / "gates" / "gate_tests";
  ASSERT_TRUE(fs::exists(audit)) << audit << " is not built (cmake --build BUILD --target audit)";
  ASSERT_TRUE(fs::exists(gate_tests)) << gate_tests << " is not built (cmake --build BUILD --target gate_tests)";

  const fs::path dir = FreshDir("audit_gates_run");
  const CommandResult r = RunCommand(ShellQuote(audit.string()) + " gates run --profile quick --only fixed-count-reproducibility" +
                                     " --work-dir " + ShellQuote((dir / "work").string()) + " --json " +
                                     ShellQuote((dir / "summary.json").string()) + " --junit " +
                                     ShellQuote((dir / "junit.xml").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("PASS    Gate.FixedCountReproducibility"), std::string::npos) << r.output;

  const json::value summary = json::parse(ReadFileText(dir / "summary.json"));
  EXPECT_EQ(summary.at("exit_code").as_int64(), 0);
  EXPECT_EQ(summary.at("profile").as_string(), "quick");
  const json::array& gates = summary.at("gates").as_array();
  ASSERT_EQ(gates.size(), 1u) << summary;
  const json::object& gate = gates[0].as_object();
  EXPECT_EQ(gate.at("name").as_string(), "Gate.FixedCountReproducibility");
  EXPECT_EQ(gate.at("kind").as_string(), "fixed-count-reproducibility");
  EXPECT_EQ(gate.at("declared_in").as_string(), "ledger");
  EXPECT_EQ(gate.at("declared_shard_counts"), json::array({2}));
  EXPECT_EQ(gate.at("result").as_string(), "pass");
  EXPECT_GT(gate.at("checks").as_int64(), 0) << summary;
  EXPECT_EQ(gate.at("failed_checks").as_int64(), 0);
  EXPECT_TRUE(gate.at("first_failed_check").is_null());

  // The ledger is the run's own; the JUnit report is GoogleTest's.
  EXPECT_NE(ReadFileText(dir / "work" / "gate-ledger.jsonl").find("\"record\":\"declaration\""), std::string::npos);
  EXPECT_NE(ReadFileText(dir / "junit.xml").find("<testcase name=\"FixedCountReproducibility\""), std::string::npos);
}

// An 8-utterance manifest (the first 8 of the default training manifest) in `dir`; its corpus
// root is the default corpus's directory (given with --corpus-root).
fs::path SmallManifest(const fs::path& dir) {
  std::istringstream in(ReadFileText(TrainManifest()));
  std::string line, body;
  std::getline(in, line);  // the header
  for (int i = 0; i < 8 && std::getline(in, line); ++i) body += line + "\n";
  const fs::path manifest = dir / "small.manifest";
  WriteFileAtomic(manifest, "pstrain-manifest 1 utterances=8\n" + body);
  return manifest;
}

TEST(AuditGatesRunTest, OverridesRunTwoGatesOnAChosenCorpusAndTheSummaryNamesWhatRan) {
  ASSERT_TRUE(fs::exists(AuditBinary())) << AuditBinary() << " is not built";
  const fs::path dir = FreshDir("audit_gates_run_overrides");
  const fs::path manifest = SmallManifest(dir);
  const CommandResult r = RunCommand(
      ShellQuote(AuditBinary().string()) + " gates run --only fixed-count-reproducibility,cross-count-exact --shards 1,3 --passes 2" +
      " --corpus " + ShellQuote(manifest.string()) + " --corpus-root " + ShellQuote(CorpusDir().string()) + " --work-dir " +
      ShellQuote((dir / "work").string()) + " --json " + ShellQuote((dir / "summary.json").string()) + " --junit " +
      ShellQuote((dir / "junit.xml").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("audit gates: override PSTRAIN_GATE_SHARDS=1,3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("PASS    Gate.FixedCountReproducibility"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("PASS    Gate.CrossCountExact"), std::string::npos) << r.output;
  const std::string ran = "ran:       shard counts {1, 3}, 2 passes, corpus override " + manifest.string() + " (8 utterances, sha256 ";
  EXPECT_NE(r.output.find(ran), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("override applied: PSTRAIN_GATE_SHARDS=1,3 (each count, on its own)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("override applied: PSTRAIN_GATE_SHARDS=1,3 (every count, compared with the first)"), std::string::npos)
      << r.output;

  const json::value summary = json::parse(ReadFileText(dir / "summary.json"));
  EXPECT_EQ(summary.at("exit_code").as_int64(), 0);
  const json::array& gates = summary.at("gates").as_array();
  ASSERT_EQ(gates.size(), 2u) << summary;
  for (const json::value& gate : gates) {
    SCOPED_TRACE(json::serialize(gate));
    const json::value& run = gate.at("run");
    EXPECT_EQ(run.at("shard_counts"), json::array({1, 3}));
    EXPECT_EQ(run.at("passes").as_int64(), 2);
    EXPECT_EQ(run.at("corpus").at("name").as_string(), "override");
    EXPECT_EQ(run.at("corpus").at("manifest").as_string(), manifest.string());
    EXPECT_EQ(run.at("corpus").at("utterances").as_int64(), 8);
    EXPECT_EQ(run.at("corpus").at("fingerprint").as_string().size(), 64u);
    EXPECT_GT(gate.at("checks").as_int64(), 0);
    // The declaration is the source's (it describes, it does not say what ran).
    EXPECT_EQ(gate.at("declared_in").as_string(), "ledger");
  }
  const std::string junit = ReadFileText(dir / "junit.xml");
  EXPECT_NE(junit.find("name=\"run_shard_counts\" value=\"1,3\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("name=\"run_passes\" value=\"2\""), std::string::npos) << junit;
  EXPECT_NE(junit.find(manifest.string() + " (8 utterances"), std::string::npos) << junit;
}

// Every gate with the same overrides: the cross-count, fixed-count, provenance, completion-order,
// multipron and cross-machine gates use the list as their comments say; one-shard-reference,
// peer-agreement and artifact-validation ignore --shards and --passes and say so (about 12 s on 2
// cores).
TEST(AuditGatesRunTest, EveryGateRunsOnTheSmallCorpusAndTheFixedOnesSayWhatTheyIgnored) {
  ASSERT_TRUE(fs::exists(AuditBinary())) << AuditBinary() << " is not built";
  const fs::path dir = FreshDir("audit_gates_run_every_gate");
  const fs::path manifest = SmallManifest(dir);
  const CommandResult r = RunCommand(ShellQuote(AuditBinary().string()) + " gates run --shards 1,3 --passes 2 --corpus " +
                                     ShellQuote(manifest.string()) + " --corpus-root " + ShellQuote(CorpusDir().string()) +
                                     " --work-dir " + ShellQuote((dir / "work").string()) + " --json " +
                                     ShellQuote((dir / "summary.json").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("audit gates: one-shard-reference ignores --shards (one shard by definition)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("audit gates: artifact-validation ignores --passes"), std::string::npos) << r.output;
  const json::value summary = json::parse(ReadFileText(dir / "summary.json"));
  EXPECT_EQ(summary.at("totals").at("passed").as_int64(), 10) << summary;
  for (const json::value& gate : summary.at("gates").as_array()) {
    SCOPED_TRACE(json::serialize(gate));
    const std::string kind(gate.at("kind").as_string());
    const json::value& run = gate.at("run");
    ASSERT_TRUE(run.is_object());
    EXPECT_EQ(run.at("corpus").at("utterances").as_int64(), 8);
    const bool fixed = kind == "one-shard-reference" || kind == "peer-agreement" || kind == "artifact-validation";
    EXPECT_EQ(run.at("overrides_ignored").as_array().size(), fixed ? 2u : 0u);
    if (fixed) {
      EXPECT_EQ(run.at("shard_counts"), gate.at("declared_shard_counts"));
    } else if (kind == "completion-order") {
      EXPECT_EQ(run.at("shard_counts"), json::array({3}));
    } else {
      EXPECT_EQ(run.at("shard_counts"), json::array({1, 3}));
      EXPECT_EQ(run.at("passes").as_int64(), 2);
    }
  }
}

TEST(AuditGatesRunTest, ABrokenTrainerFailsTheFixedCountGateNamingTheFileAndOffset) {
  ASSERT_TRUE(fs::exists(AuditBinary())) << AuditBinary() << " is not built";
  const fs::path dir = FreshDir("audit_gates_run_broken");
  const fs::path manifest = SmallManifest(dir);
  // The broken build: the real pstrain, then (for `train`) its PID written into the final means at
  // byte 100, so two runs never write the same model.
  const fs::path wrapper = dir / "broken-pstrain";
  WriteFileAtomic(wrapper, "#!/bin/sh\n" + ShellQuote(PSTRAIN_BINARY) +
                               " \"$@\" || exit $?\n"
                               "[ \"$1\" = train ] || exit 0\n"
                               "out=; prev=\n"
                               "for a in \"$@\"; do [ \"$prev\" = --out ] && out=$a; prev=$a; done\n"
                               "[ -f \"$out/model/means\" ] || exit 0\n"
                               "printf '%08d' $$ | dd of=\"$out/model/means\" bs=1 seek=100 conv=notrunc 2>/dev/null\n");
  fs::permissions(wrapper, fs::perms::owner_all);
  const CommandResult r = RunCommand(ShellQuote(AuditBinary().string()) + " gates run --only fixed-count-reproducibility --passes 1" +
                                     " --corpus " + ShellQuote(manifest.string()) + " --corpus-root " +
                                     ShellQuote(CorpusDir().string()) + " --pstrain " + ShellQuote(wrapper.string()) +
                                     " --work-dir " + ShellQuote((dir / "work").string()) + " --json " +
                                     ShellQuote((dir / "summary.json").string()));
  ASSERT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("FAIL    Gate.FixedCountReproducibility"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pstrain:   " + wrapper.string()), std::string::npos) << r.output;
  // The failed check, the file that differs and where.
  EXPECT_NE(r.output.find("first failed check: ExpectProducedFilesIdentical [means, variances, mixture_weights, transition_matrices, "
                          "provenance.json]: means differs: first difference at byte 10"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find((dir / "work" / "gate-scratch" / "quick" / "fixed-count-reproducibility" / "a" / "model" / "means").string()),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("1 of 1 gates failed"), std::string::npos) << r.output;
  const json::value summary = json::parse(ReadFileText(dir / "summary.json"));
  const json::value& failed = summary.at("gates").at(0).at("first_failed_check");
  EXPECT_EQ(failed.at("helper").as_string(), "ExpectProducedFilesIdentical");
  EXPECT_NE(std::string(failed.at("detail").as_string()).find("means differs: first difference at byte 10"), std::string::npos) << summary;
}

TEST(AuditGatesRunTest, BadOverrideValuesExitTwoWithAMessage) {
  ASSERT_TRUE(fs::exists(AuditBinary())) << AuditBinary() << " is not built";
  const fs::path dir = FreshDir("audit_gates_run_bad");
  const std::string audit = ShellQuote(AuditBinary().string()) + " gates run --work-dir " + ShellQuote((dir / "work").string());
  CommandResult r = RunCommand(audit + " --only fixed-count-reproducibility --shards 2,0");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--shards: '0' is not a positive integer"), std::string::npos) << r.output;
  r = RunCommand(audit + " --only cross-count-exact --shards 4");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("cross-count-exact compares every count with the first and needs at least 2 distinct counts"),
            std::string::npos)
      << r.output;
  r = RunCommand(audit + " --only fixed-count-reproducibility --passes many");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--passes: 'many' is not a positive integer"), std::string::npos) << r.output;
  const fs::path manifest = SmallManifest(dir);
  r = RunCommand(audit + " --only fixed-count-reproducibility --corpus " + ShellQuote(manifest.string()));  // no corpus.dic next to it
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("the dictionary " + (dir / "corpus.dic").string() + " does not exist"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "work" / "gate-output.log")) << "no gate may run";
}

// Right after a build the default corpus (the ctest fixture's) is missing; `audit gates run` used
// to report every gate FAILED. It now prepares the corpus itself, with scripts/prepare-corpus.sh,
// into the gate binary's build tree. A fake build tree (CMakeCache.txt, gates/gate_tests: a script
// that passes only when BUILD/corpus/default/.stamp exists) without a corpus: after the run the
// corpus is there, prepared by the real script, and the gate passed.
TEST(AuditGatesRunTest, TheDefaultCorpusIsPreparedBeforeTheGatesRun) {
  const fs::path dir = FreshDir("audit_gates_prepare_corpus");
  const fs::path build = dir / "build";
  fs::create_directories(build / "gates");
  WriteFileAtomic(build / "CMakeCache.txt", "# a build tree\n");
  const fs::path corpus = build / "corpus" / "default";
  const fs::path gate = build / "gates" / "gate_tests";
  WriteFileAtomic(gate, "#!/bin/sh\n"
                        "[ -f '" + (corpus / ".stamp").string() + "' ] || { echo 'default corpus missing at " + corpus.string() + "'; exit 1; }\n"
                        "for a in \"$@\"; do case \"$a\" in --gtest_output=xml:*) cat > \"${a#--gtest_output=xml:}\" <<'EOF'\n"
                        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                        "<testsuites tests=\"1\" name=\"AllTests\"><testsuite name=\"Gate\" tests=\"1\">"
                        "<testcase name=\"CorpusThere\" status=\"run\" result=\"completed\" time=\"0\" classname=\"Gate\"/>"
                        "</testsuite></testsuites>\n"
                        "EOF\n"
                        ";; esac; done\n");
  fs::permissions(gate, fs::perms::owner_all);
  ASSERT_FALSE(fs::exists(corpus));
  const CommandResult r = RunCommand(ShellQuote(AuditBinary().string()) + " gates run --gate-binary " +
                                     ShellQuote(gate.string()) + " --work-dir " + ShellQuote((dir / "work").string()) +
                                     " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("audit gates: preparing the default corpus: bash " + std::string(PSTRAIN_SOURCE_DIR) +
                          "/scripts/prepare-corpus.sh " + corpus.string()),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("audit gates: default corpus ready at " + corpus.string()), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("PASS    Gate.CorpusThere"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(corpus / ".stamp"));
  EXPECT_TRUE(fs::exists(corpus / "train.fileids"));
  // The real build tree's corpus is the same (the script is deterministic).
  EXPECT_EQ(ReadFileText(corpus / "SHA256SUMS"), ReadFileText(CorpusDir() / "SHA256SUMS"));
}

}  // namespace
}  // namespace pstrain::testing
