// `audit compare DIR_A DIR_B`: how two model directories differ and why. Every file is listed
// (present in both? byte-identical? SHA-256); parameter files are parsed and compared element by
// element (model_diff.h); mdef and other text files get a line diff (line_diff.h); provenance.json
// is compared field by field (provenance_diff.h). The findings are sentences that each follow from
// something compared here; nothing is claimed that was not checked.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "compare/model_diff.h"
#include "compare/provenance_diff.h"
#include "compare/state_tying.h"
#include "report/audit_error.h"
#include "report/line_diff.h"

namespace pstrain::audit {

enum class FileClass { kParameters, kText, kProvenance, kBinary };
const char* FileClassName(FileClass c);

struct FileSide {
  std::string kind;  // "file", "directory", "symlink", "other"
  std::uint64_t size = 0;
  std::string sha256;       // regular files
  std::string link_target;  // symlinks
};

struct FileEntry {
  std::string path;    // relative, '/' separators
  std::string status;  // "identical", "different", "only in A", "only in B"
  FileClass file_class = FileClass::kBinary;
  std::optional<FileSide> a, b;
  std::string reason;  // for "different": from the byte comparison ("contents differ", ...)
};

// Text files larger than this on either side are not line-diffed (the line diff holds both files
// and their lines in memory, about 40 times the text for short lines): the report says so, gives
// both sizes and the first differing byte, and the files are compared as bytes only.
inline constexpr std::uint64_t kMaxLineDiffBytes = 4u << 20;  // 4 MiB
// An mdef larger than this is trouble (exit 2): the trainer's reader holds it in memory, and a
// real mdef is a few MiB even for tens of thousands of triphones.
inline constexpr std::uint64_t kMaxMdefBytes = 64u << 20;  // 64 MiB

struct TextDiffEntry {
  std::string path;
  LineDiff diff;
  // Not line-diffed (kMaxLineDiffBytes): why, "" when `diff` holds the line diff.
  std::string not_diffed;
};

// A model file whose SHA-256 is not the one its side's provenance.json records.
struct DigestMismatch {
  char side = 'A';
  std::string file;
  std::string recorded;
  std::string actual;  // "" when the file is missing
};

struct Finding {
  std::string code;  // stable identifier for machines (docs/audit.md lists them)
  std::string text;  // one sentence or two, for people
};

struct CompareReport {
  std::string a, b;  // the directories as given
  Tolerance tolerance;
  std::vector<FileEntry> files;           // every path, in byte-wise path order
  std::vector<ParamDiff> parameters;      // parameter files present on both sides, in path order
  std::vector<TextDiffEntry> text_diffs;  // differing text files on both sides, in path order
  // The model directory inside the compared trees whose provenance.json and mdef explain and label:
  // "" (DIR_A and DIR_B are model directories) or "model/" (they are run directories: no top-level
  // provenance.json, but model/provenance.json on a side).
  std::string model_dir;
  bool provenance_in_a = false, provenance_in_b = false;  // MODEL_DIR/provenance.json
  std::optional<ProvenanceDiff> provenance;                // both present
  std::vector<DigestMismatch> digest_mismatches;  // `file` relative to MODEL_DIR
  // Labels from MODEL_DIR/mdef when it is byte-identical on both sides: senone -> "AE, emitting state
  // 1", tmat -> "AE". They label the parameter files of MODEL_DIR only. When the two mdefs differ
  // but tie the same states (state_tying), A's mdef labels the senones (and, with the same tmat
  // tying, the tmats).
  std::map<std::uint32_t, std::string> state_labels, tmat_labels;
  // MODEL_DIR/mdef's state tying on both sides, compared by triphone membership (state_tying.h):
  // when it is a file on both sides and the bytes differ. With the same tying, the parameter files
  // of MODEL_DIR are compared through the pairing (ParamDiff::aligned_by); with a different one,
  // those over senones (tmats) are not compared element by element (ParamDiff::not_compared).
  std::optional<StateTying> state_tying;
  std::vector<Finding> explanations;  // why (from provenance and digests), first
  std::vector<Finding> differences;   // what (files, shapes, elements, lines)

  bool Different() const;
  std::size_t CountStatus(const std::string& status) const;
  bool ParametersIdentical() const;  // every parameter file on both sides and byte-identical
  // With state_tying and the same senone and tmat tying: whether every parameter file of MODEL_DIR
  // compared has the same shape and no differing element once the states are paired; nullopt
  // otherwise.
  std::optional<bool> ParametersIdenticalAfterAlignment() const;
  bool IsModelFile(const std::string& path) const;  // directly in MODEL_DIR
  // "state 5 (AE, emitting state 2), stream 0, density 0, dimension 12".
  std::string Where(const ParamDiff& diff, const ElementDiff& element) const;
  std::string StateLabel(const ParamDiff& diff, std::uint32_t state) const;
  // What follows "state 5" in a report: " (AE, emitting state 2; state 9 in B)", " (AE, emitting
  // state 2)", " (state 9 in B)" or "" (no label, not aligned).
  std::string StateSuffix(const ParamDiff& diff, std::uint32_t state,
                          const std::optional<std::uint32_t>& b_state) const;
};

// Throws AuditError (exit 2) for a directory that is missing, not a directory or unreadable, or a
// malformed file, naming the path.
CompareReport CompareModels(const std::filesystem::path& a, const std::filesystem::path& b, const Tolerance& tolerance);

}  // namespace pstrain::audit
