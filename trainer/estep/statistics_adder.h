// StatisticsAdder: each succeeded utterance's statistics added to the pass's exact sums, and the
// utterance log lines written once the sums hold them. When the process has a CPU to spare (a
// 1-job pass), a large utterance's statistics are added on a thread of the adder's own while the
// caller goes on with the next utterance: reading it and its alpha pass, which does not touch the
// statistics (ForwardBackward::Run's before_statistics is where the caller waits for them back).
// The sums are integers, so when they are added changes no bit; the adds still happen in
// utterance order, each error is the one an add in the caller's thread would raise, at the same
// place in the log, and nothing is held twice (the thread reads the caller's one UtteranceStats).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "accumulators/exact_accumulators.h"
#include "common/thread_cpu.h"
#include "forward_backward/utterance_stats.h"

namespace pstrain {

class StatisticsAdder {
 public:
  // Adds into `sums` and writes lines to `log` (may be null); both must outlive the adder.
  // `background`: add the statistics of utterances with at least `thread_min_values` values
  // (UtteranceStats::MaxValues) on a thread of the adder's own (AccumulateOptions says when that
  // pays: thread_add_min_values). `before_thread_add`, if set, is called on that thread before each
  // add it makes: a test holds an add back with it, to see what waits for the add.
  StatisticsAdder(ExactAccumulators& sums, std::ostream* log, bool background, std::size_t thread_min_values,
                  std::function<void()> before_thread_add = {});
  // Joins the thread: an add in progress is finished first, its error dropped.
  ~StatisticsAdder();
  StatisticsAdder(const StatisticsAdder&) = delete;
  StatisticsAdder& operator=(const StatisticsAdder&) = delete;

  // Adds `stats` to the sums, after every earlier add (Wait first). With the thread, statistics of
  // at least thread_min_values values are added there and Add returns at once: the caller must not
  // write `stats` (nor destroy it) before the next Wait or Settle. Otherwise they are added here,
  // and a failure is thrown here.
  void Add(const UtteranceStats& stats);
  // An utterance's log line: written (with a newline, flushed) once every add handed over before
  // it is in the sums, so that the log ends where an add in the caller's thread would have ended it
  // (never, once an add has failed). A line waiting for an add goes out at the first call to Log,
  // Add, Wait, Settle or Finish after that add is done.
  void Log(const std::string& line);
  // Waits until nothing handed to Add is being added, and throws the first add's error.
  void Wait();
  // The same without throwing: the first add's error (null when every add succeeded). After one,
  // the lines logged after the failed add was handed over are dropped, and every later call (and
  // every Wait, Add and Finish) gives it again.
  std::exception_ptr Settle();
  // Wait, then stops and joins the thread: the CPU time it used (0 without one; unknown when it
  // cannot be measured), for a shard's telemetry.
  ThreadCpuSeconds Finish();

 private:
  void Run();
  void WriteLine(const std::string& line);
  // Settles if the thread is done with the add handed over; returns at once either way.
  void SettleIfDone();
  void SettleDone();  // (with the thread done: its failure taken, the waiting lines written or dropped)
  void Stop();

  ExactAccumulators& sums_;
  std::ostream* const log_;
  const std::size_t thread_min_values_;
  const std::function<void()> before_thread_add_;
  bool handed_ = false;                // (caller only) an add went to the thread since the last Settle
  std::vector<std::string> pending_;   // (caller only) lines waiting for that add
  std::exception_ptr caller_failure_;  // (caller only) the first add's error, once seen
  std::mutex mutex_;
  std::condition_variable work_;  // the thread waits for an add or stop_
  std::condition_variable done_;  // the caller waits for job_ to be done
  const UtteranceStats* job_ = nullptr;  // being added by the thread
  bool stop_ = false;
  bool caller_waiting_ = false;
  std::exception_ptr failure_;
  ThreadCpuSeconds thread_cpu_{0.0, 0.0};
  std::thread thread_;  // last: started once everything above is set
};

}  // namespace pstrain
