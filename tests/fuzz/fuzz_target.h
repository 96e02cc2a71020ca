// What every fuzz target shares: the input as text or bytes, a scratch file for parsers that only
// read paths, and the rule that a parser rejects bad input in one way only: pstrain::InputError for
// the trainer's parsers, pstrain::audit::AuditError for the auditor's (audit_fuzz_target.h).
//
// Each tests/fuzz/<name>_fuzz.cpp defines LLVMFuzzerTestOneInput. scripts/fuzz.sh links it with
// libFuzzer (clang, ASan+UBSan); the default build links it with replay_main.cpp, which runs the
// checked-in corpus and crash inputs through it (docs/fuzzing.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/error.h"

namespace pstrain::fuzz {

inline std::string Text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

inline std::vector<std::uint8_t> Bytes(const std::uint8_t* data, std::size_t size) {
  return std::vector<std::uint8_t>(data, data + size);
}

// A directory of this process's own under $TMPDIR (or /tmp), made on first use, removed at exit.
const std::filesystem::path& ScratchDir();

// Writes the input to ScratchDir()/relative (replacing it; parent directories made) and returns
// the path: for parsers whose public entry point reads a path.
std::filesystem::path WriteScratch(const std::filesystem::path& relative, const std::uint8_t* data, std::size_t size);

// Runs `parse`. `Rejection` is the clean rejection of bad input (exit 2 in the tools) and is
// swallowed; any other exception escapes, and libFuzzer or the replay main reports it as a crash.
template <class Rejection, class Parse>
void ExpectOnlyRejections(Parse&& parse) {
  try {
    parse();
  } catch (const Rejection&) {
  }
}

// The trainer's parsers: pstrain::InputError is their clean rejection.
template <class Parse>
void ExpectOnlyInputErrors(Parse&& parse) {
  ExpectOnlyRejections<pstrain::InputError>(parse);
}

// Aborts (a crash for libFuzzer and for the replay) with `what` when `condition` is false: the
// targets' checks of properties a parser promises (e.g. canonical artifact.json).
void Require(bool condition, const char* what);

}  // namespace pstrain::fuzz
