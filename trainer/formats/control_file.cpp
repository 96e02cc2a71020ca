// SphinxTrain control files and transcripts.
//
// Rules beyond the header, shared by both file kinds:
//   * Line endings: LF or CRLF. Leading and trailing spaces/tabs and a trailing CR are trimmed, as
//     SphinxTrain's line reader trims whitespace, so CRLF files read the same as LF files. Any other
//     control character (a CR inside a line, NUL, ...) is an InputError naming the file and line.
//   * Lines whose first non-blank character is '#' are comments and skipped; they still count for
//     line numbers. Control-file and transcript entries are paired by entry index, comments excluded
//     (SphinxTrain skips comment lines in both files too).
//   * A blank (or whitespace-only) line followed later by another entry is an InputError naming the
//     blank line (SphinxTrain would silently stop there); blank lines at the end are accepted.
//   * Fields are separated by runs of spaces or tabs (SphinxTrain wants single spaces).
// Control files: 1 field = `path`; 3 = `path sf ef`; 4 = `path sf ef uttid`; anything else is an
// error. sf and ef are decimal integers with 0 <= sf <= ef. A path ending in '/' has no uttid: error.
// Transcripts: see ParseTranscriptLine. Unlike SphinxTrain, which warns or ignores, these are errors:
// a final ')' without '(' before it, an empty id "()", an id containing whitespace, and a line with no
// words (SphinxTrain aborts on the last one too). Lookup of the id follows SphinxTrain exactly: a final
// "(...)" is the id even when it is glued to a word, so "TEN OF(2)" has words {TEN, OF} and id "2";
// "TEN OF(2) CLUBS (001)" has words {TEN, OF(2), CLUBS} and id "001".
#include "formats/control_file.h"

#include <cstdio>

#include "common/error.h"
#include "common/file_io.h"

namespace pstrain {

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// One physical line of a text file, trimmed of leading/trailing spaces, tabs and a trailing CR.
struct TextLine {
  std::string text;
  std::size_t line_number = 0;
};

std::vector<TextLine> SplitLines(const std::string& text) {
  std::vector<TextLine> lines;
  std::size_t line_begin = 0;
  std::size_t line_number = 0;
  while (line_begin < text.size()) {
    std::size_t line_end = text.find('\n', line_begin);
    if (line_end == std::string::npos) line_end = text.size();
    std::size_t first = line_begin;
    std::size_t last = line_end;
    while (last > first && (IsBlank(text[last - 1]) || text[last - 1] == '\r')) --last;
    while (first < last && IsBlank(text[first])) ++first;
    lines.push_back({text.substr(first, last - first), ++line_number});
    line_begin = line_end + 1;
  }
  return lines;
}

// Error text for the first control character (other than tab) in `line`, or empty.
std::string ControlCharProblem(const std::string& line) {
  for (char c : line) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\t') || byte == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(byte));
      return std::string("control character ") + hex + " in line " + Quoted(line) +
             (c == '\r' ? " (a CR is only accepted at the end of a line)" : "");
    }
  }
  return {};
}

std::vector<std::string> SplitFields(const std::string& text) {
  std::vector<std::string> fields;
  std::size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && IsBlank(text[pos])) ++pos;
    const std::size_t start = pos;
    while (pos < text.size() && !IsBlank(text[pos])) ++pos;
    if (pos > start) fields.push_back(text.substr(start, pos - start));
  }
  return fields;
}

// Entry lines of a control file or transcript: comments dropped, blank-line rule enforced.
std::vector<TextLine> EntryLines(const std::string& text, const std::string& path, const char* what) {
  std::vector<TextLine> entries;
  std::size_t first_blank_line = 0;  // 0 = none seen yet
  for (TextLine& line : SplitLines(text)) {
    if (line.text.empty()) {
      if (first_blank_line == 0) first_blank_line = line.line_number;
      continue;
    }
    if (line.text[0] == '#') continue;
    if (first_blank_line != 0) {
      throw RecordError(path, first_blank_line,
                        std::string("blank line inside the ") + what + " (more entries follow at line " +
                            std::to_string(line.line_number) +
                            "; SphinxTrain would stop reading here): remove the blank line");
    }
    if (std::string problem = ControlCharProblem(line.text); !problem.empty()) {
      throw RecordError(path, line.line_number, problem);
    }
    entries.push_back(std::move(line));
  }
  return entries;
}

// Parses a non-negative decimal frame index; false when `text` is not one.
bool ParseFrame(const std::string& text, long* value) {
  constexpr std::size_t kMaxDigits = 18;  // fits in a 64-bit long
  if (text.empty() || text.size() > kMaxDigits) return false;
  long result = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    result = result * 10 + (c - '0');
  }
  *value = result;
  return true;
}

// Parses one transcript line; returns an error text (empty when fine).
std::string ParseTranscript(const std::string& raw_line, std::size_t line_number, TranscriptEntry* entry) {
  entry->words.clear();
  entry->utt_id.clear();
  entry->line_number = line_number;
  std::size_t end = raw_line.size();
  while (end > 0 && (IsBlank(raw_line[end - 1]) || raw_line[end - 1] == '\r' || raw_line[end - 1] == '\n')) {
    --end;
  }
  const std::string line = raw_line.substr(0, end);
  if (std::string problem = ControlCharProblem(line); !problem.empty()) return problem;

  std::string text = line;
  if (!line.empty() && line.back() == ')') {
    const std::size_t open = line.rfind('(');
    if (open == std::string::npos) {
      return "line ends with ')' but has no '(' before it (expected `words ... (uttid)`)";
    }
    entry->utt_id = line.substr(open + 1, line.size() - open - 2);
    if (entry->utt_id.empty()) return "empty utterance id \"()\"";
    for (char c : entry->utt_id) {
      if (IsBlank(c)) return "utterance id " + Quoted(entry->utt_id) + " contains whitespace";
    }
    text = line.substr(0, open);
  }
  entry->words = SplitFields(text);
  if (entry->words.empty()) {
    return entry->utt_id.empty() ? "empty transcript" : "no words before the utterance id (" + entry->utt_id + ")";
  }
  return {};
}

}  // namespace

std::vector<ControlEntry> ParseControlFile(const std::string& text, const std::string& path) {
  std::vector<ControlEntry> entries;
  for (const TextLine& line : EntryLines(text, path, "control file")) {
    const std::vector<std::string> fields = SplitFields(line.text);
    if (fields.size() != 1 && fields.size() != 3 && fields.size() != 4) {
      throw RecordError(path, line.line_number,
                        "expected `path` or `path start_frame end_frame [uttid]`, found " +
                            std::to_string(fields.size()) + " fields");
    }
    ControlEntry entry;
    entry.path = fields[0];
    entry.line_number = line.line_number;
    if (fields.size() >= 3) {
      if (!ParseFrame(fields[1], &entry.start_frame)) {
        throw RecordError(path, line.line_number, "start frame " + Quoted(fields[1]) + " is not a non-negative integer");
      }
      if (!ParseFrame(fields[2], &entry.end_frame)) {
        throw RecordError(path, line.line_number, "end frame " + Quoted(fields[2]) + " is not a non-negative integer");
      }
      if (entry.start_frame > entry.end_frame) {
        throw RecordError(path, line.line_number,
                          "start frame " + fields[1] + " is after end frame " + fields[2]);
      }
    }
    if (fields.size() == 4) {
      entry.utt_id = fields[3];
    } else {
      const std::size_t slash = entry.path.rfind('/');
      entry.utt_id = slash == std::string::npos ? entry.path : entry.path.substr(slash + 1);
      if (entry.utt_id.empty()) {
        throw RecordError(path, line.line_number,
                          "path " + Quoted(entry.path) + " ends with '/': no utterance id can be derived from it");
      }
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::vector<ControlEntry> LoadControlFile(const std::string& path) {
  return ParseControlFile(ReadFileText(path), path);
}

TranscriptEntry ParseTranscriptLine(const std::string& line, std::size_t line_number) {
  TranscriptEntry entry;
  if (std::string problem = ParseTranscript(line, line_number, &entry); !problem.empty()) {
    throw InputError("transcript line " + std::to_string(line_number) + ": " + problem);
  }
  return entry;
}

std::vector<TranscriptEntry> ParseTranscriptFile(const std::string& text, const std::string& path) {
  std::vector<TranscriptEntry> entries;
  for (const TextLine& line : EntryLines(text, path, "transcript file")) {
    TranscriptEntry entry;
    if (std::string problem = ParseTranscript(line.text, line.line_number, &entry); !problem.empty()) {
      throw RecordError(path, line.line_number, problem);
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::vector<TranscriptEntry> LoadTranscriptFile(const std::string& path) {
  return ParseTranscriptFile(ReadFileText(path), path);
}

}  // namespace pstrain
