// Provenance of a trained model (RUNDIR/model/provenance.json) and the training fingerprint.
//
// The training fingerprint hashes everything that can change the numbers: pstrain's version, the
// architecture, the identity (SHA-256) of the pstrain binary and of the shared libraries it has
// loaded, the configuration, the manifest, the input model, the requested and effective shard
// counts and the stop rule. The host name is recorded for diagnosis only and is not hashed.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pstrain {

struct BuildIdentity {
  std::string version;
  std::string architecture;
  std::string compiler;
  std::string binary_sha256;
  std::vector<std::pair<std::string, std::string>> libraries;  // file name, SHA-256 (sorted)
};

// Identity of the running process (reads /proc/self/exe and /proc/self/maps).
BuildIdentity CurrentBuildIdentity();

struct TrainingIdentity {
  BuildIdentity build;
  std::string config_fingerprint;
  std::string canonical_config;
  std::string manifest_fingerprint;
  std::string input_model_fingerprint;
  std::uint32_t requested_jobs = 1;
  std::uint32_t shard_count = 1;
  std::string reduction;
  std::string launcher;
  std::uint32_t min_passes = 0, max_passes = 0;
  double convergence = 0.0;
};

std::string TrainingFingerprint(const TrainingIdentity& identity);

// The host name (diagnostic only).
std::string HostName();

}  // namespace pstrain
