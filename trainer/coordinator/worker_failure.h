// How a worker's bad-input failure travels back to the coordinator (issue 13).
//
// A `pstrain worker` that fails on bad input (an InputError: a truncated .mfc, a NaN in a feature
// file, ...) exits with status 2 and writes SHARD_DIR/failure.json:
//
//   {"format":"pstrain-worker-failure-1","kind":"input-error","message":"..."}
//
// The launchers (local processes, Slurm) read it when a worker exited with status 2 and fail the
// pass with an InputError carrying that message, so bad input gives exit status 2 and the message
// the inline (--jobs 1) run gives, whatever the job count and launcher. The file is not part of
// the shard artifact: never listed in its payload, never validated; a shard directory holding it
// belongs to a failed pass and is never reduced. The worker removes a stale one before it starts.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace pstrain {

inline constexpr const char* kWorkerFailureFile = "failure.json";

// Writes SHARD_DIR/failure.json for an input error with `message`. Never throws (the worker's own
// error must still be reported): a file that cannot be written leaves the old behaviour.
void WriteWorkerInputError(const std::filesystem::path& shard_dir, const std::string& message) noexcept;

// Removes SHARD_DIR/failure.json if present (a stale report of an earlier attempt).
void ClearWorkerFailure(const std::filesystem::path& shard_dir);

// The message of the input error a worker recorded in SHARD_DIR/failure.json, or nothing when
// there is no such file or it is not a well-formed report (at most 64 KiB).
std::optional<std::string> ReadWorkerInputError(const std::filesystem::path& shard_dir);

}  // namespace pstrain
