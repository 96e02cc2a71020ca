// FeatureFileCheck: CheckManifest first or when needed, and a completed pass standing for it.
#include "training/feature_file_check.h"

#include <utility>

#include "common/interrupt.h"

namespace pstrain {

FeatureFileCheck::FeatureFileCheck(const Manifest& manifest, std::filesystem::path corpus_root, When when,
                                   std::optional<bool> present)
    : manifest_(manifest), corpus_root_(std::move(corpus_root)) {
  if (when == When::kFirst) {
    CheckManifest(manifest_, corpus_root_);
    state_ = State::kPassed;
    return;
  }
  if (!present) present = FeatureFilesPresent(manifest_, corpus_root_);
  if (!*present) Require();  // throws: a file is missing or not regular
}

void FeatureFileCheck::CoveredByPass() {
  if (state_ == State::kPending) state_ = State::kPassed;
}

void FeatureFileCheck::Run() {
  try {
    CheckManifest(manifest_, corpus_root_, 0, /*stop_on_interrupt=*/true);
    state_ = State::kPassed;
  } catch (...) {
    error_ = std::current_exception();
    state_ = State::kFailed;
  }
}

void FeatureFileCheck::Require() {
  if (state_ == State::kPending) Run();
  if (state_ == State::kFailed) std::rethrow_exception(error_);
}

bool FeatureFileCheck::Failed() {
  if (state_ != State::kPending || InterruptSignal() != 0) return state_ == State::kFailed;
  Run();
  if (state_ == State::kFailed && InterruptSignal() != 0) {
    // Stopped by a signal part-way: not a verdict on the files, and the error it replaces stands.
    state_ = State::kPending;
    error_ = nullptr;
  }
  return state_ == State::kFailed;
}

}  // namespace pstrain
