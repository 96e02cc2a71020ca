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

#include "provenance/code_file_stamps.h"

namespace pstrain {

struct BuildIdentity {
  std::string version;
  std::string architecture;
  std::string compiler;
  std::string binary_sha256;
  std::vector<std::pair<std::string, std::string>> libraries;  // file name, SHA-256 (sorted)
};

// Identity of the running process (hashes the running executable through /proc/self/exe, and the
// shared libraries listed in /proc/self/maps), computed anew on every call.
BuildIdentity CurrentBuildIdentity();
// The same, where the binary, if its stat stamp is one of `known`, takes that stamp's digest unread
// (provenance/code_file_stamps.h; libraries are always hashed); with `stamps`, the binary's stamp is
// appended when it may be handed on (unchanged while hashed, not written in the last two seconds,
// on a local file system).
BuildIdentity CurrentBuildIdentity(const std::vector<CodeFileStamp>& known, std::vector<CodeFileStamp>* stamps);

// Whether a path mapped into the process (/proc/self/maps) is a shared object the identity lists:
// its file name has ".so" as a whole suffix or followed by a version ("libc.so.6",
// "libboost_json.so.1.81.0"), not merely somewhere in the path ("/opt/x.sources/pstrain").
bool IsSharedObjectPath(const std::string& path);

// CurrentBuildIdentity() computed on the first call and cached for the life of the process (hashing
// the binary and its libraries costs milliseconds; a coordinator needs it every pass). With the
// stamps given to AcceptCodeFileStamps before that first call. Thread-safe.
const BuildIdentity& ProcessBuildIdentity();
// Stamps of files this process's identity may skip hashing (its binary's): a worker is given its
// coordinator's. Only effective before ProcessBuildIdentity() is first called.
void AcceptCodeFileStamps(std::vector<CodeFileStamp> stamps);
// The stamps of the files ProcessBuildIdentity() hashed (computing it if need be), to hand to workers.
std::vector<CodeFileStamp> ProcessCodeFileStamps();

// The code identity of a build: SHA-256 (hex) of the canonical lines
//   version V\narchitecture A\ncompiler C\nbinary SHA256\n
// then `library NAME SHA256\n` for each library in `build.libraries` order (sorted). Recorded in
// every shard artifact and pass.json (docs/contract.md) and checked by the "code-identity" rule.
std::string CodeIdentity(const BuildIdentity& build);

// CodeIdentity(ProcessBuildIdentity()), cached: the identity of the code this process runs.
const std::string& ProcessCodeIdentity();

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
