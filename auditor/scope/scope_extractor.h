// The scope extractor: reads gate sources as text (no compiler) and finds, in every GoogleTest
// test body (TEST, TEST_F, TEST_P, TYPED_TEST, TYPED_TEST_P), the gate declaration and the
// assertion-helper calls.
//
// What counts as a check: a call `<receiver>.Expect<Helper>(...)` (or `->`) of a gate-kit helper,
// or of any `Expect...` method on a variable declared as a `Gate` in the body, in compiled,
// reachable code of the body, written there, produced there by a macro defined in the same file, or
// made by a function defined in the same file that the body calls (transitively).
//
// What does not count (and is listed as "not counted" with the reason, where it looks like code):
//   - comments and string literals (never code, not listed);
//   - branches of `#if 0` (or any #if the auditor can evaluate to false);
//   - code after an unconditional `return`, `throw`, `break`, `continue`, `goto`, `FAIL()` or
//     `GTEST_SKIP()` in the same block (until the block ends or a `case`/`default` label);
//   - arguments of an ALL-CAPS macro that is neither a GoogleTest macro nor defined in the file
//     ("unrecognized macro, not counted"), and invocations of a file-local macro that could not
//     be expanded.
// An #if the auditor cannot evaluate (`#ifdef NDEBUG`) keeps every branch; calls under it count and
// carry the condition.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "scope/scope_model.h"

namespace pstrain::audit {

// The scope of one source file; `display_path` is how reports name it.
FileScope ExtractFileScope(const std::string& display_path, std::string_view source);

// Every `*_gate.cpp` directly in `gates` (sorted by name), or the single file `gates`. Files are
// named "<directory name>/<file name>" in the report. Throws pstrain::InputError naming the
// directory or file when it cannot be read.
ScopeReport ExtractScope(const std::filesystem::path& gates);

// The file-name suffix of gate sources.
inline constexpr std::string_view kGateSourceSuffix = "_gate.cpp";

}  // namespace pstrain::audit
