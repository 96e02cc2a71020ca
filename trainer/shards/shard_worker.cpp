// Running one shard of one pass (a `pstrain worker` process, or the coordinator with one job).
#include "shards/shard_worker.h"

#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <thread>
#include <tuple>

#include "accumulators/accumulators.h"
#include "accumulators/exact_accumulators.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/iso_time.h"
#include "common/sha256.h"
#include "common/thread_cpu.h"
#include "formats/dictionary.h"
#include "manifest/manifest.h"
#include "model/model_checks.h"
#include "numerics/isa.h"
#include "provenance/provenance.h"
#include "shards/artifact.h"
#include "shards/fallback_sidecar.h"
#include "shards/partition.h"
#include "shards/shard_telemetry.h"

// A sanitizer build's worker returns from RunShardTask (ShardTask::end_process_when_written is
// ignored): the sanitizers' checks run at exit.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PSTRAIN_WORKER_RETURNS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PSTRAIN_WORKER_RETURNS 1
#endif
#endif

namespace pstrain {

namespace fs = std::filesystem;

namespace {

void InjectFaults(const ShardTask& task) {
  const char* spec = std::getenv("PSTRAIN_FAULT_INJECTION");
  if (spec == nullptr) return;
  std::stringstream list(spec);
  for (std::string item; std::getline(list, item, ',');) {
    std::stringstream fields(item);
    std::string kind, a, b;
    std::getline(fields, kind, ':');
    std::getline(fields, a, ':');
    std::getline(fields, b, ':');
    if (a.empty() || std::stoul(a) != task.shard) continue;
    if (kind == "delay") std::this_thread::sleep_for(std::chrono::milliseconds(std::stoul(b)));
    if (kind == "crash" && std::stoul(b) == task.pass) std::abort();
    if (kind == "hang" && std::stoul(b) == task.pass) std::this_thread::sleep_for(std::chrono::hours(1));
    if (kind == "crash-once" && std::stoul(b) == task.pass) {
      // crash-once:SHARD:PASS:FLAGFILE: abort unless FLAGFILE exists, creating it first.
      std::string flag;
      std::getline(fields, flag);
      if (!flag.empty() && !fs::exists(flag)) {
        std::ofstream(flag) << "crashed\n";
        std::abort();
      }
    }
  }
}

}  // namespace

void RunShardTask(const ShardTask& task) {
  const auto start = std::chrono::system_clock::now();
  // The shard's own thread (in a worker process or inline in the coordinator); an inline shard's
  // helper threads measure themselves (CorpusPassResult::helper_cpu).
  const ThreadCpuSeconds cpu0 = ThisThreadCpu();
  const fs::path dir(task.shard_dir);
  fs::create_directories(dir);

  const PassInputs& inputs = task.inputs;
  // The model's fingerprint is that of the bytes loaded, not of the directory after the pass: an
  // input model replaced while the shard ran cannot be claimed by a shard trained on the old one.
  ModelFileDigests model_digests;
  ModelFiles model;
  if (task.lent_model != nullptr) {
    if (task.lent_model_digests == nullptr || task.lent_model->means.data.empty()) {
      throw TrainingError("shard " + std::to_string(task.shard) + ": internal: a lent model without digests, or taken already");
    }
    model = std::move(*task.lent_model);
    model_digests = *task.lent_model_digests;
    CheckModelParameters(model, inputs.model_dir);  // what a shard that loads it checks (a pass's model may be refused)
  } else {
    model = LoadCheckedModel(inputs.model_dir, model_digests);
  }
  // Only this shard's lines of the manifest are parsed; the file's SHA-256, recorded in the
  // artifact as the manifest fingerprint and compared by the coordinator with the manifest it
  // parsed whole, stands for the others. A shard run on the coordinator's thread takes its range of
  // the coordinator's whole manifest instead (lent_manifest).
  const auto shard_range = [&task](std::size_t n_utterances) {
    if (task.shard_count == 0 || task.shard >= task.shard_count || task.shard_count > n_utterances) {
      throw InputError("shard " + std::to_string(task.shard) + " of " + std::to_string(task.shard_count) +
                       " is not a valid shard of a manifest with " + std::to_string(n_utterances) + " utterances");
    }
    const ShardRange shard = ShardOf(task.shard, task.shard_count, n_utterances);
    return std::pair{shard.begin, shard.end};
  };
  std::optional<ManifestRange> range;
  const Manifest* manifest = task.lent_manifest;
  std::size_t begin = 0, end = 0, log_offset = 0;  // the shard's entries of *manifest; worker.log's numbering
  std::string manifest_fingerprint;
  if (manifest != nullptr) {
    std::tie(begin, end) = shard_range(manifest->size());
    manifest_fingerprint = manifest->Fingerprint();
  } else {
    range = Manifest::LoadRange(inputs.manifest_path, shard_range);
    manifest = &range->part;
    end = manifest->size();
    log_offset = range->first;
    manifest_fingerprint = range->file_fingerprint;
  }
  Dictionary dictionary = Dictionary::Load(inputs.dict, false);
  dictionary.Merge(Dictionary::Load(inputs.filler, true));

  std::ofstream log(dir / "worker.log");
  // (numbered in worker.log by their place in the whole manifest)
  CorpusPassResult result =
      RunCorpusPass(std::move(model), *manifest, begin, end, inputs.corpus_root, dictionary, inputs.options, &log, log_offset);
  log.close();

  // The tail runs on three threads: the code identity (hashing the shared libraries, and the binary
  // unless its stamp was accepted) and exact_counts (hashed as it is written) beside the bw count
  // files here. While this worker runs, the others keep the CPUs busy anyway; the last one to
  // finish has CPUs to itself, and its tail is what the coordinator waits for.
  // Each of the two threads measures its own CPU time for the telemetry.
  ThreadCpuSeconds identity_cpu, exact_counts_cpu;
  std::future<std::string> code_identity = std::async(std::launch::async, [&identity_cpu] {
    const ThreadCpuSeconds before = ThisThreadCpu();
    std::string identity = ProcessCodeIdentity();
    identity_cpu = CpuSince(before);
    return identity;
  });

  ShardArtifact artifact;
  artifact.pass = task.pass;
  artifact.shard = task.shard;
  artifact.shard_count = task.shard_count;
  artifact.fingerprints.model = ModelFingerprint(model_digests);
  artifact.fingerprints.config =
      ConfigFingerprint(inputs.options, inputs.reduction, DictionaryFingerprint(inputs.dict, inputs.filler));
  artifact.fingerprints.manifest = manifest_fingerprint;
  artifact.fingerprints.pass = PassFingerprint(task.pass, task.shard_count, artifact.fingerprints.model,
                                               artifact.fingerprints.config, artifact.fingerprints.manifest);
  for (std::size_t i = begin; i < end; ++i) artifact.assigned_ids.push_back(manifest->entries()[i].utt_id);
  for (const UtteranceOutcome& outcome : result.outcomes) {
    if (outcome.kind == OutcomeKind::kSkipped) {
      artifact.skipped.push_back({outcome.utt_id, outcome.reason});
    } else {
      artifact.processed_ids.push_back(outcome.utt_id);
      artifact.processed_frames.push_back(outcome.n_frames);
    }
    if (outcome.attempts > 1) artifact.retried_ids.push_back(outcome.utt_id);
  }
  artifact.total_frames = result.total_frames;
  char log_likelihood[40];
  std::snprintf(log_likelihood, sizeof(log_likelihood), "%.17g", result.total_log_likelihood.value());
  artifact.log_likelihood = log_likelihood;
  artifact.log_likelihood_exact = FixedToHex(result.total_log_likelihood.fixed());

  InjectFaults(task);
  // The lent model is freed (RunCorpusPass built its model from it and has returned).
  if (task.lent_model != nullptr && task.lent_model_freed) task.lent_model_freed();
  // A shard the coordinator fsyncs (task.coordinator_syncs): every file of the tail goes into this
  // scope, which ends without Sync(), after write-back of each has started.
  std::optional<DirectorySyncScope> left_to_coordinator;
  if (task.coordinator_syncs) left_to_coordinator.emplace(dir);
  {
    // Otherwise the payload files' directory is fsynced once, before artifact.json (which names
    // them) is written: a durable artifact.json implies durable payload files, as with one fsync
    // per file.
    std::optional<DirectorySyncScope> payload_sync;
    if (!task.coordinator_syncs) payload_sync.emplace(dir);
    // Each file hashed by the thread that wrote it, from the bytes written (the multipron sidecar,
    // small, read back), before any fsync: the disk writes them back meanwhile.
    const auto listed = [&dir](const std::string& name, std::string digest) {
      const fs::path path = dir / name;
      return PayloadFile{name, static_cast<std::uint64_t>(fs::file_size(path)), digest.empty() ? Sha256OfFile(path) : std::move(digest)};
    };
    std::future<PayloadFile> exact_counts = std::async(std::launch::async, [&] {
      const ThreadCpuSeconds before = ThisThreadCpu();
      std::string digest = result.accumulators.WriteExactCounts(dir.string());  // hashed as written
      PayloadFile file{"exact_counts", static_cast<std::uint64_t>(fs::file_size(dir / "exact_counts")), std::move(digest)};
      exact_counts_cpu = CpuSince(before);
      return file;
    });
    const std::vector<std::string> names = PayloadFileNames(inputs.options.multipron);
    artifact.payload.resize(names.size());  // in the order of `names`
    std::size_t exact_counts_at = names.size();
    std::vector<std::string> count_digests;  // (kBwCountFiles order)
    try {
      // bw's count files hashed as they are written; the multipron sidecar (small) read back.
      count_digests = result.accumulators.WriteCountFiles(dir.string());
      if (inputs.options.multipron) WriteFileAtomic(dir / kFallbackSidecarFile, EncodeFallbackSidecar(result.fallback_senones));
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i] == "exact_counts") {
          exact_counts_at = i;
          continue;
        }
        std::string digest;
        for (std::size_t f = 0; f < std::size(kBwCountFiles); ++f) {
          if (names[i] == kBwCountFiles[f]) digest = count_digests[f];
        }
        artifact.payload[i] = listed(names[i], std::move(digest));
      }
    } catch (...) {
      exact_counts.wait();  // no file of the scope is still being written when it ends
      throw;
    }
    artifact.payload.at(exact_counts_at) = exact_counts.get();
    if (task.lent_sums != nullptr) {
      // Which file each digest is of, in place: the coordinator links that one, no other.
      const auto written = [&dir](const char* name, std::string sha256) {
        struct stat status {};
        if (::stat((dir / name).c_str(), &status) != 0) {
          throw TrainingError((dir / name).string() + ": cannot stat the file just written: " + std::strerror(errno));
        }
        return LentShardSums::WrittenFile{std::move(sha256), static_cast<std::uint64_t>(status.st_dev),
                                          static_cast<std::uint64_t>(status.st_ino)};
      };
      task.lent_sums->exact_counts = written("exact_counts", artifact.payload.at(exact_counts_at).sha256);
      task.lent_sums->count_files.clear();
      for (std::size_t f = 0; f < std::size(kBwCountFiles); ++f) {
        task.lent_sums->count_files.push_back(written(kBwCountFiles[f], count_digests[f]));
      }
    }
    if (payload_sync) payload_sync->Sync();
  }
  artifact.payload_sha256 = PayloadDigest(artifact.payload);
  artifact.code_identity = code_identity.get();
  WriteFileAtomic(dir / "artifact.json", SerializeArtifact(artifact));

  const ThreadCpuSeconds main_cpu = CpuSince(cpu0);
  ShardTelemetry telemetry;
  telemetry.pid = static_cast<std::int64_t>(::getpid());
  telemetry.start = IsoTime(start);
  telemetry.end = IsoTime(std::chrono::system_clock::now());
  // The instruction-set level of the vector kernels: it changes speed, never bits (numerics/isa.h).
  telemetry.isa = std::string(numerics::IsaName(numerics::ActiveIsaLevel()));
  telemetry.wall_seconds = std::chrono::duration<double>(std::chrono::system_clock::now() - start).count();
  // This thread's CPU, that of the threads that read ahead and added for it (an inline shard's)
  // and of the tail's two threads.
  if (const ThreadCpuSeconds cpu = CpuSum(CpuSum(CpuSum(main_cpu, result.helper_cpu), identity_cpu), exact_counts_cpu); cpu.known()) {
    telemetry.user_cpu_seconds = cpu.user;
    telemetry.system_cpu_seconds = cpu.system;
  }
  char host[256] = {};
  telemetry.host = ::gethostname(host, sizeof(host) - 1) == 0 ? host : "unknown";
  // Under Slurm (the slurm launcher): which job, array task and node ran this shard (diagnostic).
  if (const char* job = std::getenv("SLURM_JOB_ID")) {
    auto env = [](const char* name) { const char* value = std::getenv(name); return std::string(value ? value : ""); };
    telemetry.slurm = SlurmTelemetry{job, env("SLURM_ARRAY_JOB_ID"), env("SLURM_ARRAY_TASK_ID"), env("SLURMD_NODENAME")};
  }
  WriteFileAtomic(dir / kShardTelemetryFile, SerializeShardTelemetry(telemetry));
  // Every file written: the sums go to the coordinator that runs this shard (not freed here), in
  // 16 bytes a value (a block some of whose values went to base, or were folded there, held both).
  if (task.lent_sums != nullptr) {
    result.accumulators.Compact();
    task.lent_sums->sums.emplace(std::move(result.accumulators));
  }
#if !defined(PSTRAIN_WORKER_RETURNS)
  if (task.end_process_when_written) {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::_Exit(0);
  }
#endif
}

}  // namespace pstrain
