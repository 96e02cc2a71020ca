// The gate kit: what determinism gates (GoogleTest tests in gates/) use to say what they exercise
// and to check it.
//
//   GateDeclaration  what a gate claims to exercise (kind, shard counts, passes, a limitation line).
//                    It certifies nothing; `audit scope` lists it under DESCRIBES.
//   Gate::Expect*    assertion helpers: each checks for real (a GoogleTest failure on mismatch) and
//                    appends what it checked and the result to the run ledger. `audit scope` lists
//                    their calls under CHECKED.
//
// The ledger is JSON Lines, one record per declaration and per helper call, appended to the file
// named by $PSTRAIN_GATE_LEDGER (nothing is written when it is unset). Record layout in
// docs/gates.md. Every helper takes the call site (std::source_location, defaulted: leave it out)
// and writes its file, line and column into its check record, so that `audit scope --ledger`
// accounts each record to the call the static report lists.
//
// Example:
//   Gate gate({"fixed-count-reproducibility", {2}, 3, "one machine, one build"});
//   gate.ExpectProducedFilesIdentical(run_a / "model", run_b / "model", {"means", "variances"});
#pragma once

#include <cstdint>
#include <filesystem>
#include <source_location>
#include <string>
#include <vector>

namespace pstrain::gates {

struct GateDeclaration {
  std::string kind;                          // e.g. "fixed-count-reproducibility"
  std::vector<std::uint32_t> shard_counts;   // the shard counts the gate runs
  std::uint32_t passes = 0;                  // passes per run
  std::string limitation;                    // what the gate does not establish
};

// What a gate really ran (the declaration only describes): the effective shard counts and passes,
// the corpus, the pstrain binary, and which overrides from `audit gates run` (PSTRAIN_GATE_*
// variables, gates/gate_fixture.h) applied or were ignored. Recorded with Gate::RecordRun as a
// "run" ledger record; it certifies nothing either (the checks do).
struct GateRun {
  std::string profile;                       // "quick" or "full"
  std::vector<std::uint32_t> shard_counts;   // the counts the gate runs (requested --jobs values)
  std::uint32_t passes = 0;                  // passes per run
  std::string corpus;                        // "default", "bench" or "override"
  std::string corpus_manifest;               // the manifest file
  std::string corpus_root;
  std::size_t utterances = 0;
  std::string manifest_fingerprint;          // SHA-256 of the canonical manifest bytes
  std::string pstrain;                       // the pstrain binary the gate ran
  std::vector<std::string> overrides_applied;  // e.g. "PSTRAIN_GATE_SHARDS=1,3 (each count, two runs)"
  std::vector<std::string> overrides_ignored;  // e.g. "PSTRAIN_GATE_SHARDS=1,3: one shard by definition"
};

enum class FieldRelation { kPresent, kEqual, kDifferent };

// The call site a helper records: std::source_location. (The one exception is the compiler front
// end of `audit scope`, clang 14, which has no __builtin_source_location and so gets no
// std::source_location from libstdc++ 12: it only parses the kit, never runs it, and sees a
// stand-in of the same shape.)
#if defined(__cpp_lib_source_location)
using CallSite = std::source_location;
#else
struct CallSite {
  static constexpr CallSite current() noexcept { return {}; }
  constexpr const char* file_name() const noexcept { return ""; }
  constexpr std::uint_least32_t line() const noexcept { return 0; }
  constexpr std::uint_least32_t column() const noexcept { return 0; }
};
#endif

// The ledger format this kit writes (field "ledger_format" of every record). 2: check records
// carry the call site ("file", "line", "column"). Records without the field are format 1.
inline constexpr int kLedgerFormat = 2;

class Gate {
 public:
  // Records the declaration; the gate's name is the running GoogleTest test ("Suite.Test").
  explicit Gate(GateDeclaration declaration);
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;

  const GateDeclaration& declaration() const { return declaration_; }
  const std::string& name() const { return name_; }

  // Appends a "run" record (what the gate really runs) to the ledger and adds it to GoogleTest's
  // XML report as test properties (run_shard_counts, run_passes, run_corpus, ...).
  void RecordRun(const GateRun& run);

  // Files produced by two runs are byte-identical: a/NAME and b/NAME for every NAME (relative paths).
  // A difference is reported with both paths, the first differing byte offset and the sizes.
  bool ExpectProducedFilesIdentical(const std::filesystem::path& a, const std::filesystem::path& b,
                                    const std::vector<std::string>& names,
      CallSite site = CallSite::current());
  // Input files copied into two runs (e.g. mdef) are byte-identical.
  bool ExpectCopiedInputsIdentical(const std::filesystem::path& a, const std::filesystem::path& b,
                                   const std::vector<std::string>& names,
      CallSite site = CallSite::current());
  // Fields of two JSON files (artifact.json, pass.json: dotted paths such as "totals.total_frames")
  // are equal, compared as serialized JSON.
  bool ExpectJsonFieldsEqual(const std::filesystem::path& a, const std::filesystem::path& b,
                             const std::vector<std::string>& fields,
      CallSite site = CallSite::current());
  // A provenance.json field is present in both / equal in both / different between the two.
  bool ExpectProvenanceField(const std::filesystem::path& a, const std::filesystem::path& b, const std::string& field,
                             FieldRelation relation,
      CallSite site = CallSite::current());
  // A validation ran on `subject` and rejected it with check `check`: exit code 1 and the check's
  // name in the output (of `pstrain validate` or of a failed pass).
  bool ExpectRejected(const std::string& subject, int exit_code, const std::string& output, const std::string& check,
      CallSite site = CallSite::current());
  // |actual - expected| <= rtol * |expected| + atol.
  bool ExpectWithin(const std::string& what, double actual, double expected, double rtol, double atol,
      CallSite site = CallSite::current());

 private:
  bool Record(const char* helper, const std::vector<std::string>& subjects, bool passed, const std::string& detail,
              const CallSite& site);

  GateDeclaration declaration_;
  std::string name_;
};

// Appends one JSON line to the ledger file (if $PSTRAIN_GATE_LEDGER is set). Exposed for tests.
void AppendLedgerLine(const std::string& json_line);

}  // namespace pstrain::gates
