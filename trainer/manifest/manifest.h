// The canonical corpus manifest: which utterances a run trains on, in which order, with which
// transcript and which feature bytes. The byte format is specified in docs/manifest.md; in short:
//
//   pstrain-manifest 1 utterances=2\n
//   001<TAB>feat/001.mfc<TAB><sha256 of feat/001.mfc><TAB><s> TEN OF CLUBS </s>\n
//   002<TAB>feat/002.mfc<TAB><sha256 of feat/002.mfc><TAB><s> FIVE FIVE </s>\n
//
// Every manifest has exactly one byte representation, so Parse accepts only canonical bytes and
// Serialize(Parse(bytes)) == bytes; the fingerprint is the SHA-256 of those bytes. Feature paths are
// relative to a corpus root that is not stored in the manifest (it is given as `--cepdir` when the
// manifest is checked or used), so the fingerprint does not depend on where the corpus lives.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "formats/dictionary.h"

namespace pstrain {

// One utterance of the manifest.
struct ManifestEntry {
  std::string utt_id;               // unique; no whitespace, e.g. "001"
  std::string feature_path;         // relative to the corpus root, '/'-separated, e.g. "feat/001.mfc"
  std::vector<std::string> words;   // transcript tokens, at least one, e.g. {"<s>", "TEN", "</s>"}
  std::string feature_sha256;       // 64 lower-case hex digits: SHA-256 of the feature file's bytes

  bool operator==(const ManifestEntry&) const = default;
};

struct ManifestRange;

// An ordered, validated list of utterances. Entry order is the training order.
class Manifest {
 public:
  // Format version written in, and required by, the header line.
  static constexpr int kFormatVersion = 1;

  // Validates and takes `entries` (at least one; unique ids; fields as in docs/manifest.md).
  // `source` names where they came from, for error messages. Throws InputError naming the source,
  // the entry and the problem.
  Manifest(std::vector<ManifestEntry> entries, std::string source);

  const std::vector<ManifestEntry>& entries() const { return entries_; }
  std::size_t size() const { return entries_.size(); }
  // Where the manifest came from (its file, or the imported files); used in error messages only and
  // not part of the manifest's bytes.
  const std::string& source() const { return source_; }

  // The canonical bytes (docs/manifest.md).
  std::string Serialize() const;
  // Lower-case hex SHA-256 of Serialize(): identifies the corpus a run trained on (computed when
  // the manifest is made: a manifest does not change).
  const std::string& Fingerprint() const { return fingerprint_; }

  // Parses canonical manifest bytes; anything non-canonical is an InputError naming `path`, the line
  // and the problem.
  static Manifest Parse(const std::string& bytes, const std::string& path);
  static Manifest Load(const std::filesystem::path& path);
  // Reads the manifest file at `path` whole and hashes it, checks its form (not empty, no byte
  // order mark, a final newline, its header, as many lines as the header counts: a file that fails
  // one of these gets the error Parse gives for the whole file), and parses only the entries
  // [first, last) that `select(entries in the file)` returns, each line checked as Parse checks it
  // (ids unique among them only; an error names the line's number in the file). The
  // other lines are not parsed: what stands for them is the file's SHA-256, which a shard worker
  // records in its artifact and the coordinator compares with the manifest it parsed whole
  // (docs/contract.md). `select` may throw; a range that is empty or past the end is a TrainingError.
  using RangeSelector = std::function<std::pair<std::size_t, std::size_t>(std::size_t)>;
  static ManifestRange LoadRange(const std::filesystem::path& path, const RangeSelector& select);
  // Writes Serialize() to `path` atomically (WriteFileAtomic).
  void Save(const std::filesystem::path& path) const;

 private:
  // Entries Parse has validated, from the canonical `bytes` they were read from.
  struct Parsed {};
  Manifest(Parsed, std::vector<ManifestEntry> entries, std::string source, const std::string& bytes);
  // Parse, with the entry lines' numbers in errors shifted by `entry_line_offset` (the entries
  // before them in the file, when `bytes` hold a range of it under a header of their own).
  static Manifest ParseNumbered(const std::string& bytes, const std::string& path, std::size_t entry_line_offset);

  std::vector<ManifestEntry> entries_;
  std::string source_;
  std::string fingerprint_;
};

// A range of a manifest file's entries (Manifest::LoadRange).
struct ManifestRange {
  Manifest part;                  // the range's entries, a manifest of their own (with its own Fingerprint())
  std::size_t first = 0;          // the file's index of part.entries()[0]
  std::size_t file_entries = 0;   // how many entries the whole file lists
  std::string file_fingerprint;   // lower-case hex SHA-256 of the whole file: Fingerprint() of the whole manifest
};

// Builds a manifest from SphinxTrain inputs, as bw would read them with `-ctlfn fileids_path
// -lsnfn transcription_path -cepdir cepdir -cepext cepext`: control-file and transcript entries are
// paired in order (comments skipped) and must be equally many; the utterance id is the control file's;
// a transcript id, when present, must equal it ignoring ASCII case (SphinxTrain only warns); each
// feature_path is "<ctl path>.<cepext>" relative to `cepdir` (a leading '.' of cepext is dropped,
// so "mfc" and ".mfc" are the same; an empty cepext adds no extension), and its file is hashed.
// Control lines with a frame range (`path sf ef ...`) are rejected: the manifest has no frame ranges.
// Errors are InputErrors naming the file(s) and line(s).
//
// `kept`: the manifest holds only the entries whose control-file line number (1-based, as
// ControlEntry::line_number) is in [first_line, last_line], and only their feature files are
// hashed: what one bw part reads (`-part/-npart`, `-nskip/-runlen`), so that each of N parts
// does not hash the whole corpus. Every entry is still paired and validated and every feature file
// must exist, so a malformed line or a missing feature file fails every part alike; a file that
// exists but cannot be read fails only the part that reads it. At least one entry must be kept.
struct ImportLines {
  std::size_t first_line = 1;
  std::size_t last_line = static_cast<std::size_t>(-1);
};
Manifest ImportSphinx(const std::filesystem::path& fileids_path, const std::filesystem::path& transcription_path,
                      const std::filesystem::path& cepdir, const std::string& cepext, ImportLines kept = {});

// The feature file of `entry` under `corpus_root`.
std::filesystem::path ResolveFeaturePath(const ManifestEntry& entry, const std::filesystem::path& corpus_root);

// Checks that every feature file exists under `corpus_root` and has the recorded SHA-256, hashing
// on `threads` threads (0: CheckParallelism()). Checks all entries, then throws an InputError naming
// the first bad utterance and its file, and how many utterances failed. With `stop_on_interrupt`,
// a SIGINT/SIGTERM caught by an InterruptGuard (common/interrupt.h) ends it early with a
// TrainingError: an unfinished check never passes.
void CheckManifest(const Manifest& manifest, const std::filesystem::path& corpus_root, unsigned threads = 0,
                   bool stop_on_interrupt = false);

// Whether every feature file exists under `corpus_root` as a regular file: CheckManifest's first
// test of each file, without reading any (each directory is listed once; a symbolic link or a file
// of a directory that cannot be listed is looked at with fstatat).
// At most `listing_limit` names are read from directories (all together; by default 4 per manifest
// entry, plus 1,024): a directory whose listing would exceed it is not listed to its end, and its
// files, and those of the directories after it, are looked at one by one.
bool FeatureFilesPresent(const Manifest& manifest, const std::filesystem::path& corpus_root, std::size_t listing_limit = 0);

// Checks that every transcript word has an entry in `merged` (main + filler dictionary; literal,
// case-sensitive lookup as in bw). Throws an InputError naming the first utterance with unknown words,
// all of its unknown words, and how many utterances have unknown words.
void CheckWords(const Manifest& manifest, const Dictionary& merged);

}  // namespace pstrain
