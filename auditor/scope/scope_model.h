// What `audit scope` knows about the gates: per gate, what its assertion-helper calls check
// (CHECKED) and what its declaration says (DESCRIBES, certifies nothing), as read from the source.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pstrain::audit {

// A value read from a gate source: a literal (its value) or an expression (its source text), which
// the auditor does not evaluate.
struct SourceValue {
  bool literal = false;
  std::string text;

  static SourceValue Literal(std::string value) { return {true, std::move(value)}; }
  static SourceValue Expression(std::string source) { return {false, std::move(source)}; }
  bool operator==(const SourceValue&) const = default;
};

// A list argument: braced (`{"means", "variances"}`, items read one by one) or an expression
// (`names`, whose elements are not visible in the source).
struct ValueList {
  bool braced = false;
  std::vector<SourceValue> items;  // when braced
  std::string expression;          // when not braced; empty when the list is unknown altogether
};

// The gate's declaration: `Gate gate({"kind", {1, 2}, 3, "limitation"});`.
struct Declaration {
  std::size_t line = 0;
  std::string variable;
  std::string argument;  // the declaration's source text
  bool structured = false;  // the argument is a braced initializer that the fields below come from
  std::optional<SourceValue> kind, passes, limitation;
  std::optional<ValueList> shard_counts;
};

// One assertion-helper call, e.g. `gate.ExpectProducedFilesIdentical(a, b, {"means"})`.
struct Check {
  std::string helper;  // "ExpectProducedFilesIdentical"
  // The call site, as the kit's std::source_location records it (GCC): the line and column of the
  // call's `(`, or of the outermost macro invocation when the call comes from a macro.
  std::size_t line = 0;
  std::size_t column = 0;
  std::string file;       // display path of the file holding the call site (e.g. a header)
  std::string site_path;  // that file's path as the compiler names it (matched against the ledger)
  // Empty: the call runs on every path through the gate that does not end in a failure or an
  // exception (CHECKED). Otherwise why the AST cannot say that it runs ("CHECKED if reached"):
  // e.g. "in the body of the loop at line 44, which may run zero times".
  std::string if_reached;
  std::string receiver;
  // What the kit records as the ledger record's `subjects` (gates/gate_kit.cpp):
  //   ExpectProducedFilesIdentical, ExpectCopiedInputsIdentical: the file names
  //   ExpectJsonFieldsEqual: the fields        ExpectProvenanceField: field, relation
  //   ExpectRejected: subject, check           ExpectWithin: what
  // For a helper the auditor does not know, not braced and with no expression (any subjects).
  ValueList subjects;
  std::vector<std::pair<std::string, SourceValue>> parameters;  // ExpectWithin: rtol, atol
  std::string arguments;     // the call's argument text
  std::string via_macro;     // the file-local macro whose expansion contains the call
  std::string via_function;  // the function of the same file that contains the call (the gate calls it, maybe indirectly)
  std::string condition;     // unused since the compiler front end (kept for the JSON layout)

  bool unconditional() const { return if_reached.empty(); }
  std::string Site() const { return file + ":" + std::to_string(line) + ":" + std::to_string(column); }
};

// Something that looks like a check or a declaration but does not count, and why.
struct NotCounted {
  std::size_t line = 0;
  std::string what;    // e.g. "ExpectProducedFilesIdentical(means, variances)"
  std::string reason;  // e.g. "dead code after `return;` (line 12)"
};

struct GateScope {
  std::string file;   // display path, e.g. "gates/fixed_count_gate.cpp"
  std::size_t line = 0;
  std::string macro;  // TEST, TEST_F, TEST_P, ...
  std::string suite, name;
  std::vector<Declaration> declarations;
  std::vector<Check> checks;  // source order (CHECKED and CHECKED if reached)
  std::vector<NotCounted> not_counted;
  std::size_t bare_assertions = 0;  // ASSERT_*/EXPECT_* not wrapping a helper call (subjects unknown)

  std::string FullName() const { return suite + "." + name; }
  bool declared() const { return !declarations.empty(); }
};

struct FileScope {
  std::string path;  // display path
  std::vector<GateScope> gates;
  std::vector<NotCounted> unattributed;  // helper calls outside every test body and not reached from one
  std::vector<std::string> notes;        // "LINE: what" for source constructs the auditor did not understand
};

struct ScopeReport {
  std::string gates_dir;  // display name of the scanned directory, e.g. "gates"
  std::vector<FileScope> files;  // sorted by path
  // Helper calls in the directory's other sources (shared helpers, fixtures): a gate may make them,
  // but the report cannot say which (the ledger cross-check can). `what` starts with the file.
  std::vector<NotCounted> other_sources;
};

// A FileScope as JSON and back: how the isolated front-end process hands its result to `audit`.
std::string FileScopeToJson(const FileScope& scope);
FileScope FileScopeFromJson(const std::string& text);  // throws std::exception on malformed text

// "ExpectProducedFilesIdentical(means, variances)": the helper and its subjects (expressions in
// backquotes).
std::string DescribeCheck(const Check& check);

// The ledger `subjects` pattern of a check: nullopt for "any list", otherwise one entry per subject,
// nullopt where the subject is an expression (any value).
std::optional<std::vector<std::optional<std::string>>> LedgerSubjectsPattern(const Check& check);

}  // namespace pstrain::audit
