// The coordinator's check of every feature file against the manifest (manifest/manifest.h
// CheckManifest), and when it runs.
//
// A pass checks the corpus as it reads it: each feature file is hashed when it is read, the first
// that does not match the manifest stops the pass (estep/utterance_input.h PrepareUtterance), and
// a pass reads every utterance of the manifest. So a pass that completes has checked every file,
// and nothing is published before one has. What the separate check adds is a report of every bad
// file (a pass stops at the first one it meets), and a check when no pass reads the corpus. So it
// runs:
//  - first, on every core, before a Slurm job array is queued (When::kFirst);
//  - otherwise when needed (When::kWhenNeeded): when something fails before a pass has completed,
//    where its error, every bad file counted, is the one reported if it fails
//    (training/train_loop.cpp); and when no pass runs (the final model is up to date, or every pass
//    is resumed). Up front each file is only looked at (it exists and is a regular file), so a
//    missing corpus or a FIFO still fails before any pass starts; a file whose contents changed
//    stops the pass that reads it. Once a pass has completed the check has passed for this run: a
//    file changed during a later pass is reported by that pass (its first bad file, exit 2).
// Run first, the check took about 40 ms of a 0.87 s 2-job pass of the tied CD benchmark model, and
// beside a 1-job pass it took the CPU that pass's read-ahead thread uses (docs/performance.md,
// fourteenth round).
#pragma once

#include <exception>
#include <filesystem>
#include <optional>

#include "manifest/manifest.h"

namespace pstrain {

class FeatureFileCheck {
 public:
  enum class When { kFirst, kWhenNeeded };

  // kFirst: checks now (throws as CheckManifest does). kWhenNeeded: looks at each file now
  // (FeatureFilesPresent), or takes `present`, the answer of that look made before, and if a file
  // is missing or not a regular file, checks them all at once (and throws).
  FeatureFileCheck(const Manifest& manifest, std::filesystem::path corpus_root, When when,
                   std::optional<bool> present = std::nullopt);
  FeatureFileCheck(const FeatureFileCheck&) = delete;
  FeatureFileCheck& operator=(const FeatureFileCheck&) = delete;

  // A pass has completed: it read and checked every feature file.
  void CoveredByPass();
  // Returns once the check has passed or a pass has covered it, checking now if neither has (a
  // SIGINT/SIGTERM ends that check as a failure); throws its error, at every call, if it failed.
  void Require();
  // After another failure: whether the check fails, checking now if it has not run and no pass has
  // covered it. After a SIGINT/SIGTERM it is not run, and one that ends it part-way leaves it not
  // run: false, so the signal or the other failure is what the run reports. Never throws (Require
  // then throws the check's error).
  bool Failed();

 private:
  void Run();

  const Manifest& manifest_;
  const std::filesystem::path corpus_root_;
  enum class State { kPending, kPassed, kFailed } state_ = State::kPending;
  std::exception_ptr error_;
};

}  // namespace pstrain
