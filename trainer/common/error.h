// Errors that end an operation. Two kinds, because callers act differently on them:
//   InputError    - the input is wrong (bad file, bad record, bad flag). Rerunning will not help until
//                   the input is fixed. `pstrain` exits 2.
//   TrainingError - the inputs were readable but training could not proceed (e.g. no utterance
//                   aligned, a write failed). `pstrain` exits 1.
// Messages always name the file (and the record, where there is one) and the problem.
#pragma once

#include <stdexcept>
#include <string>

namespace pstrain {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

class TrainingError : public std::runtime_error {
 public:
  explicit TrainingError(const std::string& message) : std::runtime_error(message) {}
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
