// Gate 10 (issue #11), cross-machine reproducibility: the same training gives byte-identical
// deterministic files whatever the machine's CPU makes of it. On this machine it runs the training
// once per instruction-set level the CPU supports (PSTRAIN_ISA forced in turn; each shard's
// telemetry must report the forced level), and once with glibc's FMA/AVX2 function selection
// masked (GLIBC_TUNABLES, what glibc does on a CPU or VM without FMA), and compares every model and
// statistics file, artifact.json, pass.json and worker.log with the run at the default level.
// aarch64 is checked by scripts/check-aarch64.sh (nightly), not by this gate.
//
// Quick profile (the declaration): default corpus (93 utterances), --jobs 2, 3 passes.
// Full profile: benchmark corpus (400 utterances), --jobs 2, 5 passes.
// Overrides (`audit gates run`): --shards runs every level with each count of the list (each
// compared with the default level at the same count); --passes and --corpus apply.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "gate_fixture.h"
#include "gate_kit.h"
#include "numerics/isa.h"

namespace pstrain::gates {
namespace {

namespace fs = std::filesystem;

// What glibc does on a CPU without FMA and AVX2: its exp/log/pow come from the SSE2 build.
constexpr const char* kGlibcMasked = "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA,-AVX2_Usable,-FMA_Usable";

void ExpectSameDeterministicFiles(Gate& gate, const fs::path& a, const fs::path& b, std::uint32_t passes, std::uint32_t shards) {
  for (std::uint32_t pass = 1; pass <= passes; ++pass) {
    SCOPED_TRACE("pass " + std::to_string(pass));
    const fs::path pass_a = PassDir(a, pass), pass_b = PassDir(b, pass);
    gate.ExpectProducedFilesIdentical(pass_a / "model", pass_b / "model", {"means", "variances", "mixture_weights", "transition_matrices"});
    gate.ExpectProducedFilesIdentical(pass_a / "accum", pass_b / "accum", {"gauden_counts", "mixw_counts", "tmat_counts", "exact_counts"});
    gate.ExpectProducedFilesIdentical(pass_a, pass_b, {"pass.json"});
    for (std::uint32_t shard = 0; shard < shards; ++shard) {
      gate.ExpectProducedFilesIdentical(pass_a / ShardDirName(shard), pass_b / ShardDirName(shard),
                                        {"artifact.json", "gauden_counts", "mixw_counts", "tmat_counts", "exact_counts", "worker.log"});
    }
  }
  gate.ExpectProducedFilesIdentical(a / "model", b / "model", {"means", "variances", "mixture_weights", "transition_matrices", "provenance.json"});
}

TEST(Gate, CrossMachineReproducibility) {
  Gate gate({"cross-machine-reproducibility", {2}, 3, "instruction-set levels this CPU supports and glibc's SSE2 function selection, on one x86-64 machine with one build; other CPUs' features are emulated, not run; aarch64 is checked by scripts/check-aarch64.sh; telemetry.json and worker.stderr are not compared"});
  const GateCorpus corpus = ProfileCorpus();
  const std::uint32_t passes = GatePasses(3, 5);
  const std::vector<std::uint32_t> counts = GateShardCounts({2}, ShardUse::kEach);
  gate.RecordRun(DescribeRun(corpus, counts, passes, ShardUse::kEach));
  const fs::path dir = GateScratch("cross-machine-reproducibility");

  // The variants: every supported level forced, then the default level with glibc masked.
  std::vector<std::pair<std::string, std::string>> variants;  // name, environment prefix
  for (const numerics::IsaLevel level : numerics::SupportedIsaLevels()) {
    const std::string name(numerics::IsaName(level));
    variants.emplace_back(name, "PSTRAIN_ISA=" + name);
  }
  variants.emplace_back("glibc-sse2", kGlibcMasked);
  ASSERT_GE(variants.size(), 3u) << "fewer than two instruction-set levels: nothing would be compared";

  for (const std::uint32_t jobs : counts) {
    SCOPED_TRACE("--jobs " + std::to_string(jobs));
    const fs::path base = jobs == 2 ? dir : dir / ("jobs-" + std::to_string(jobs));
    const std::string options = "--jobs " + std::to_string(jobs) + " " + ExactlyPasses(passes);
    const std::uint32_t shards = static_cast<std::uint32_t>(std::min<std::size_t>(jobs, corpus.utterances));
    const fs::path reference = base / "default";
    ASSERT_EQ(RunOk("env -u PSTRAIN_ISA " + TrainCommand(corpus, reference, options)).exit_code, 0);

    for (const auto& [name, environment] : variants) {
      SCOPED_TRACE(name);
      const fs::path run = base / name;
      ASSERT_EQ(RunOk("env " + environment + " " + TrainCommand(corpus, run, options)).exit_code, 0);
      if (name != "glibc-sse2") {
        // The level was really used: every shard's telemetry names it.
        const fs::path expected = base / ("expected-isa-" + name + ".json");
        std::ofstream(expected) << "{\"isa\":\"" << name << "\"}";
        for (std::uint32_t shard = 0; shard < shards; ++shard) {
          gate.ExpectJsonFieldsEqual(PassDir(run, 1) / ShardDirName(shard) / "telemetry.json", expected, {"isa"});
        }
      }
      ExpectSameDeterministicFiles(gate, reference, run, passes, shards);
    }
  }
}

}  // namespace
}  // namespace pstrain::gates
