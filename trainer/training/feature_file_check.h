// The coordinator's check of every feature file against the manifest (manifest/manifest.h
// CheckManifest), run before anything else, or beside the first pass when that pass runs inline
// (one local job: one core busy, the check takes another).
//
// Nothing the check guards is lost by starting the pass at once: the pass hashes each feature file
// again as it reads it, and nothing is published before the check has passed (the pass waits for
// it before re-estimating). Its error wins over any later one (training/train_loop.cpp), so a
// changed corpus is reported as the check reports it (every bad file counted, exit 2) whichever
// fails first, and a failed check stops the running pass (common/interrupt.h RequestStop).
// Beside two local workers on two cores the check cost them more than it saved (a ci_g1 pass,
// 11 alternating runs: 363 -> 374 ms median; one job: 621 -> 588 ms), so with several workers, and
// with Slurm (before a job array is queued), it runs first.
#pragma once

#include <exception>
#include <filesystem>
#include <future>

#include "manifest/manifest.h"

namespace pstrain {

class FeatureFileCheck {
 public:
  // Checks `manifest`'s feature files under `corpus_root`: now, on this thread's and a few others
  // (background = false; throws as CheckManifest does), or on one background thread.
  FeatureFileCheck(const Manifest& manifest, const std::filesystem::path& corpus_root, bool background);
  // Waits for a background check (its error, if any, is dropped: call Wait first to see it).
  ~FeatureFileCheck();
  FeatureFileCheck(const FeatureFileCheck&) = delete;
  FeatureFileCheck& operator=(const FeatureFileCheck&) = delete;

  // Returns once the check has passed; throws its error (at every call) if it failed.
  void Wait();
  // Waits for the check; whether it failed (never throws).
  bool Failed();

 private:
  std::future<void> running_;
  bool finished_ = false;
  std::exception_ptr error_;
};

}  // namespace pstrain
