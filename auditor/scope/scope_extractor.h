// The scope extractor: reads gate sources through the compiler's view (libclang, with the flags of
// the project's compile_commands.json) and finds, in every GoogleTest test body (TEST, TEST_F,
// TEST_P, TYPED_TEST, TYPED_TEST_P), the gate declaration and the assertion-helper calls.
//
// What counts as a check: a call whose callee resolves to an `Expect...` member function of the
// kit's `pstrain::gates::Gate` (gates/gate_kit.h), in evaluated, live code of the test body or of
// a function the body calls whose definition the auditor sees (the gate source or a file under
// the gates directory); macros are expanded as the compiler expands them (gtest's included), and
// an argument spelled with a macro is reported as its expansion. The kit's types are recognized
// by what they resolve to, however they are named (a using declaration or directive, an alias).
//
// TEST_F: the fixture classes the auditor sees (a fixture's own base fixtures too) count for every
// test of the fixture, in GoogleTest's order (gtest.cc 1.12: TestInfo::Run, Test::Run): the
// construction (bases first; in each class the base initializers of its default constructor's
// member-initializer list, then the members in declaration order, each with its initializer from
// that list or else its default member initializer, then the constructor's body), SetUp(), the
// body, TearDown(), then the destructors (derived first). Gate members are the test's
// declarations, however they are initialized. A default member initializer that the constructor's
// list replaces is not evaluated. A construction that always ends the test (a function it calls
// always ends in GTEST_SKIP(), FAIL() or a failing constant ASSERT: a constructor cannot spell them
// itself) leaves SetUp(), the body and TearDown() dead; the destructors run. A constructor that
// always throws leaves the rest of the construction, SetUp(), the body, TearDown() and the
// destructors of that class and the classes derived from it dead (GoogleTest has no object to
// destroy); the destructors of the bases already constructed run. A SetUp() that always ends the
// test (those macros, or a function it calls that always does, or a throw) leaves the body dead;
// TearDown() runs anyway.
//
// CHECKED: the call runs on every path through the gate that does not end in a failure or an
// exception. "CHECKED if reached": the AST cannot say that it runs (a lambda's body, a loop's body
// that may run zero times, a `catch` handler, a branch of a condition that is not a constant, the
// right operand of `||`/`&&`, code after a label reached by a jump). The ledger decides.
//
// What does not count, listed as "not counted" with the reason:
//   - unevaluated operands (sizeof, alignof, noexcept, typeid, decltype and other types);
//   - branches discarded by a condition the compiler folds to a constant (`if (false)`,
//     `if constexpr`, `while (false)`, a constant `switch`, a constant left operand of ||/&&);
//   - statements after `return`, `throw`, `break`, `continue`, `goto`, GTEST_SKIP(), FAIL() or a
//     fatal ASSERT_TRUE/ASSERT_FALSE of a constant that fails, in the same or an enclosing block
//     (until a label: a label after a `goto` to it is live);
//   - inactive preprocessor branches of the real configuration;
//   - calls of a same-named method of another type (not the kit's Gate).
// Comments and string literals are not code: the compiler never sees a call there.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "scope/scope_model.h"

namespace pstrain::audit {

// The scope of one gate source, parsed with its entry in `compile_commands` (a
// compile_commands.json file, or the directory holding it). This is the front end's single entry
// point. It runs the parse in a child process with bounded memory and time
// (auditor/scope_frontend.h). `display_path` is how reports name the file; files under
// `gates_dir` other than the source (headers) are named "<gates_dir name>/<relative path>".
// Throws AuditError: no database or no entry for the source, a source that does not
// compile (with the compiler's diagnostics), a nesting deeper than kMaxAstDepth, a front end
// stopped by its limits.
FileScope ExtractFileScope(const std::filesystem::path& source, const std::filesystem::path& compile_commands,
                           const std::string& display_path, const std::filesystem::path& gates_dir);

// Every `*_gate.cpp` directly in `gates` (sorted by name), or the single file `gates`. Files are
// named "<directory name>/<file name>" in the report. Other .cpp files of the directory that the
// compilation database compiles are read too (their helper calls are "other sources"). Throws
// AuditError naming the directory or file when it cannot be read, or as above.
// `shared_pch`: sources compiled with the same flags load the system headers they all open with
// from one precompiled header built for the run (scope_pch.h) instead of parsing them each; the
// report is the same either way, only faster.
ScopeReport ExtractScope(const std::filesystem::path& gates, const std::filesystem::path& compile_commands,
                         bool shared_pch = true);

// The compilation database of the build tree this binary belongs to (<build>/compile_commands.json
// for <build>/auditor/audit or <build>/tests/unit_tests).
std::filesystem::path DefaultCompileCommands();

// The file-name suffix of gate sources.
inline constexpr std::string_view kGateSourceSuffix = "_gate.cpp";

// The kit's gate type, as libclang names it (its USR).
inline constexpr std::string_view kGateTypeUsr = "c:@N@pstrain@N@gates@S@Gate";

}  // namespace pstrain::audit
