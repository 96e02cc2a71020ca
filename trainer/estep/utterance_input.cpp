// PrepareUtterance and the UtteranceReader that runs it ahead of the corpus pass.
#include "estep/utterance_input.h"

#include <sched.h>

#include <algorithm>
#include <array>
#include <string>
#include <system_error>
#include <utility>

#include "common/error.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "common/sha256_pair.h"
#include "common/thread_cpu.h"
#include "formats/mfc_file.h"
#include "graph/pronunciation_graph.h"

namespace pstrain {

namespace {

// The feature file of entry `index` (ResolveFeaturePath), resolved once for its read, check and
// parse. It is read whole with ReadRegularFileBytes: a regular file only (a FIFO would block the
// open; it may have replaced the file after the coordinator looked at it,
// training/feature_file_check.h).
std::filesystem::path FeaturePath(const UtteranceInputContext& context, std::size_t index) {
  return ResolveFeaturePath(context.manifest.entries()[index], context.corpus_root);
}

// The feature file's digest checked against the manifest's. This hash is the pass's check of the
// corpus: a pass that completes has checked every file it trained on.
void CheckFeatureDigest(const UtteranceInputContext& context, std::size_t index, const std::filesystem::path& feature_path,
                        const std::string& digest) {
  const ManifestEntry& entry = context.manifest.entries()[index];
  if (digest != entry.feature_sha256) {
    throw FileError(feature_path.string(),
                    "utterance " + entry.utt_id + ": SHA-256 of the feature file does not match the manifest (file changed since import)");
  }
}

// The rest of PrepareUtterance, once the feature file's bytes are checked.
UtteranceInput FromCheckedBytes(const UtteranceInputContext& context, std::size_t index, const std::filesystem::path& path,
                                const std::vector<std::uint8_t>& bytes) {
  const ManifestEntry& entry = context.manifest.entries()[index];
  const AccumulateOptions& options = context.options;
  const std::string feature_path = path.string();
  UtteranceInput input;
  input.features = ComputeFeatures(ParseMfc(bytes, feature_path, options.features.ceplen), options.features, feature_path);
  try {
    if (options.multipron) {
      PronunciationGraph graph = BuildPronunciationGraph(entry.words, context.dictionary, context.mdef, context.model);
      input.hmm = std::move(graph.hmm);
      input.fallback_senones = std::move(graph.fallback_senones);
    } else {
      input.hmm = BuildSentenceHmm(entry.words, context.dictionary, context.mdef, context.model);
    }
  } catch (const GraphError& error) {
    input.graph_failure = AlignmentFailure{error.reason, error.message, false};
  }
  return input;
}

}  // namespace

UtteranceInput PrepareUtterance(const UtteranceInputContext& context, std::size_t index) {
  const std::filesystem::path path = FeaturePath(context, index);
  const std::vector<std::uint8_t> bytes = ReadRegularFileBytes(path);
  CheckFeatureDigest(context, index, path, Sha256Hex(bytes.data(), bytes.size()));
  return FromCheckedBytes(context, index, path, bytes);
}

void UtteranceReader::PrepareUtterances(const UtteranceInputContext& context, std::size_t index, std::size_t count, Prepared* out) {
  std::filesystem::path paths[2];
  std::vector<std::uint8_t> bytes[2];
  bool read[2] = {false, false};
  for (std::size_t i = 0; i < count; ++i) {
    try {
      paths[i] = FeaturePath(context, index + i);
      bytes[i] = ReadRegularFileBytes(paths[i]);
      read[i] = true;
    } catch (...) {
      out[i].error = std::current_exception();
    }
  }
  std::string digests[2];
  if (count == 2 && read[0] && read[1]) {
    std::array<std::string, 2> pair = Sha256HexPair(bytes[0], bytes[1]);
    digests[0] = std::move(pair[0]);
    digests[1] = std::move(pair[1]);
  } else {
    for (std::size_t i = 0; i < count; ++i) {
      if (read[i]) digests[i] = Sha256Hex(bytes[i].data(), bytes[i].size());
    }
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (!read[i]) continue;
    try {
      CheckFeatureDigest(context, index + i, paths[i], digests[i]);
      out[i].input = FromCheckedBytes(context, index + i, paths[i], bytes[i]);
    } catch (...) {
      out[i].error = std::current_exception();
    }
    std::vector<std::uint8_t>().swap(bytes[i]);
  }
}

bool TwoCpusAvailable() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) != 0) return false;
  return CPU_COUNT(&set) >= 2;
}

UtteranceReader::UtteranceReader(const UtteranceInputContext& context, std::size_t begin, std::size_t end, bool background)
    : context_(context), end_(end), next_take_(begin) {
  if (!background || end - begin < 2) return;
  try {
    thread_ = std::thread([this] { Run(); });
  } catch (const std::system_error&) {
    // No thread to be had: the utterances are prepared as they are taken, as without one.
  }
}

ThreadCpuSeconds UtteranceReader::Finish() {
  if (thread_.joinable()) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  return reader_cpu_;
}

// Prepares utterances in order, at most kAhead beyond the one the caller will take next. A full
// reader waits until the caller has taken half of them, and each side wakes the other only when it
// is waiting: a wake-up for every utterance cost more CPU time than the reading it overlapped
// (about 2,300 context switches and 70 ms more CPU in a 1-job ci_g1 pass of 2,000 utterances).
void UtteranceReader::Run() {
  try {
    std::size_t index;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      index = next_take_;
    }
    while (index < end_) {
      const std::size_t count = std::min<std::size_t>(2, end_ - index);
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!stop_ && index + count > next_take_ + kAhead) {
          reader_resume_at_ = index - kAhead / 2;  // next_take_ once half of the kAhead are taken
          reader_waiting_ = true;
          changed_.wait(lock, [&] { return stop_ || next_take_ >= reader_resume_at_; });
          reader_waiting_ = false;
        }
        if (stop_) break;
      }
      Prepared prepared[2];
      PrepareUtterances(context_, index, count, prepared);
      bool wake;
      {
        const std::lock_guard<std::mutex> lock(mutex_);
        for (std::size_t i = 0; i < count; ++i) ready_.push_back(std::move(prepared[i]));
        wake = taker_waiting_;
      }
      if (wake) changed_.notify_all();
      index += count;
    }
  } catch (...) {
    // (Storing a result failed: out of memory.) Take raises it instead of waiting forever.
    const std::lock_guard<std::mutex> lock(mutex_);
    reader_failure_ = std::current_exception();
  }
  const ThreadCpuSeconds cpu = ThisThreadCpu();
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    reader_cpu_ = cpu;
    reader_done_ = true;
  }
  changed_.notify_all();
}

UtteranceInput UtteranceReader::Take(std::size_t index) {
  if (index != next_take_ || index >= end_) {
    throw TrainingError("utterance reader: utterance " + std::to_string(index) + " taken out of order");
  }
  Prepared prepared;
  if (!thread_.joinable()) {
    if (ready_.empty()) {
      const std::size_t count = std::min<std::size_t>(2, end_ - index);
      Prepared two[2];
      PrepareUtterances(context_, index, count, two);
      for (std::size_t i = 0; i < count; ++i) ready_.push_back(std::move(two[i]));
    }
    prepared = std::move(ready_.front());
    ready_.pop_front();
    ++next_take_;
    if (prepared.error) std::rethrow_exception(prepared.error);
    return std::move(*prepared.input);
  }
  bool wake;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (ready_.empty()) {
      taker_waiting_ = true;
      changed_.wait(lock, [&] { return !ready_.empty() || reader_done_; });
      taker_waiting_ = false;
      if (ready_.empty()) {
        if (reader_failure_) std::rethrow_exception(reader_failure_);
        throw TrainingError("utterance reader: the reading thread ended before utterance " + std::to_string(index));
      }
    }
    prepared = std::move(ready_.front());
    ready_.pop_front();
    ++next_take_;
    wake = reader_waiting_ && next_take_ == reader_resume_at_;
  }
  if (wake) changed_.notify_all();
  if (prepared.error) std::rethrow_exception(prepared.error);
  return std::move(*prepared.input);
}

}  // namespace pstrain
