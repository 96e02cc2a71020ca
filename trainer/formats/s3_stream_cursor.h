// Checking an s3 file read forward a piece at a time, so that a large one is never held whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "formats/s3_file.h"

namespace pstrain {

// The regular file at `path` read forward in pieces of `piece_bytes`, with ParseS3View's container
// checks and S3Cursor's reads, each check with the same message. The payload's values are skipped,
// never kept: a check-only decoder (FloatArray1D without keep) runs in a piece's memory (and a
// header line's: a corrupt file without a line end is held until its end, as ParseS3View holds
// it). Every byte of the file goes to `on_bytes` (when set) once, in file order, as it is read,
// so that a caller can hash the file in the same read.
//
// ParseS3View checks the checksum before a decoder reads the payload; this cursor knows it only at
// the end of the file. Finish() reads what is left, giving it to `on_bytes`, and checks the
// checksum. CheckS3FileForward below calls it also after a decoder's error, so that a corrupt file
// gets ParseS3View's checksum message, as its decoder would report it.
class S3StreamCursor {
 public:
  // Opens the file (throws InputError naming the file).
  S3StreamCursor(const std::filesystem::path& path, ByteSink on_bytes, std::size_t piece_bytes = kS3StreamPieceBytes);

  // Reads and checks the header and the layout after it; first, before the reads below.
  void ReadHeader();

  std::uint32_t U32(const char* field);
  // A 1-D array: its count (which must be `expected`), then its values skipped. `keep` must be
  // false (the values are not kept; the parameter is S3Cursor's, so a decoder runs on either).
  std::vector<float> FloatArray1D(std::size_t expected, const char* field, bool keep);
  void ExpectEnd();
  // Reads the rest of the file; once the header has been read, checks the checksum.
  void Finish();

 private:
  // Makes at least `n` bytes available at begin_ (fewer only at the end of the file).
  void Fill(std::size_t n);
  std::uint32_t NextWord();
  void Skip(std::size_t n_words);

  std::string path_;
  RegularFileReader file_;
  ByteSink on_bytes_;
  std::size_t piece_bytes_;
  std::vector<std::uint8_t> buffer_;  // read bytes [begin_, end_) not yet consumed
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool header_read_ = false;
  S3View layout_;                // byte order, words and checksum flag; no payload pointer
  std::size_t pos_ = 0;          // payload words consumed
  std::uint32_t checksum_ = 0;   // of the words consumed
};

// from(cursor, path, false) on the file at `path` read forward: the verdict and the message its
// check-only decoder gives on the file's bytes (ParseS3View, then from on an S3Cursor), with every
// byte of the file given to `on_bytes` unless the file cannot be read.
template <typename From>
void CheckS3FileForward(const std::filesystem::path& path, const ByteSink& on_bytes, std::size_t piece_bytes, From from) {
  S3StreamCursor in(path, on_bytes, piece_bytes);
  try {
    in.ReadHeader();
    from(in, path.string(), /*keep=*/false);
  } catch (const InputError&) {
    in.Finish();  // the rest is hashed, and a checksum error is reported first, as ParseS3View reports it
    throw;
  }
  in.Finish();
}

}  // namespace pstrain
