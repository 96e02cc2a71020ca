// SphinxTrain control files (`.fileids`, `-ctlfn`) and transcripts (`.transcription`, `-lsnfn`).
#pragma once

#include <string>
#include <vector>

namespace pstrain {

// One control-file line: `path` or `path start_frame end_frame [uttid]`.
struct ControlEntry {
  std::string path;          // relative feature path without extension
  std::string utt_id;        // explicit uttid, else the last path component
  long start_frame = -1;     // inclusive; -1 = whole file
  long end_frame = -1;       // inclusive; -1 = whole file
  std::size_t line_number = 0;
};

// Parses a control file. '#' lines are skipped. Unlike SphinxTrain (which silently stops at the
// first blank line), a blank line in the middle is an InputError naming the line; trailing blank
// lines at the end of the file are accepted.
std::vector<ControlEntry> ParseControlFile(const std::string& text, const std::string& path);
std::vector<ControlEntry> LoadControlFile(const std::string& path);

// One transcript line: `words ... (uttid)`.
struct TranscriptEntry {
  std::vector<std::string> words;
  std::string utt_id;  // empty when the line has no trailing "(id)"
  std::size_t line_number = 0;
};

// Parses a transcript line as SphinxTrain does: if the line (trimmed) ends with ')', the text from
// the last '(' is the utterance id and is removed with the whitespace before it.
TranscriptEntry ParseTranscriptLine(const std::string& line, std::size_t line_number);
std::vector<TranscriptEntry> ParseTranscriptFile(const std::string& text, const std::string& path);
std::vector<TranscriptEntry> LoadTranscriptFile(const std::string& path);

}  // namespace pstrain
