// The canonical corpus manifest (format: docs/manifest.md).
#include "manifest/manifest.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <unordered_map>
#include <string_view>
#include <system_error>
#include <utility>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "common/file_io.h"
#include "common/interrupt.h"
#include "common/parallel_for.h"
#include "common/sha256.h"
#include "formats/control_file.h"

namespace pstrain {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMagic = "pstrain-manifest";
constexpr std::string_view kCountKey = "utterances=";
constexpr std::size_t kSha256HexSize = 64;
constexpr std::size_t kFieldCount = 4;  // utt id, feature path, sha256, words

// The header's text with `count` as its count, without the newline.
std::string HeaderText(std::string_view count) {
  return std::string(kMagic) + " " + std::to_string(Manifest::kFormatVersion) + " " + std::string(kCountKey) + std::string(count);
}

// The header line of a manifest of `count` entries, with its newline.
std::string HeaderLine(std::size_t count) { return HeaderText(std::to_string(count)) + "\n"; }

std::string ExpectedHeaderText() { return HeaderText("N"); }

// Offset of the first byte that is not part of valid UTF-8 (no overlongs, no surrogates, at most
// U+10FFFF), or npos.
std::size_t InvalidUtf8Offset(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    // ASCII, the usual text, eight bytes at a time.
    std::uint64_t eight;
    while (pos + sizeof eight <= text.size()) {
      std::memcpy(&eight, text.data() + pos, sizeof eight);
      if ((eight & 0x8080808080808080u) != 0) break;
      pos += sizeof eight;
    }
    if (pos == text.size()) break;
    const auto lead = static_cast<unsigned char>(text[pos]);
    if (lead < 0x80) {
      ++pos;
      continue;
    }
    std::size_t length = 0;
    unsigned min_second = 0x80;
    unsigned max_second = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
      length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead == 0xe0) min_second = 0xa0;  // overlong
      if (lead == 0xed) max_second = 0x9f;  // surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead == 0xf0) min_second = 0x90;  // overlong
      if (lead == 0xf4) max_second = 0x8f;  // above U+10FFFF
    } else {
      return pos;
    }
    if (pos + length > text.size()) return pos;
    for (std::size_t cont_idx = 1; cont_idx < length; ++cont_idx) {
      const auto byte = static_cast<unsigned char>(text[pos + cont_idx]);
      const unsigned lo = cont_idx == 1 ? min_second : 0x80;
      const unsigned hi = cont_idx == 1 ? max_second : 0xbf;
      if (byte < lo || byte > hi) return pos;
    }
    pos += length;
  }
  return std::string_view::npos;
}

std::string ByteText(unsigned char byte) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(byte));
  return hex;
}

// Problem with a token (utterance id or word): non-empty, valid UTF-8, no space/control characters.
std::string TokenProblem(std::string_view token) {
  if (token.empty()) return "is empty";
  // The usual token, printable ASCII without a space, in one pass without a branch per byte; any
  // other is looked at again below, byte by byte, for the message.
  unsigned unusual = 0;
  for (char c : token) {
    const auto byte = static_cast<unsigned char>(c);
    unusual |= (byte <= 0x20 ? 1u : 0u) | (byte >= 0x7f ? 1u : 0u);
  }
  if (unusual == 0) return {};
  bool ascii = true;
  for (char c : token) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == ' ') return "contains a space";
    if (byte < 0x20 || byte == 0x7f) return "contains control character " + ByteText(byte);
    ascii = ascii && byte < 0x80;
  }
  if (!ascii && InvalidUtf8Offset(token) != std::string_view::npos) return "is not valid UTF-8";  // (ASCII is UTF-8)
  return {};
}

// Problem with a feature path: a token that is relative, '/'-separated, without empty, "." or ".."
// components, so that it can neither escape the corpus root nor be spelled two ways.
std::string FeaturePathProblem(std::string_view path) {
  if (std::string problem = TokenProblem(path); !problem.empty()) return problem;
  if (path.front() == '/') return "is absolute (it must be relative to the corpus root)";
  std::size_t begin = 0;
  while (true) {
    const std::size_t slash = path.find('/', begin);
    const std::string_view component = path.substr(begin, slash == std::string_view::npos ? path.npos : slash - begin);
    if (component.empty()) return "has an empty component (a trailing or doubled '/')";
    if (component == "..") return "has a \"..\" component (a manifest must not reach outside its corpus root)";
    if (component == ".") return "has a \".\" component (not canonical: write the path without it)";
    if (slash == std::string_view::npos) break;
    begin = slash + 1;
  }
  return {};
}

std::string Sha256Problem(std::string_view digest) {
  if (digest.size() != kSha256HexSize) {
    return "has " + std::to_string(digest.size()) + " characters (expected 64 lower-case hex digits)";
  }
  unsigned not_hex = 0;  // (one pass without a branch per digit)
  for (char c : digest) {
    const auto byte = static_cast<unsigned char>(c);
    not_hex |= (unsigned(byte - '0') > 9u ? 1u : 0u) & (unsigned(byte - 'a') > 5u ? 1u : 0u);
  }
  if (not_hex != 0) return "is not 64 lower-case hex digits";
  return {};
}

// First problem of an entry's fields, as "FIELD \"VALUE\" PROBLEM", or empty. `words_plain`: the
// caller has seen that every word is non-empty printable ASCII without a space, which TokenProblem
// accepts, so they are not looked at again.
std::string EntryProblem(const ManifestEntry& entry, bool words_plain = false) {
  if (std::string problem = TokenProblem(entry.utt_id); !problem.empty()) {
    return "utterance id " + Quoted(entry.utt_id) + " " + problem;
  }
  if (std::string problem = FeaturePathProblem(entry.feature_path); !problem.empty()) {
    return "feature path " + Quoted(entry.feature_path) + " " + problem;
  }
  if (std::string problem = Sha256Problem(entry.feature_sha256); !problem.empty()) {
    return "feature SHA-256 " + Quoted(entry.feature_sha256) + " " + problem;
  }
  if (entry.words.empty()) return "transcript has no words";
  if (words_plain) return {};
  for (const std::string& word : entry.words) {
    if (std::string problem = TokenProblem(word); !problem.empty()) return "word " + Quoted(word) + " " + problem;
  }
  return {};
}

// Why `path` cannot serve as a feature file ("does not exist", ...), or empty when it is a regular file.
std::string FeatureFileProblem(const fs::path& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) return "does not exist";
  if (ec) return "cannot be examined: " + ec.message();
  if (status.type() != fs::file_type::regular) return "is not a regular file";
  return {};
}

bool EqualsIgnoreAsciiCase(std::string_view lhs, std::string_view rhs) {
  if (lhs.size() != rhs.size()) return false;
  for (std::size_t pos = 0; pos < lhs.size(); ++pos) {
    char a = lhs[pos];
    char b = rhs[pos];
    if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
    if (b >= 'A' && b <= 'Z') b = static_cast<char>(b - 'A' + 'a');
    if (a != b) return false;
  }
  return true;
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(separator, begin);
    if (end == std::string_view::npos) {
      parts.push_back(text.substr(begin));
      return parts;
    }
    parts.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
}

// What Parse requires of every line's bytes, before its fields: LF line ends only, valid UTF-8.
void CheckLineBytes(std::string_view line, const std::string& path, std::size_t line_number) {
  if (line.find('\r') != std::string_view::npos) {
    throw RecordError(path, line_number, "carriage return in line (a manifest has LF line endings only)");
  }
  if (const std::size_t bad = InvalidUtf8Offset(line); bad != std::string_view::npos) {
    throw RecordError(path, line_number, "invalid UTF-8 at byte " + std::to_string(bad + 1) + " of the line");
  }
}

// Parses the header line; returns the utterance count or throws.
std::size_t ParseHeader(std::string_view line, const std::string& path) {
  const std::vector<std::string_view> parts = Split(line, ' ');
  if (parts.empty() || parts[0] != kMagic) {
    throw RecordError(path, 1, "not a pstrain manifest: the first line must be \"" + ExpectedHeaderText() + "\"");
  }
  const std::string bad_header = "malformed header line (expected \"" + ExpectedHeaderText() +
                                 "\" with N written in decimal without leading zeros)";
  if (parts.size() < 2 || parts[1].empty() || parts[1].find_first_not_of("0123456789") != std::string_view::npos) {
    throw RecordError(path, 1, bad_header);
  }
  if (parts[1] != std::to_string(Manifest::kFormatVersion)) {
    throw RecordError(path, 1,
                      "unsupported manifest format version " + std::string(parts[1]) + " (this pstrain reads version " +
                          std::to_string(Manifest::kFormatVersion) + ")");
  }
  if (parts.size() != 3 || !parts[2].starts_with(kCountKey)) throw RecordError(path, 1, bad_header);
  const std::string_view digits = parts[2].substr(kCountKey.size());
  constexpr std::size_t kMaxDigits = 15;
  if (digits.empty() || digits.size() > kMaxDigits || (digits.size() > 1 && digits[0] == '0')) {
    throw RecordError(path, 1, bad_header);
  }
  std::size_t count = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') throw RecordError(path, 1, bad_header);
    count = count * 10 + static_cast<std::size_t>(c - '0');
  }
  if (count == 0) throw RecordError(path, 1, "the manifest lists no utterances (utterances=0)");
  return count;
}

}  // namespace

Manifest::Manifest(std::vector<ManifestEntry> entries, std::string source)
    : entries_(std::move(entries)), source_(std::move(source)) {
  if (entries_.empty()) throw FileError(source_, "the manifest lists no utterances");
  std::map<std::string, std::size_t> first_index_of_id;
  for (std::size_t entry_idx = 0; entry_idx < entries_.size(); ++entry_idx) {
    const ManifestEntry& entry = entries_[entry_idx];
    const std::string where = "manifest entry " + std::to_string(entry_idx + 1) + ": ";
    if (std::string problem = EntryProblem(entry); !problem.empty()) throw FileError(source_, where + problem);
    auto [it, inserted] = first_index_of_id.try_emplace(entry.utt_id, entry_idx);
    if (!inserted) {
      throw FileError(source_, where + "duplicate utterance id " + Quoted(entry.utt_id) + " (first at entry " +
                                   std::to_string(it->second + 1) + ")");
    }
  }
  fingerprint_ = Sha256Hex(Serialize());
}

// Parse has checked every entry as the public constructor does (and more): they are not checked
// again, and the bytes are the canonical ones, whose hash is the fingerprint.
Manifest::Manifest(Parsed, std::vector<ManifestEntry> entries, std::string source, const std::string& bytes)
    : entries_(std::move(entries)), source_(std::move(source)), fingerprint_(Sha256Hex(bytes)) {}

std::string Manifest::Serialize() const {
  // Appended piece by piece into one buffer sized up front (no temporary strings: this runs on
  // every load, to check that the bytes read are canonical).
  std::size_t size = 64;
  for (const ManifestEntry& entry : entries_) {
    size += entry.utt_id.size() + entry.feature_path.size() + entry.feature_sha256.size() + 4;
    for (const std::string& word : entry.words) size += word.size() + 1;
  }
  std::string bytes;
  bytes.reserve(size);
  bytes += HeaderLine(entries_.size());
  for (const ManifestEntry& entry : entries_) {
    bytes += entry.utt_id;
    bytes += '\t';
    bytes += entry.feature_path;
    bytes += '\t';
    bytes += entry.feature_sha256;
    bytes += '\t';
    for (std::size_t word_idx = 0; word_idx < entry.words.size(); ++word_idx) {
      if (word_idx > 0) bytes += ' ';
      bytes += entry.words[word_idx];
    }
    bytes += '\n';
  }
  return bytes;
}

Manifest Manifest::Parse(const std::string& bytes, const std::string& path) { return ParseNumbered(bytes, path, 0); }

Manifest Manifest::ParseNumbered(const std::string& bytes, const std::string& path, std::size_t entry_line_offset) {
  // The line number an error names: the header is line 1; entry lines are shifted when these bytes
  // hold a range of a larger file (LoadRange).
  const auto number_of = [entry_line_offset](std::size_t line_idx) { return line_idx + 1 + (line_idx > 0 ? entry_line_offset : 0); };
  if (bytes.empty()) throw FileError(path, "empty file (expected the header line \"" + ExpectedHeaderText() + "\")");
  if (bytes.starts_with("\xEF\xBB\xBF")) {
    throw RecordError(path, 1, "starts with a UTF-8 byte order mark (a manifest has none)");
  }
  std::vector<std::string_view> lines = Split(bytes, '\n');
  // Split leaves one empty piece after a final '\n'; any other last piece is an unterminated line.
  if (!lines.back().empty()) throw RecordError(path, number_of(lines.size() - 1), "the last line does not end with a newline");
  lines.pop_back();

  for (std::size_t line_idx = 0; line_idx < lines.size(); ++line_idx) CheckLineBytes(lines[line_idx], path, number_of(line_idx));

  const std::size_t declared_count = ParseHeader(lines[0], path);
  std::vector<ManifestEntry> entries;
  entries.reserve(lines.size() - 1);
  // Ids are views into `bytes`, which outlives the map (the entries' strings move).
  std::unordered_map<std::string_view, std::size_t> first_line_of_id;
  first_line_of_id.reserve(lines.size());
  for (std::size_t line_idx = 1; line_idx < lines.size(); ++line_idx) {
    const std::string_view line = lines[line_idx];
    const std::size_t line_number = number_of(line_idx);
    if (line.empty()) throw RecordError(path, line_number, "blank line");
    // The four fields, found in place (no list of pieces made for every line).
    std::string_view fields[kFieldCount];
    std::size_t n_fields = 0;
    for (std::size_t begin = 0;;) {
      const std::size_t tab = line.find('\t', begin);
      if (n_fields < kFieldCount) fields[n_fields] = line.substr(begin, tab == std::string_view::npos ? line.npos : tab - begin);
      ++n_fields;
      if (tab == std::string_view::npos) break;
      begin = tab + 1;
    }
    if (n_fields != kFieldCount) {
      throw RecordError(path, line_number,
                        "expected 4 TAB-separated fields (utterance id, feature path, SHA-256, words), found " +
                            std::to_string(n_fields));
    }
    ManifestEntry entry;
    entry.utt_id = fields[0];
    entry.feature_path = fields[1];
    entry.feature_sha256 = fields[2];
    // The words, split at single spaces in one pass over the field, which also notes whether every
    // other byte is printable ASCII (then no word has a problem TokenProblem would name).
    const std::string_view words = fields[3];
    std::size_t n_spaces = 0;
    unsigned unusual = 0;
    for (const char c : words) {
      const auto byte = static_cast<unsigned char>(c);
      n_spaces += byte == ' ' ? 1 : 0;
      unusual |= (byte < 0x20 ? 1u : 0u) | (byte >= 0x7f ? 1u : 0u);
    }
    entry.words.reserve(n_spaces + 1);  // exactly: a manifest holds thousands of these
    for (std::size_t begin = 0;;) {
      const std::size_t space = words.find(' ', begin);
      const std::string_view word = words.substr(begin, space == std::string_view::npos ? words.npos : space - begin);
      if (word.empty()) {
        throw RecordError(path, line_number,
                          "empty word in the transcript field (words are separated by exactly one space, "
                          "with none at either end)");
      }
      entry.words.emplace_back(word);
      if (space == std::string_view::npos) break;
      begin = space + 1;
    }
    if (std::string problem = EntryProblem(entry, unusual == 0); !problem.empty()) throw RecordError(path, line_number, problem);
    auto [it, inserted] = first_line_of_id.try_emplace(fields[0], line_number);
    if (!inserted) {
      throw RecordError(path, line_number, "duplicate utterance id " + Quoted(entry.utt_id) + " (first at line " +
                                               std::to_string(it->second) + ")");
    }
    entries.push_back(std::move(entry));
  }
  if (entries.size() != declared_count) {
    throw RecordError(path, 1, "the header says utterances=" + std::to_string(declared_count) + " but the file lists " +
                                   std::to_string(entries.size()) + " (truncated or edited?)");
  }

  Manifest manifest(Parsed{}, std::move(entries), path, bytes);
  // The checks above admit canonical bytes only; this guards the read->write identity against a gap
  // between them and Serialize().
  if (manifest.Serialize() != bytes) throw FileError(path, "manifest is not in canonical form");
  return manifest;
}

Manifest Manifest::Load(const fs::path& path) { return Parse(ReadFileText(path), path.string()); }

ManifestRange Manifest::LoadRange(const fs::path& path, const RangeSelector& select) {
  const std::string name = path.string();
  const std::string bytes = ReadFileText(path);
  // The whole file's form: not empty, a newline at the end, a valid header whose count is the
  // number of lines after it. A file that fails any of these is parsed whole, so that the error is
  // the one Parse reports first (a line's bytes, a blank line, ... come before the count).
  const auto form_error = [&]() -> InputError {
    Parse(bytes, name);  // throws
    return FileError(name, "not a canonical manifest");  // (unreachable: Parse checks all of the form)
  };
  std::vector<std::size_t> line_starts;  // of the lines after the header
  std::size_t header_end = std::string::npos;
  for (std::size_t at = 0; at < bytes.size();) {
    const void* newline = std::memchr(bytes.data() + at, '\n', bytes.size() - at);
    if (newline == nullptr) throw form_error();
    const std::size_t end = static_cast<std::size_t>(static_cast<const char*>(newline) - bytes.data());
    if (header_end == std::string::npos) {
      header_end = end;
    } else {
      line_starts.push_back(at);
    }
    at = end + 1;
  }
  if (header_end == std::string::npos || bytes.starts_with("\xEF\xBB\xBF")) throw form_error();
  std::size_t declared_count = 0;
  try {
    const std::string_view header(bytes.data(), header_end);
    CheckLineBytes(header, name, 1);
    declared_count = ParseHeader(header, name);
  } catch (const InputError&) {
    throw form_error();
  }
  if (line_starts.size() != declared_count) throw form_error();
  const auto [first, last] = select(declared_count);
  if (!(first < last && last <= declared_count)) {
    throw TrainingError(name + ": entries [" + std::to_string(first) + ", " + std::to_string(last) + ") asked of a manifest of " +
                        std::to_string(declared_count));
  }
  // The range's lines, contiguous in the file, under a header of their own: a canonical manifest
  // that Parse checks line by line, each error naming the line's number in the file.
  const std::size_t from = line_starts[first];
  const std::size_t to = last < declared_count ? line_starts[last] : bytes.size();
  std::string part_bytes = HeaderLine(last - first);
  part_bytes.append(bytes, from, to - from);
  ManifestRange range{ParseNumbered(part_bytes, name, first), first, declared_count, Sha256Hex(bytes)};
  return range;
}

void Manifest::Save(const fs::path& path) const { WriteFileAtomic(path, Serialize()); }

Manifest ImportSphinx(const fs::path& fileids_path, const fs::path& transcription_path, const fs::path& cepdir,
                      const std::string& cepext, ImportLines kept) {
  const std::string ctl_name = fileids_path.string();
  const std::string lsn_name = transcription_path.string();
  const std::string extension = cepext.starts_with('.') ? cepext.substr(1) : cepext;
  if (!extension.empty()) {
    std::string problem = TokenProblem(extension);
    if (problem.empty() && extension.find('/') != std::string::npos) problem = "contains '/'";
    if (!problem.empty()) throw InputError("feature extension (cepext) " + Quoted(cepext) + " " + problem);
  }
  std::error_code ec;
  if (!fs::is_directory(cepdir, ec)) throw FileError(cepdir.string(), "corpus root (cepdir) is not a directory");

  const std::vector<ControlEntry> controls = LoadControlFile(ctl_name);
  const std::vector<TranscriptEntry> transcripts = LoadTranscriptFile(lsn_name);
  if (controls.empty()) throw FileError(ctl_name, "the control file lists no utterances");
  if (controls.size() > transcripts.size()) {
    throw RecordError(ctl_name, controls[transcripts.size()].line_number,
                      "utterance " + Quoted(controls[transcripts.size()].utt_id) + " has no transcript: " + lsn_name +
                          " has " + std::to_string(transcripts.size()) + " entries, the control file " +
                          std::to_string(controls.size()));
  }
  if (transcripts.size() > controls.size()) {
    throw RecordError(lsn_name, transcripts[controls.size()].line_number,
                      "transcript has no utterance in " + ctl_name + ": the control file has " +
                          std::to_string(controls.size()) + " entries, the transcript file " +
                          std::to_string(transcripts.size()));
  }

  // Pair and validate everything before hashing, so that a bad line fails fast.
  std::vector<ManifestEntry> entries(controls.size());
  std::map<std::string, std::size_t> first_line_of_id;
  for (std::size_t entry_idx = 0; entry_idx < controls.size(); ++entry_idx) {
    const ControlEntry& control = controls[entry_idx];
    const TranscriptEntry& transcript = transcripts[entry_idx];
    if (control.start_frame >= 0 || control.end_frame >= 0) {
      throw RecordError(ctl_name, control.line_number,
                        "frame ranges (`path start_frame end_frame`) are not supported by the manifest; "
                        "list whole feature files");
    }
    if (!transcript.utt_id.empty() && !EqualsIgnoreAsciiCase(transcript.utt_id, control.utt_id)) {
      throw RecordError(ctl_name, control.line_number,
                        "utterance id " + Quoted(control.utt_id) + " does not match the transcript's id " +
                            Quoted(transcript.utt_id) + " at " + lsn_name + ":" + std::to_string(transcript.line_number) +
                            " (entries are paired in order)");
    }
    ManifestEntry& entry = entries[entry_idx];
    entry.utt_id = control.utt_id;
    entry.feature_path = extension.empty() ? control.path : control.path + "." + extension;
    entry.words = transcript.words;
    if (std::string problem = TokenProblem(entry.utt_id); !problem.empty()) {
      throw RecordError(ctl_name, control.line_number, "utterance id " + Quoted(entry.utt_id) + " " + problem);
    }
    if (std::string problem = FeaturePathProblem(entry.feature_path); !problem.empty()) {
      throw RecordError(ctl_name, control.line_number, "feature path " + Quoted(entry.feature_path) + " " + problem);
    }
    for (const std::string& word : entry.words) {
      if (std::string problem = TokenProblem(word); !problem.empty()) {
        throw RecordError(lsn_name, transcript.line_number, "word " + Quoted(word) + " " + problem);
      }
    }
    auto [it, inserted] = first_line_of_id.try_emplace(entry.utt_id, control.line_number);
    if (!inserted) {
      throw RecordError(ctl_name, control.line_number, "duplicate utterance id " + Quoted(entry.utt_id) +
                                                           " (first at line " + std::to_string(it->second) + ")");
    }
  }

  // Hashed on a few threads; the error reported is the first entry's, as one thread would find it.
  // Every feature file must exist; only the kept entries' files are read.
  const auto is_kept = [&](std::size_t entry_idx) {
    const std::size_t line = controls[entry_idx].line_number;
    return line >= kept.first_line && line <= kept.last_line;
  };
  ParallelFor(entries.size(), CheckParallelism(), [&](std::size_t entry_idx) {
    ManifestEntry& entry = entries[entry_idx];
    const fs::path feature_file = ResolveFeaturePath(entry, cepdir);
    if (std::string problem = FeatureFileProblem(feature_file); !problem.empty()) {
      throw RecordError(ctl_name, controls[entry_idx].line_number,
                        "utterance " + Quoted(entry.utt_id) + ": feature file " + feature_file.string() + " " + problem);
    }
    if (is_kept(entry_idx)) entry.feature_sha256 = Sha256OfFile(feature_file);
  });
  std::vector<ManifestEntry> kept_entries;
  kept_entries.reserve(entries.size());
  for (std::size_t entry_idx = 0; entry_idx < entries.size(); ++entry_idx) {
    if (is_kept(entry_idx)) kept_entries.push_back(std::move(entries[entry_idx]));
  }
  if (kept_entries.empty()) {
    throw FileError(ctl_name, "no utterance on control lines " + std::to_string(kept.first_line) + ".." +
                                  std::to_string(kept.last_line));
  }
  return Manifest(std::move(kept_entries), ctl_name + " + " + lsn_name);
}

fs::path ResolveFeaturePath(const ManifestEntry& entry, const fs::path& corpus_root) {
  return corpus_root / fs::path(entry.feature_path);
}

void CheckManifest(const Manifest& manifest, const fs::path& corpus_root, unsigned threads, bool stop_on_interrupt) {
  std::error_code ec;
  if (!fs::is_directory(corpus_root, ec)) {
    throw FileError(corpus_root.string(), "corpus root (cepdir) is not a directory");
  }
  // The files are hashed on a few threads, and judged in manifest order.
  const std::vector<ManifestEntry>& entries = manifest.entries();
  std::vector<std::string> problems(entries.size());
  ParallelFor(entries.size(), threads == 0 ? CheckParallelism() : threads, [&](std::size_t i) {
    if (stop_on_interrupt && InterruptSignal() != 0) return;  // (thrown below)
    const fs::path feature_file = ResolveFeaturePath(entries[i], corpus_root);
    std::string problem = FeatureFileProblem(feature_file);
    if (!problem.empty()) {
      problem = "feature file " + problem;
    } else {
      try {
        const std::string digest = Sha256OfFile(feature_file);
        if (digest != entries[i].feature_sha256) {
          problem = "feature file changed: its SHA-256 is " + digest + ", the manifest records " + entries[i].feature_sha256;
        }
      } catch (const InputError& error) {
        problem = std::string("feature file cannot be read: ") + error.what();
      }
    }
    problems[i] = std::move(problem);
  });
  if (const int signal_number = stop_on_interrupt ? InterruptSignal() : 0) {
    throw TrainingError("interrupted by signal " + std::to_string(signal_number) + " while checking the feature files");
  }
  std::size_t n_failed = 0;
  std::string first_failure;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (problems[i].empty()) continue;
    if (++n_failed == 1) {
      first_failure = ResolveFeaturePath(entries[i], corpus_root).string() + ": utterance " + Quoted(entries[i].utt_id) + " of " +
                      manifest.source() + ": " + problems[i];
    }
  }
  if (n_failed > 0) {
    throw InputError(first_failure + " (" + std::to_string(n_failed) + " of " + std::to_string(manifest.size()) +
                     " utterances have missing or changed feature files)");
  }
}

namespace {

// The entries of one directory under the corpus root, by name, with their types as the directory
// lists them (d_type), read with getdents: one system call for a few hundred names, where looking
// at each file took one (fstatat, about 1.3 us a file: 2,000 files, 2.6 ms, on the critical path
// of a run's start). `listed` is false when the directory cannot be searched (a name listed in it
// could not be opened: fstatat fails there), cannot be read (no read permission, which fstatat does
// not need) or lists more names than `budget` has left (FeatureFilesPresent's listing_limit, for all
// directories together, so that directories much larger than the manifest's share of them are not
// read whole): its files are then looked at one by one. Every name read counts against the budget,
// listed or not.
struct DirectoryListing {
  bool listed = false;
  std::unordered_map<std::string_view, unsigned char> types;  // views into `names`
  std::deque<std::string> names;
};

DirectoryListing ListDirectory(int root, const std::string& dir, std::size_t& budget) {
  DirectoryListing listing;
  const char* name = dir.empty() ? "." : dir.c_str();
  if (budget == 0 || ::faccessat(root, name, X_OK, AT_EACCESS) != 0) return listing;
  const int fd = ::openat(root, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return listing;
  DIR* stream = ::fdopendir(fd);
  if (stream == nullptr) {
    ::close(fd);
    return listing;
  }
  listing.listed = true;
  errno = 0;
  while (const dirent* entry = ::readdir(stream)) {
    if (budget == 0) {
      listing.listed = false;
      break;
    }
    --budget;
    listing.types.emplace(listing.names.emplace_back(entry->d_name), entry->d_type);
  }
  if (errno != 0) listing.listed = false;  // a read error: look at the files instead
  ::closedir(stream);
  if (!listing.listed) {
    listing.types.clear();
    listing.names.clear();
  }
  return listing;
}

}  // namespace

bool FeatureFilesPresent(const Manifest& manifest, const fs::path& corpus_root, std::size_t listing_limit) {
  // Relative to the corpus root opened once: the kernel walks only the manifest's relative path,
  // and no path is built. A feature path is relative without "." or ".." components (Manifest
  // checks it), so this is the file ResolveFeaturePath names, symbolic links followed as
  // std::filesystem::status does. Each directory of the feature paths is listed once
  // (DirectoryListing); a file listed as a regular file is there, one listed as anything but a
  // regular file or a symbolic link is not, and a symbolic link or an unknown type (a file system
  // without d_type), or a directory that was not listed, is looked at with fstatat. The root is
  // opened with O_PATH, which needs only search permission, as looking up a path under it does.
  // Any failure (the root not a directory, a file missing) answers false: CheckManifest then finds
  // and names the problem.
  const int root = ::open(corpus_root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) return false;
  const std::size_t root_length = corpus_root.native().size();
  std::size_t budget = listing_limit != 0 ? listing_limit : 4 * manifest.size() + 1024;  // names, all directories
  std::map<std::string, DirectoryListing, std::less<>> listings;
  auto listing = listings.end();
  bool present = true;
  for (const ManifestEntry& entry : manifest.entries()) {
    // The readers open the joined path, which the kernel refuses from PATH_MAX bytes on (with its
    // terminating NUL): such a file is not there for them, whatever fstatat says.
    if (root_length + 1 + entry.feature_path.size() >= PATH_MAX) {
      present = false;
      break;
    }
    const std::string_view path = entry.feature_path;
    const std::size_t slash = path.rfind('/');
    const std::string_view dir = slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
    // Consecutive entries usually share their directory.
    if (listing == listings.end() || listing->first != dir) {
      listing = listings.find(dir);
      if (listing == listings.end()) listing = listings.emplace(std::string(dir), ListDirectory(root, std::string(dir), budget)).first;
    }
    if (listing->second.listed) {
      const auto found = listing->second.types.find(path.substr(slash + 1));
      if (found == listing->second.types.end() || (found->second != DT_REG && found->second != DT_LNK && found->second != DT_UNKNOWN)) {
        present = false;
        break;
      }
      if (found->second == DT_REG) continue;
    }
    struct stat status;
    if (::fstatat(root, entry.feature_path.c_str(), &status, 0) != 0 || !S_ISREG(status.st_mode)) {
      present = false;
      break;
    }
  }
  ::close(root);
  return present;
}

void CheckWords(const Manifest& manifest, const Dictionary& merged) {
  std::size_t n_affected = 0;
  std::string first_failure;
  for (const ManifestEntry& entry : manifest.entries()) {
    std::vector<std::string> unknown;  // distinct, in transcript order
    for (const std::string& word : entry.words) {
      if (merged.Find(word) != nullptr) continue;
      bool seen = false;
      for (const std::string& known_unknown : unknown) seen = seen || known_unknown == word;
      if (!seen) unknown.push_back(word);
    }
    if (unknown.empty()) continue;
    if (++n_affected == 1) {
      std::string list;
      for (const std::string& word : unknown) list += (list.empty() ? "" : ", ") + Printable(word);
      first_failure = "utterance " + Quoted(entry.utt_id) + ": word" + (unknown.size() > 1 ? "s" : "") +
                      " not in the dictionary: " + list;
    }
  }
  if (n_affected > 0) {
    throw FileError(manifest.source(), first_failure + " (" + std::to_string(n_affected) + " of " +
                                           std::to_string(manifest.size()) + " utterances have unknown words)");
  }
}

}  // namespace pstrain
