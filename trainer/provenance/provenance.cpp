// The training fingerprint and the provenance record of a trained model.
#include "provenance/provenance.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "common/sha256.h"

namespace pstrain {

namespace fs = std::filesystem;

bool IsSharedObjectPath(const std::string& path) {
  // A name before ".so", then nothing or a version that starts with a digit.
  static const std::regex kSharedObjectName(R"(.+\.so(\.[0-9][0-9.]*)?)");
  return std::regex_match(fs::path(path).filename().string(), kSharedObjectName);
}

BuildIdentity CurrentBuildIdentity() { return CurrentBuildIdentity({}, nullptr); }

BuildIdentity CurrentBuildIdentity(const std::vector<CodeFileStamp>& known, std::vector<CodeFileStamp>* stamps) {
  BuildIdentity id;
  id.version = PSTRAIN_VERSION;
#if defined(__x86_64__)
  id.architecture = "x86_64";
#elif defined(__aarch64__)
  id.architecture = "aarch64";
#else
  id.architecture = "unknown";
#endif
  id.compiler = __VERSION__;
  // The executable this process runs, even if its path has been replaced or removed since it
  // started (/proc/self/exe opens the running file, not whatever now has its name). Only its digest
  // may come from a stamp: while it runs nothing can open it for writing (ETXTBSY), so its bytes
  // cannot change under an unchanged stamp; a library's can (a write through a shared mapping to a
  // page already dirty changes no file time), so each library is always hashed.
  try {
    std::optional<CodeFileStamp> stamp;
    id.binary_sha256 = FileDigestWithStamp("/proc/self/exe", known, stamps ? &stamp : nullptr);
    if (stamp) stamps->push_back(std::move(*stamp));
  } catch (const std::exception&) {
    id.binary_sha256 = "unavailable";
  }
  // Shared libraries mapped into this process: their code can change the numbers (libm, libstdc++).
  std::set<std::string> paths;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    const std::size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    if (IsSharedObjectPath(path)) paths.insert(path);
  }
  for (const std::string& path : paths) {
    std::error_code exists_ec;
    if (!fs::is_regular_file(path, exists_ec)) continue;
    id.libraries.emplace_back(fs::path(path).filename().string(), Sha256OfFile(path));
  }
  std::sort(id.libraries.begin(), id.libraries.end());
  return id;
}

namespace {

struct ProcessIdentityState {
  std::mutex mutex;
  std::vector<CodeFileStamp> accepted;   // AcceptCodeFileStamps
  std::vector<CodeFileStamp> published;  // the stamps of the identity's own files
};

ProcessIdentityState& IdentityState() {
  static ProcessIdentityState state;
  return state;
}

}  // namespace

void AcceptCodeFileStamps(std::vector<CodeFileStamp> stamps) {
  ProcessIdentityState& state = IdentityState();
  const std::lock_guard<std::mutex> lock(state.mutex);
  state.accepted = std::move(stamps);
}

const BuildIdentity& ProcessBuildIdentity() {
  static const BuildIdentity identity = [] {
    ProcessIdentityState& state = IdentityState();
    std::vector<CodeFileStamp> accepted, published;
    {
      const std::lock_guard<std::mutex> lock(state.mutex);
      accepted = state.accepted;
    }
    BuildIdentity build = CurrentBuildIdentity(accepted, &published);
    const std::lock_guard<std::mutex> lock(state.mutex);
    state.published = std::move(published);
    return build;
  }();
  return identity;
}

std::vector<CodeFileStamp> ProcessCodeFileStamps() {
  ProcessBuildIdentity();
  ProcessIdentityState& state = IdentityState();
  const std::lock_guard<std::mutex> lock(state.mutex);
  return state.published;
}

std::string CodeIdentity(const BuildIdentity& build) {
  std::string lines = "version " + build.version + "\narchitecture " + build.architecture + "\ncompiler " + build.compiler +
                      "\nbinary " + build.binary_sha256 + "\n";
  for (const auto& [name, digest] : build.libraries) lines += "library " + name + " " + digest + "\n";
  return Sha256Hex(lines);
}

const std::string& ProcessCodeIdentity() {
  static const std::string identity = CodeIdentity(ProcessBuildIdentity());
  return identity;
}

std::string TrainingFingerprint(const TrainingIdentity& t) {
  std::ostringstream text;
  char convergence[40];
  std::snprintf(convergence, sizeof(convergence), "%.17g", t.convergence);
  text << "version=" << t.build.version << "\narchitecture=" << t.build.architecture << "\ncompiler=" << t.build.compiler
       << "\nbinary=" << t.build.binary_sha256 << "\n";
  for (const auto& [name, digest] : t.build.libraries) text << "library=" << name << " " << digest << "\n";
  text << "config=" << t.config_fingerprint << "\nmanifest=" << t.manifest_fingerprint << "\ninput_model=" << t.input_model_fingerprint
       << "\nrequested_jobs=" << t.requested_jobs << "\nshard_count=" << t.shard_count << "\nreduction=" << t.reduction
       << "\nmin_passes=" << t.min_passes << "\nmax_passes=" << t.max_passes << "\nconvergence=" << convergence << "\n";
  return Sha256Hex(text.str());
}

std::string HostName() {
  char buffer[256] = {0};
  if (::gethostname(buffer, sizeof(buffer) - 1) != 0) return "unknown";
  return buffer;
}

}  // namespace pstrain
