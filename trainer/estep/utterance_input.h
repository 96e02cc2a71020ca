// What forward-backward needs of one utterance, prepared from its manifest entry: the feature file
// read (a regular file), checked against the manifest's SHA-256, parsed and turned into features,
// and its sentence HMM (or pronunciation graph). An UtteranceReader hands them out one at a time
// in manifest order; it prepares them two at a time (their feature files hashed side by side), and
// when the process may run on two CPUs, on a second thread while the caller runs forward-backward
// on the current one. Preparing is a pure function of the entry and the read-only model,
// dictionary and options: each utterance gets the same input either way, and an error is raised by
// Take for the utterance it belongs to, never for another and never earlier.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "common/thread_cpu.h"
#include "estep/corpus_pass.h"
#include "features/features.h"
#include "formats/dictionary.h"
#include "formats/mdef.h"
#include "forward_backward/forward_backward.h"
#include "graph/sentence_hmm.h"
#include "manifest/manifest.h"
#include "model/acoustic_model.h"

namespace pstrain {

struct UtteranceInput {
  Features features;
  SentenceHmm hmm;
  std::vector<std::uint32_t> fallback_senones;    // multipron: the senones of CI fallbacks in the graph
  std::optional<AlignmentFailure> graph_failure;  // no HMM could be built: the utterance is skipped
};

// The shared, read-only inputs of every utterance of a pass (a reader keeps a copy; the objects
// referred to must outlive it).
struct UtteranceInputContext {
  const Manifest& manifest;
  std::filesystem::path corpus_root;
  const Dictionary& dictionary;
  const Mdef& mdef;
  const AcousticModel& model;
  const AccumulateOptions& options;
};

// Prepares entry `index`: throws FileError for a feature file that cannot be read, is not a regular
// file or does not have the manifest's SHA-256, InputError for one that is malformed; a transcript
// with no HMM (GraphError) is a graph_failure, not an exception.
UtteranceInput PrepareUtterance(const UtteranceInputContext& context, std::size_t index);

// Whether this process may run on at least two CPUs (its affinity mask), so that a reader thread
// does not take the only one.
bool TwoCpusAvailable();

class UtteranceReader {
 public:
  // Utterances [begin, end) of the context's manifest; `background`: prepare up to kAhead of them
  // ahead, on a thread of its own.
  UtteranceReader(const UtteranceInputContext& context, std::size_t begin, std::size_t end, bool background);
  // Stops the thread (it finishes the utterances it is preparing, at most two) and joins it.
  ~UtteranceReader() { Finish(); }
  UtteranceReader(const UtteranceReader&) = delete;
  UtteranceReader& operator=(const UtteranceReader&) = delete;

  // The input of utterance `index`, which must be the next one in order (begin, begin + 1, ...);
  // throws what preparing it threw.
  UtteranceInput Take(std::size_t index);
  // Stops and joins the thread (as the destructor does); then the CPU time it used (0 without one;
  // unknown when it cannot be measured), for a shard's telemetry.
  ThreadCpuSeconds Finish();

  // At most this many utterances prepared and not yet taken (a few hundred KiB of features). A full
  // reader sleeps until half of them are taken.
  static constexpr std::size_t kAhead = 8;
  static_assert(kAhead >= 2);

 private:
  struct Prepared {
    std::optional<UtteranceInput> input;
    std::exception_ptr error;
  };
  void Run();
  // Utterances index .. index + count - 1 (count 1 or 2) into out[0 ..], each as PrepareUtterance
  // prepares it or with the error it throws; both feature files are read before either is hashed,
  // and two are hashed side by side (common/sha256_pair.h: about half the CPU time of one after the
  // other, docs/performance.md, thirty-fifth round).
  static void PrepareUtterances(const UtteranceInputContext& context, std::size_t index, std::size_t count, Prepared* out);

  const UtteranceInputContext context_;
  const std::size_t end_;
  std::size_t next_take_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Prepared> ready_;  // utterances next_take_, next_take_ + 1, ...
  bool stop_ = false;
  bool reader_waiting_ = false;  // the thread waits until next_take_ reaches reader_resume_at_
  std::size_t reader_resume_at_ = 0;
  // The thread failed outside any one preparation (it could not store a result): Take raises it.
  std::exception_ptr reader_failure_;
  bool reader_done_ = false;
  ThreadCpuSeconds reader_cpu_{0.0, 0.0};
  bool taker_waiting_ = false;   // Take waits for the thread
  std::thread thread_;  // last: started once everything above is set
};

}  // namespace pstrain
