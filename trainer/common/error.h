// Errors that end an operation. Two kinds, because callers act differently on them:
//   InputError    - the input is wrong (bad file, bad record, bad flag). Rerunning will not help until
//                   the input is fixed. `pstrain` exits 2.
//   TrainingError - the inputs were readable but training could not proceed (e.g. no utterance
//                   aligned, a write failed). `pstrain` exits 1.
// Messages always name the file (and the record, where there is one) and the problem.
//
// Messages quote file content with Quoted() (or Printable()), which escapes what would not print
// as itself: a NUL byte would otherwise end the message (what() is a C string) and cut off the
// reason, and control characters or invalid UTF-8 would garble the terminal. As a safety net, the
// constructors escape whatever unprintable bytes are left in the message (SanitizedMessage).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pstrain {

// `text` with every byte that would not print as itself escaped: NUL and the other C0 control
// characters and DEL as \xNN (\t, \n and \r as such), a backslash as \\, each byte that is not part
// of valid UTF-8 as \xNN, and invisible or reordering code points (C1 controls, bidirectional
// controls, zero-width characters, line and paragraph separators, the byte order mark) as \uXXXX.
// Printable ASCII and other valid UTF-8 are kept.
std::string Printable(std::string_view text);

// `"text"` with Printable's escapes and \" for a double quote: how a message quotes file content.
// Content longer than `max_bytes` is cut (at a character boundary) and followed by
// ` (+N more bytes)`.
std::string Quoted(std::string_view text, std::size_t max_bytes = 256);

// What the error constructors apply to every message: Printable's escapes except that tabs and
// newlines (a message's own line structure), backslashes and quotes are kept, so a message whose
// content was already quoted is unchanged.
std::string SanitizedMessage(std::string_view message);

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(SanitizedMessage(message)) {}
};

class TrainingError : public std::runtime_error {
 public:
  explicit TrainingError(const std::string& message) : std::runtime_error(SanitizedMessage(message)) {}
};

// "FILE: what" — the common prefix for errors about one file.
inline InputError FileError(const std::string& path, const std::string& what) {
  return InputError(path + ": " + what);
}

// "FILE:LINE: what" — for errors about one record of a text file (line numbers start at 1).
inline InputError RecordError(const std::string& path, std::size_t line_number, const std::string& what) {
  return InputError(path + ":" + std::to_string(line_number) + ": " + what);
}

}  // namespace pstrain
