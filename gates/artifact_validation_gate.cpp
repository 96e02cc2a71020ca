// Gate 7 (issue #5), artifact validation: a finished pass is copied, one thing is broken in the
// copy, and the real `pstrain validate COPY` must reject it (exit 1) by the check that rule belongs
// to (docs/contract.md, "Validation before reduction"). Every rejection is asserted through the kit.
// The exhaustive rule-by-rule test is tests/trainer/shards/artifact_validation_integration_test.cpp;
// this gate certifies the missing/stale/foreign-payload cases named in the issue.
//
// Quick profile (the declaration): default corpus (93 utterances), --jobs 3, 2 passes (pass 1 is
// mutated; its shard 1 is replayed into pass 2 as the stale artifact), and a 1-pass run with
// --abeam 1e-80 (the artifact from another configuration).
// Full profile: the same on the benchmark corpus (400 utterances).
// Overrides (`audit gates run`): --corpus applies (it needs at least 3 utterances); --shards and
// --passes are ignored (3 shards, 2 passes and a 1-pass run by definition: the cases break shards
// 1 and 2 and replay pass 1 into pass 2) and the run record says so.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/file_io.h"
#include "gate_fixture.h"
#include "gate_kit.h"
#include "support/test_util.h"

namespace pstrain::gates {
namespace {

namespace fs = std::filesystem;
using pstrain::testing::CommandResult;
using pstrain::testing::RunCommand;
using pstrain::testing::ShellQuote;

void WriteBytes(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out.good()) ADD_FAILURE() << "cannot write " << path;
}

// The mutations. Each returns false (and fails the gate as a precondition) when it could not be
// applied, so a rejection is never credited to a mutation that did not happen.
bool FlipByte(const fs::path& path) {
  std::vector<std::uint8_t> bytes = ReadFileBytes(path);
  if (bytes.empty()) return false;
  bytes[bytes.size() / 2] ^= 0x01;
  WriteBytes(path, bytes);
  return true;
}

bool Truncate(const fs::path& path) {
  const std::vector<std::uint8_t> bytes = ReadFileBytes(path);
  if (bytes.size() < 2) return false;
  WriteBytes(path, std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(bytes.size() / 2)));
  return true;
}

bool Remove(const fs::path& path) { return fs::remove_all(path) > 0; }

// Replaces directory `target` by a copy of directory `source` (a transplanted shard).
bool Transplant(const fs::path& source, const fs::path& target) {
  if (!fs::is_directory(source) || !fs::is_directory(target)) return false;
  fs::remove_all(target);
  fs::copy(source, target, fs::copy_options::recursive);
  return true;
}

// A fresh copy of `pass_dir` named after the case.
fs::path CopyPass(const fs::path& pass_dir, const fs::path& cases_dir, const std::string& name) {
  const fs::path copy = cases_dir / name / "pass";
  fs::remove_all(copy.parent_path());
  fs::create_directories(copy.parent_path());
  fs::copy(pass_dir, copy, fs::copy_options::recursive);
  return copy;
}

CommandResult Validate(const fs::path& pass_dir) { return RunCommand(GatePstrain("validate " + ShellQuote(pass_dir.string()))); }

TEST(Gate, ArtifactValidation) {
  Gate gate({"artifact-validation", {3}, 2, "each case breaks one thing in a copy of a finished pass and asserts the check that rejects it, not the shard or file named; artifacts are checked, not authenticated: a payload swapped together with consistently rewritten digests is not detected (docs/contract.md)"});
  const GateCorpus corpus = ProfileCorpus();
  gate.RecordRun(DescribeRun(corpus, GateShardCounts({3}, ShardUse::kFixed), 2, ShardUse::kFixed,
                             "2 passes (and a 1-pass run) by definition"));
  // Precondition: three shards need three utterances.
  ASSERT_GE(corpus.utterances, 3u) << "the corpus " << corpus.manifest << " has fewer than 3 utterances";
  const fs::path dir = GateScratch("artifact-validation");
  const fs::path base = dir / "base", other_config = dir / "other-config", cases = dir / "cases";
  // Preconditions: the runs whose artifacts are broken or transplanted finish.
  ASSERT_EQ(RunOk(TrainCommand(corpus, base, "--jobs 3 " + ExactlyPasses(2))).exit_code, 0);
  ASSERT_EQ(RunOk(TrainCommand(corpus, other_config, "--jobs 3 --abeam 1e-80 " + ExactlyPasses(1))).exit_code, 0);
  const fs::path pass1 = PassDir(base, 1), pass2 = PassDir(base, 2);
  // Precondition: unmodified copies validate, so each rejection below is the mutation's doing.
  for (const fs::path& pass : {pass1, pass2}) {
    const CommandResult r = Validate(CopyPass(pass, cases, "unmodified-" + pass.filename().string()));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }

  // Each case: copy, mutate (the ASSERT_TRUE is a precondition: the mutation was applied), validate,
  // and certify the rejection through the kit.
  fs::path copy = CopyPass(pass1, cases, "payload-byte-flipped");
  ASSERT_TRUE(FlipByte(copy / ShardDirName(1) / "gauden_counts"));
  CommandResult r = Validate(copy);
  gate.ExpectRejected("payload byte flipped (shard-001/gauden_counts)", r.exit_code, r.output, "payload-sha256");

  copy = CopyPass(pass1, cases, "payload-truncated");
  ASSERT_TRUE(Truncate(copy / ShardDirName(1) / "mixw_counts"));
  r = Validate(copy);
  gate.ExpectRejected("payload truncated (shard-001/mixw_counts)", r.exit_code, r.output, "payload-size");

  copy = CopyPass(pass1, cases, "payload-missing");
  ASSERT_TRUE(Remove(copy / ShardDirName(1) / "tmat_counts"));
  r = Validate(copy);
  gate.ExpectRejected("payload missing (shard-001/tmat_counts)", r.exit_code, r.output, "missing");

  copy = CopyPass(pass1, cases, "exact-counts-missing");
  ASSERT_TRUE(Remove(copy / ShardDirName(2) / "exact_counts"));
  r = Validate(copy);
  gate.ExpectRejected("payload missing (shard-002/exact_counts)", r.exit_code, r.output, "missing");

  copy = CopyPass(pass1, cases, "artifact-json-missing");
  ASSERT_TRUE(Remove(copy / ShardDirName(1) / "artifact.json"));
  r = Validate(copy);
  gate.ExpectRejected("artifact.json missing (shard-001)", r.exit_code, r.output, "missing");

  copy = CopyPass(pass1, cases, "shard-directory-missing");
  ASSERT_TRUE(Remove(copy / ShardDirName(2)));
  r = Validate(copy);
  gate.ExpectRejected("shard directory missing (shard-002)", r.exit_code, r.output, "missing");

  copy = CopyPass(pass2, cases, "stale-pass");
  ASSERT_TRUE(Transplant(pass1 / ShardDirName(1), copy / ShardDirName(1)));
  r = Validate(copy);
  gate.ExpectRejected("stale pass (pass 1's shard-001 replayed into pass 2)", r.exit_code, r.output, "stale-pass");

  copy = CopyPass(pass1, cases, "artifact-from-another-config");
  ASSERT_TRUE(Transplant(PassDir(other_config, 1) / ShardDirName(1), copy / ShardDirName(1)));
  r = Validate(copy);
  gate.ExpectRejected("artifact from another config (--abeam 1e-80 run's shard-001)", r.exit_code, r.output, "config-fingerprint");

  copy = CopyPass(pass1, cases, "reduced-statistics-of-one-shard");
  fs::copy_file(copy / ShardDirName(0) / "exact_counts", copy / "accum" / "exact_counts", fs::copy_options::overwrite_existing);
  r = Validate(copy);
  gate.ExpectRejected("reduced statistics replaced by one shard's (accum/exact_counts)", r.exit_code, r.output, "reduction");
}

}  // namespace
}  // namespace pstrain::gates
