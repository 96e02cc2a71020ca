// Gate 8 (issue #5), completion order: shards forced to finish in different orders (delays injected
// with PSTRAIN_FAULT_INJECTION before each shard writes its artifact) give identical bytes: models,
// reduced statistics, pass summaries, shard artifacts and the final model with its provenance.
//
// Quick profile (the declaration): default corpus (93 utterances), --jobs 3, 3 passes; one run
// without delays (the reference) and three runs whose delays force the orders 2,1,0 / 0,1,2 / 1,0,2.
// Delays are 400 and 200 ms (a shard's own work takes well under 100 ms on this corpus).
// Full profile: benchmark corpus (400 utterances), --jobs 3, 5 passes, delays 2000 and 1000 ms.
// Overrides (`audit gates run`): --shards runs the largest count of the list (at least 2; the
// orders forced are those of shards 0, 1 and 2, or with 2 shards the orders 1,0 and 0,1);
// --passes and --corpus apply.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "gate_fixture.h"
#include "gate_kit.h"

namespace pstrain::gates {
namespace {

namespace fs = std::filesystem;

struct OrderCase {
  std::string faults;                         // PSTRAIN_FAULT_INJECTION
  std::vector<std::uint32_t> expected_order;  // the order the delays force
};

// Modification time in nanoseconds (full resolution), -1 when it cannot be read.
std::int64_t MtimeNs(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return -1;
  return std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// The shards of a pass in the order they wrote their artifact.json (the last deterministic file a
// worker writes).
std::vector<std::uint32_t> FinishingOrder(const fs::path& pass_dir, std::uint32_t shards) {
  std::vector<std::pair<std::int64_t, std::uint32_t>> finished;
  for (std::uint32_t shard = 0; shard < shards; ++shard) finished.emplace_back(MtimeNs(pass_dir / ShardDirName(shard) / "artifact.json"), shard);
  std::sort(finished.begin(), finished.end());
  std::vector<std::uint32_t> order;
  for (const auto& item : finished) order.push_back(item.second);
  return order;
}

TEST(Gate, CompletionOrder) {
  Gate gate({"completion-order", {3}, 3, "three forced finishing orders of three shards on the local launcher, plus an unforced run; the order is forced by injected delays and observed from artifact mtimes (a loaded machine may reorder a pass; each forced order must be seen in at least one pass); telemetry.json and worker.stderr are not compared"});
  const GateCorpus corpus = ProfileCorpus();
  const std::uint32_t passes = GatePasses(3, 5);
  const std::vector<std::uint32_t> counts = GateShardCounts({3}, ShardUse::kLargest);
  gate.RecordRun(DescribeRun(corpus, counts, passes, ShardUse::kLargest));
  const std::uint32_t jobs = counts.front();
  const std::uint32_t shards = static_cast<std::uint32_t>(std::min<std::size_t>(jobs, corpus.utterances));
  // Precondition: at least two shards to order.
  ASSERT_GE(shards, 2u) << "--jobs " << jobs << " runs " << shards << " shard(s) on a corpus of " << corpus.utterances << " utterances";
  const std::string slow = FullProfile() ? "2000" : "400", slower_half = FullProfile() ? "1000" : "200";
  std::vector<OrderCase> cases;
  if (shards >= 3) {
    cases.push_back({"delay:0:" + slow + ",delay:1:" + slower_half, {2, 1, 0}});
    cases.push_back({"delay:2:" + slow + ",delay:1:" + slower_half, {0, 1, 2}});
    cases.push_back({"delay:0:" + slower_half + ",delay:2:" + slow, {1, 0, 2}});
  } else {
    cases.push_back({"delay:0:" + slow, {1, 0}});
    cases.push_back({"delay:1:" + slow, {0, 1}});
  }
  const std::uint32_t ordered = shards >= 3 ? 3 : 2;  // the shards whose order is forced
  const std::string job_options = "--jobs " + std::to_string(jobs) + " ";
  const fs::path dir = GateScratch("completion-order");
  const fs::path reference = dir / "no-delay";
  // Precondition: the reference run finishes.
  ASSERT_EQ(RunOk(TrainCommand(corpus, reference, job_options + ExactlyPasses(passes))).exit_code, 0);

  double forced_orders_seen = 0;  // cases whose forced order was observed in at least one pass
  for (std::size_t index = 0; index < cases.size(); ++index) {
    const OrderCase& c = cases[index];
    SCOPED_TRACE("PSTRAIN_FAULT_INJECTION=" + c.faults);
    const fs::path run = dir / ("order-" + std::to_string(index));
    // Precondition: the delayed run finishes.
    ASSERT_EQ(RunOk(WithFaults(c.faults, TrainCommand(corpus, run, job_options + ExactlyPasses(passes)))).exit_code, 0);
    bool seen = false;
    for (std::uint32_t pass = 1; pass <= passes; ++pass) {
      SCOPED_TRACE("pass " + std::to_string(pass));
      const fs::path pass_dir = PassDir(run, pass), reference_pass = PassDir(reference, pass);
      if (FinishingOrder(pass_dir, ordered) == c.expected_order) seen = true;
      gate.ExpectWithin("pass.json shard_count", ShardCountOf(pass_dir), shards, 0.0, 0.0);
      gate.ExpectProducedFilesIdentical(pass_dir / "model", reference_pass / "model", {"means", "variances", "mixture_weights", "transition_matrices"});
      gate.ExpectCopiedInputsIdentical(pass_dir / "model", reference_pass / "model", {"mdef", "feat.params", "noisedict"});
      gate.ExpectProducedFilesIdentical(pass_dir / "accum", reference_pass / "accum", {"gauden_counts", "mixw_counts", "tmat_counts", "exact_counts"});
      gate.ExpectProducedFilesIdentical(pass_dir, reference_pass, {"pass.json"});
      for (std::uint32_t shard = 0; shard < shards; ++shard) {
        gate.ExpectProducedFilesIdentical(pass_dir / ShardDirName(shard), reference_pass / ShardDirName(shard),
                                          {"artifact.json", "gauden_counts", "mixw_counts", "tmat_counts", "exact_counts", "worker.log"});
      }
    }
    if (seen) forced_orders_seen += 1;
    gate.ExpectProducedFilesIdentical(run / "model", reference / "model", {"means", "variances", "mixture_weights", "transition_matrices", "provenance.json"});
    gate.ExpectCopiedInputsIdentical(run / "model", reference / "model", {"mdef", "feat.params", "noisedict"});
  }
  // The orders really were permuted: each forced order happened in at least one pass.
  gate.ExpectWithin("forced finishing orders observed (every case)", forced_orders_seen, static_cast<double>(cases.size()), 0.0, 0.0);
}

}  // namespace
}  // namespace pstrain::gates
