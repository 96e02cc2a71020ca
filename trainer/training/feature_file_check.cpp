// FeatureFileCheck: CheckManifest now or on a background thread, and its stop request on failure.
#include "training/feature_file_check.h"

#include <chrono>

#include "common/interrupt.h"

namespace pstrain {

FeatureFileCheck::FeatureFileCheck(const Manifest& manifest, const std::filesystem::path& corpus_root, bool background) {
  if (!background) {
    CheckManifest(manifest, corpus_root);
    finished_ = true;
    return;
  }
  // One thread: the workers of the pass it runs beside have the other cores. If no thread can be
  // made, the check runs (deferred) in Wait.
  running_ = std::async(std::launch::async | std::launch::deferred, [&manifest, corpus_root] {
    try {
      CheckManifest(manifest, corpus_root, 1, /*stop_on_interrupt=*/true);
    } catch (...) {
      RequestStop("stopped: the feature-file check failed");
      throw;
    }
  });
}

FeatureFileCheck::~FeatureFileCheck() {
  // (A deferred check never waited for is not run.)
  if (running_.valid() && running_.wait_for(std::chrono::seconds(0)) != std::future_status::deferred) running_.wait();
}

bool FeatureFileCheck::Failed() {
  if (!finished_) {
    finished_ = true;
    try {
      running_.get();
    } catch (...) {
      error_ = std::current_exception();
    }
  }
  return error_ != nullptr;
}

void FeatureFileCheck::Wait() {
  if (Failed()) std::rethrow_exception(error_);
}

}  // namespace pstrain
