// Validating a pass's shard artifacts before anything is reduced.
#include <new>
#include <stdexcept>

#include "shards/artifact_validator.h"

#include <algorithm>
#include <iterator>
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <map>
#include <set>

#include "accumulators/exact_accumulators.h"
#include "accumulators/exact_sum.h"
#include "common/file_io.h"
#include "common/parallel_for.h"
#include "common/sha256.h"
#include "formats/param_files.h"
#include "shards/fallback_sidecar.h"
#include "shards/partition.h"

namespace pstrain {

namespace fs = std::filesystem;

ArtifactRejected::ArtifactRejected(std::uint32_t shard, std::string file, std::string check, const std::string& detail)
    : TrainingError("shard " + std::to_string(shard) + " rejected by check \"" + check + "\" (" + file + "): " + detail),
      shard_(shard),
      file_(std::move(file)),
      check_(std::move(check)) {}

namespace {

// A path inside `dir` that must be a regular file, not a symlink, and not escape the directory.
fs::path RegularFileInside(const fs::path& dir, const std::string& name, std::uint32_t shard) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
    throw ArtifactRejected(shard, (dir / "artifact.json").string(), "path-escape",
                           "payload file name \"" + name + "\" is not a plain file name inside the shard directory");
  }
  const fs::path path = dir / name;
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (ec || !fs::exists(status)) throw ArtifactRejected(shard, path.string(), "missing", "file does not exist");
  if (fs::is_symlink(status)) throw ArtifactRejected(shard, path.string(), "symlink", "is a symbolic link");
  if (!fs::is_regular_file(status)) throw ArtifactRejected(shard, path.string(), "not-a-file", "is not a regular file");
  return path;
}

// The first `n` bytes of `path` (fewer if the file is shorter).
std::vector<std::uint8_t> ReadFileHead(const fs::path& path, std::size_t n) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path.string(), "cannot open for reading");
  std::vector<std::uint8_t> head(n);
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(n));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head;
}

// The payload file's format. exact_counts by its header and size alone: decoding it checks
// nothing more (its values are any 128-bit integers), so its sums are not read here. bw's count
// files are checked as their decoders check them, every word (the checksum), read forward in pieces
// without keeping their values, each byte given to `on_bytes` when set (to hash the file in the same
// read).
void CheckPayloadHeader(const fs::path& path, const std::string& name, std::uint32_t shard, const PassExpectation& expected,
                        const ByteSink& on_bytes = {}) {
  if (name == kFallbackSidecarFile) {
    std::vector<std::uint8_t> flags;
    if (auto problem = DecodeFallbackSidecar(ReadFileText(path), expected.n_tied_states, flags)) {
      throw ArtifactRejected(shard, path.string(), problem->check, problem->detail);
    }
    return;
  }
  try {
    if (name == "gauden_counts") {
      CheckGaudenCountsFile(path, on_bytes);
    } else if (name == "exact_counts") {
      const std::vector<std::uint8_t> head = ReadFileHead(path, ExactAccumulators::ExactCountsHeaderSize());
      bool pass2var = false;
      const AccumulatorShape shape = ExactAccumulators::CheckExactCounts(head.data(), head.size(), fs::file_size(path), path.string(), pass2var);
      if (expected.statistics_shape && !(shape == *expected.statistics_shape)) {
        const auto text = [](const AccumulatorShape& s) {
          return std::to_string(s.n_senones) + " senones x " + std::to_string(s.n_density) + " densities x " + std::to_string(s.veclen) +
                 " dimensions, " + std::to_string(s.n_tmat) + " matrices of " + std::to_string(s.n_emit_state) + " states";
        };
        throw ArtifactRejected(shard, path.string(), "payload-format",
                               "statistics of " + text(shape) + "; the pass's model has " + text(*expected.statistics_shape));
      }
      if (expected.pass2var && pass2var != *expected.pass2var) {
        throw ArtifactRejected(shard, path.string(), "payload-format",
                               std::string(pass2var ? "2-pass" : "1-pass") + " variance statistics; the pass computes " +
                                   (*expected.pass2var ? "2-pass" : "1-pass") + " ones");
      }
    } else {
      CheckArray3DFile(path, on_bytes);
    }
  } catch (const InputError& error) {
    throw ArtifactRejected(shard, path.string(), "payload-format", error.what());
  } catch (const std::bad_alloc&) {
    throw ArtifactRejected(shard, path.string(), "payload-format", "header dimensions too large to allocate");
  } catch (const std::length_error&) {
    throw ArtifactRejected(shard, path.string(), "payload-format", "header dimensions too large to allocate");
  }
}

}  // namespace

void RequirePayloadDigest(std::uint32_t shard, const std::string& path, const std::string& listed, const std::string& actual) {
  if (actual != listed) throw ArtifactRejected(shard, path, "payload-sha256", "SHA-256 does not match the artifact (modified or swapped payload)");
}

ShardArtifact ValidateShard(const fs::path& pass_dir, std::uint32_t shard, const PassExpectation& expected, PayloadDigests digests) {
  const fs::path dir = pass_dir / ShardDirName(shard);
  std::error_code ec;
  const fs::file_status dir_status = fs::symlink_status(dir, ec);
  if (ec || !fs::exists(dir_status)) throw ArtifactRejected(shard, dir.string(), "missing", "shard directory does not exist");
  if (fs::is_symlink(dir_status) || !fs::is_directory(dir_status)) {
    throw ArtifactRejected(shard, dir.string(), "symlink", "shard directory is a symbolic link or not a directory");
  }
  const fs::path json_path = RegularFileInside(dir, "artifact.json", shard);
  if (fs::file_size(json_path) > kMaxArtifactJsonBytes) {
    throw ArtifactRejected(shard, json_path.string(), "oversized", "artifact.json exceeds " + std::to_string(kMaxArtifactJsonBytes) + " bytes");
  }
  ShardArtifact a;
  try {
    a = ParseArtifact(ReadFileText(json_path), json_path.string());
  } catch (const InputError& error) {
    throw ArtifactRejected(shard, json_path.string(), "malformed", error.what());
  }
  const std::string json_file = json_path.string();
  auto reject = [&](const char* check, const std::string& detail) { throw ArtifactRejected(shard, json_file, check, detail); };
  if (a.pass != expected.pass) reject("stale-pass", "artifact is for pass " + std::to_string(a.pass) + ", expected " + std::to_string(expected.pass));
  if (a.shard != shard) reject("shard-id", "artifact says shard " + std::to_string(a.shard) + " but lies in " + ShardDirName(shard));
  if (a.shard_count != expected.shard_count) reject("shard-count", "artifact says " + std::to_string(a.shard_count) + " shards, expected " + std::to_string(expected.shard_count));
  if (a.fingerprints.model != expected.fingerprints.model) reject("model-fingerprint", "artifact was computed from another input model");
  if (a.fingerprints.config != expected.fingerprints.config) reject("config-fingerprint", "artifact was computed with another configuration");
  if (a.fingerprints.manifest != expected.fingerprints.manifest) reject("manifest-fingerprint", "artifact was computed from another manifest");
  if (a.fingerprints.pass != expected.fingerprints.pass) reject("pass-fingerprint", "artifact belongs to another pass");
  if (a.code_identity != expected.code_identity) {
    reject("code-identity", "artifact was computed by another build of pstrain (a different binary or shared library): code_identity " +
                                a.code_identity + ", expected " + expected.code_identity);
  }

  // Coverage: exactly this shard's range of the manifest, in order.
  const ShardRange range = ShardOf(shard, expected.shard_count, expected.manifest_ids.size());
  const std::vector<std::string> want(expected.manifest_ids.begin() + static_cast<long>(range.begin),
                                      expected.manifest_ids.begin() + static_cast<long>(range.end));
  if (a.assigned_ids != want) reject("coverage", "assigned_ids are not exactly manifest entries [" + std::to_string(range.begin) + ", " + std::to_string(range.end) + ")");
  // Outcomes: processed and skipped partition the assigned ids (in assignment order).
  std::set<std::string> assigned(a.assigned_ids.begin(), a.assigned_ids.end());
  std::set<std::string> seen;
  std::size_t p = 0, s = 0;
  for (const std::string& id : a.assigned_ids) {
    const bool is_processed = p < a.processed_ids.size() && a.processed_ids[p] == id;
    const bool is_skipped = s < a.skipped.size() && a.skipped[s].id == id;
    if (is_processed == is_skipped) reject("outcomes", "utterance " + id + " is " + (is_processed ? "both processed and skipped" : "neither processed nor skipped (or out of order)"));
    if (is_processed) ++p;
    else ++s;
  }
  if (p != a.processed_ids.size() || s != a.skipped.size()) reject("outcomes", "processed or skipped ids that were not assigned (or duplicates)");
  std::set<std::string> retried;
  for (const std::string& id : a.retried_ids) {
    if (!assigned.count(id)) reject("outcomes", "retried utterance " + id + " was not assigned to this shard");
    if (!retried.insert(id).second) reject("outcomes", "retried utterance " + id + " is listed twice");
  }
  if (a.processed_frames.size() != a.processed_ids.size()) reject("frames", "processed_frames does not have one entry per processed utterance");
  std::uint64_t frames = 0;
  for (std::uint32_t f : a.processed_frames) frames += f;
  if (frames != a.total_frames) reject("frames", "total_frames " + std::to_string(a.total_frames) + " is not the sum of the processed utterances' frames (" + std::to_string(frames) + ")");
  // The exact hex value is authoritative; the decimal string is for people and must agree.
  FixedPoint fixed = 0;
  bool log_likelihood_ok = FixedFromHex(a.log_likelihood_exact, fixed);
  if (log_likelihood_ok) {
    char decimal[40];
    std::snprintf(decimal, sizeof(decimal), "%.17g", FromFixed(fixed));
    log_likelihood_ok = a.log_likelihood == decimal;
  }
  if (!log_likelihood_ok) reject("log-likelihood", "log_likelihood_exact is malformed or does not match log_likelihood");

  // Payload.
  const std::vector<std::string> names = PayloadFileNames(expected.multipron);
  if (a.payload.size() != names.size()) {
    std::string list;
    for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
    reject("payload-names", "payload must list exactly the files " + list);
  }
  // The payload files are hashed and their formats checked first, on a few threads (exact_counts,
  // the largest, beside the others). Each of bw's count files is read once, forward in pieces,
  // hashed and checked in the same read (its format check reads every word). The checks below then
  // run in order as before, each format check's outcome reported where it always was (after the
  // file's size and digest); a file not taken here (another name than expected, not a regular file,
  // another size, unreadable) is hashed and checked there if it gets that far, where its error is
  // reported.
  struct Prechecked {
    std::string digest;
    bool format_checked = false;
    std::exception_ptr format_error;
  };
  std::vector<Prechecked> prechecked(a.payload.size());
  const auto is_count_file = [](const std::string& name) {
    return std::find(std::begin(kBwCountFiles), std::end(kBwCountFiles), name) != std::end(kBwCountFiles);
  };
  // The digests the reducer checks on the bytes it adds (PayloadDigests): exact_counts' in exact
  // mode, bw's count files' in float32 mode; both against the lent ones of a shard run in this process.
  const auto digest_left_to_reducer = [&](const std::string& name) {
    if (digests == PayloadDigests::kExactCountsByTheReducer) return name == "exact_counts";
    if (digests == PayloadDigests::kCountFilesByTheReducer) return is_count_file(name);
    if (digests == PayloadDigests::kLentByThisProcess) return name == "exact_counts" || is_count_file(name);
    return false;
  };
  ParallelFor(a.payload.size(), CheckParallelism(), [&](std::size_t i) {
    if (a.payload[i].name != names[i]) return;
    std::error_code status_ec;
    const fs::path path = dir / names[i];
    if (!fs::is_regular_file(fs::symlink_status(path, status_ec)) || status_ec) return;
    if (fs::file_size(path, status_ec) != a.payload[i].size || status_ec) return;  // refused below without hashing it
    const bool hash = !digest_left_to_reducer(names[i]);
    const bool hash_while_checking = hash && is_count_file(names[i]);
    Sha256Stream hashing;
    std::uint64_t hashed = 0;
    ByteSink on_bytes;
    if (hash_while_checking) {
      on_bytes = [&](const void* data, std::size_t size) {
        hashing.Add(data, size);
        hashed += size;
      };
    } else if (hash) {
      try {
        prechecked[i].digest = Sha256OfFile(path);
      } catch (const std::exception&) {
        return;  // left empty: hashed again below, where its error is reported
      }
    }
    try {
      CheckPayloadHeader(path, names[i], shard, expected, on_bytes);
    } catch (const ArtifactRejected&) {
      prechecked[i].format_error = std::current_exception();
    } catch (const std::exception&) {
      return;  // not an outcome of the file's format (e.g. a read error): checked again below
    }
    if (hash_while_checking) {
      // Not read whole (it changed, a read failed, or an empty file could not be opened): checked below.
      if (hashed != a.payload[i].size || hashed == 0) return;
      prechecked[i].digest = hashing.HexDigest();
    }
    prechecked[i].format_checked = true;
  });
  for (std::size_t i = 0; i < a.payload.size(); ++i) {
    const PayloadFile& file = a.payload[i];
    const fs::path path = RegularFileInside(dir, file.name, shard);
    if (file.name != names[i]) reject("payload-names", "payload entry " + std::to_string(i) + " is \"" + file.name + "\", expected \"" + names[i] + "\"");
    const std::uint64_t size = fs::file_size(path);
    if (size != file.size) throw ArtifactRejected(shard, path.string(), "payload-size", "size " + std::to_string(size) + " bytes, artifact records " + std::to_string(file.size));
    const Prechecked& pre = prechecked[i];
    if (!digest_left_to_reducer(file.name)) RequirePayloadDigest(shard, path.string(), file.sha256, pre.digest.empty() ? Sha256OfFile(path) : pre.digest);
    if (!pre.format_checked) {
      CheckPayloadHeader(path, file.name, shard, expected);
    } else if (pre.format_error) {
      std::rethrow_exception(pre.format_error);
    }
  }
  if (PayloadDigest(a.payload) != a.payload_sha256) reject("payload-digest", "payload_sha256 does not cover the listed payload files");
  return a;
}

std::vector<ShardArtifact> ValidatePass(const fs::path& pass_dir, const PassExpectation& expected) {
  if (expected.shard_count == 0) throw TrainingError("pass " + std::to_string(expected.pass) + ": no shards to validate");
  std::vector<ShardArtifact> artifacts(expected.shard_count);
  for (std::uint32_t shard = 0; shard < expected.shard_count; ++shard) artifacts[shard] = ValidateShard(pass_dir, shard, expected);
  return artifacts;
}

}  // namespace pstrain
