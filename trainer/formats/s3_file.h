// The SphinxTrain "s3" binary container used by means, variances, mixture_weights,
// transition_matrices and the accumulator files gauden_counts, mixw_counts, tmat_counts.
//
//   s3\n  <key> <value>\n ...  <padding spaces>endhdr\n  uint32 0x11223344  payload  [checksum]
//
// Every payload element is a 4-byte word (uint32 dims/counts, IEEE float32 data), so the payload is
// held as native-order uint32 words. The byte-order magic tells the reader whether to swap; the
// checksum is `sum = rotl32(sum, 20) + word` over every payload word after swapping.
// See docs/formats.md.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/file_io.h"

namespace pstrain {

enum class ByteOrder { kLittle, kBig };

struct S3File {
  std::vector<std::pair<std::string, std::string>> header;  // key/value lines in file order
  std::vector<std::uint32_t> words;                         // payload, native values, no checksum
  ByteOrder byte_order = ByteOrder::kLittle;                // order the file was written in
  bool has_checksum = false;
};

// An s3 file whose container ParseS3View has checked, its payload words left in the file's bytes
// (which must outlive the view): no copy of the payload.
struct S3View {
  std::vector<std::pair<std::string, std::string>> header;  // key/value lines in file order
  const std::uint8_t* payload = nullptr;                    // the first word after the byte-order magic
  std::size_t n_words = 0;                                  // payload words, without the checksum
  ByteOrder byte_order = ByteOrder::kLittle;
  bool has_checksum = false;

  // The payload's word i (< n_words) as a native value.
  std::uint32_t Word(std::size_t i) const;
};

// Checks an s3 file's container: the header syntax, `version 1.0`, the byte-order magic and (when
// the header has `chksum0 yes`) the checksum. Errors name the file and the problem.
S3View ParseS3View(const std::vector<std::uint8_t>& bytes, const std::string& path);
// The same checks, with the payload copied into the S3File's words.
S3File ParseS3(const std::vector<std::uint8_t>& bytes, const std::string& path);
S3File ReadS3(const std::string& path);

// The checks ParseS3View and S3StreamCursor (s3_stream_cursor.h) share, each with its message.
//
// The header's lines in file order, each without its '\n': Add returns true at the end marker, and
// End (no '\n' before the file ended) throws. Finish, after the end marker, checks the keys.
class S3HeaderLines {
 public:
  explicit S3HeaderLines(std::string path) : path_(std::move(path)) {}
  bool Add(std::string_view line);
  [[noreturn]] void End() const;
  void Finish();
  bool has_checksum() const { return has_checksum_; }
  std::vector<std::pair<std::string, std::string>>& header() { return header_; }

 private:
  std::string path_;
  bool started_ = false;  // the first line ("s3") was seen
  bool has_checksum_ = false;
  std::vector<std::pair<std::string, std::string>> header_;
};
// A file of `size` bytes is long enough to be an s3 file.
void CheckS3FileSize(std::uint64_t size, const std::string& path);
// The layout after the header: `after_header` bytes, of which the first four (`magic`, read only
// when there are four) are the byte-order magic. Sets the payload's byte order and word count
// (without the checksum) into `view`.
void CheckS3Payload(std::uint64_t after_header, const std::uint8_t* magic, S3View& view, const std::string& path);
void CheckS3Checksum(std::uint32_t stored, std::uint32_t computed, const std::string& path);
// A cursor's read of `count` words of `field` with `left` words left; a 1-D array's element count
// `n` against the dimensions' `expected`; the words `left` after the last field.
void CheckS3WordsLeft(std::size_t count, std::size_t left, const char* field, const std::string& path);
void CheckS3ArrayCount(std::uint32_t n, std::size_t expected, const char* field, const std::string& path);
void CheckS3NoWordsLeft(std::size_t left, const std::string& path);

// Encodes header + payload exactly as SphinxTrain writes it: keys in the given order, spaces before
// `endhdr` so the magic starts on an 8-byte boundary, then payload words and the checksum when the
// header says `chksum0 yes`.
std::vector<std::uint8_t> EncodeS3(const S3File& file);

// The two header keys SphinxTrain writes: `version 1.0`, `chksum0 yes`.
std::vector<std::pair<std::string, std::string>> StandardS3Header();
// The length of StandardS3Header() as text in a file (up to and including its end marker).
std::size_t StandardS3HeaderBytes();

std::uint32_t S3Checksum(const std::vector<std::uint32_t>& words);
// One word's step of S3Checksum: the sum rotated left by 20 bits, plus the word.
inline std::uint32_t S3ChecksumStep(std::uint32_t sum, std::uint32_t word) { return std::rotl(sum, 20) + word; }
// A word with its bytes reversed (the other byte order's).
inline std::uint32_t S3ByteSwap(std::uint32_t v) { return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24); }
// The word at `in` (4 bytes) stored in `order`, as a native value. Inline: the streamed check of a
// count file calls it for every word (2.6 million in a large model's gauden_counts).
inline std::uint32_t LoadS3Word(const std::uint8_t* in, ByteOrder order) {
  std::uint32_t word;
  std::memcpy(&word, in, sizeof(word));
  if constexpr (std::endian::native == std::endian::big) word = S3ByteSwap(word);  // (the bytes as little-endian)
  return order == ByteOrder::kBig ? S3ByteSwap(word) : word;
}
// Writes `word` at `out` (4 bytes) in `order`.
inline void StoreS3Word(std::uint8_t* out, std::uint32_t word, ByteOrder order) {
  if (order == ByteOrder::kBig) word = S3ByteSwap(word);
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(out, &word, sizeof(word));
  } else {
    for (int i = 0; i < 4; ++i) out[i] = static_cast<std::uint8_t>((word >> (8 * i)) & 0xFF);
  }
}

inline std::uint32_t FloatBits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}
// The size of the pieces in which s3 files are streamed: written by S3StreamEncoder, read by
// S3StreamCursor (s3_stream_cursor.h).
inline constexpr std::size_t kS3StreamPieceBytes = std::size_t{64} << 10;

// EncodeS3's bytes for S3Builder's files (the standard header, little-endian, with the checksum),
// written piece by piece: the header and the byte-order magic first, each Word in order, then the
// checksum at Finish. `sink` gets the bytes in pieces of at most kPieceBytes, so a file of any size
// is written in that much memory. Nothing is written after an exception from `sink`.
class S3StreamEncoder {
 public:
  static constexpr std::size_t kPieceBytes = kS3StreamPieceBytes;
  explicit S3StreamEncoder(ByteSink sink);
  void Word(std::uint32_t word) {
    checksum_ = S3ChecksumStep(checksum_, word);
    Store(word);
  }
  // Word(FloatBits(v)) for each of the n values, in order.
  void Floats(const float* values, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) Word(FloatBits(values[i]));
  }
  void Finish();

 private:
  void Store(std::uint32_t word) {
    if (used_ + 4 > kPieceBytes) Flush();
    StoreS3Word(buffer_.get() + used_, word, ByteOrder::kLittle);
    used_ += 4;
  }
  void Flush();
  ByteSink sink_;
  std::unique_ptr<std::uint8_t[]> buffer_;  // kPieceBytes, of which used_ are filled
  std::size_t used_ = 0;
  std::uint32_t checksum_ = 0;
};

// The bytes of a standard s3 file (EncodeS3 of S3Builder's file) whose words `emit` gives to the
// encoder (without Finish), built in one buffer; `payload_words` is the number of words emit
// gives (the buffer is sized from it: a wrong count costs only a reallocation).
template <typename Emit>
std::vector<std::uint8_t> EncodeStandardS3(Emit&& emit, std::size_t payload_words) {
  std::vector<std::uint8_t> bytes;
  bytes.reserve(StandardS3HeaderBytes() + 4 * (payload_words + 2));
  S3StreamEncoder out([&bytes](const void* data, std::size_t size) {
    const auto* first = static_cast<const std::uint8_t*>(data);
    bytes.insert(bytes.end(), first, first + size);
  });
  emit(out);
  out.Finish();
  return bytes;
}

inline float BitsToFloat(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// Sequential reader over an s3 file's payload (an S3View) with errors that name the file and the
// field.
class S3Cursor {
 public:
  S3Cursor(const S3View& file, std::string path) : file_(file), path_(std::move(path)) {}

  std::uint32_t U32(const char* field);
  // Reads `count` float32 values.
  std::vector<float> Floats(std::size_t count, const char* field);
  // Reads a 1-D array: uint32 n, then n float32. Checks n == expected. Without `keep`, the same
  // checks (and errors) and an empty result: the cursor moves past the values (a check-only read).
  std::vector<float> FloatArray1D(std::size_t expected, const char* field, bool keep = true);
  // Fails unless every payload word was consumed.
  void ExpectEnd();

  std::size_t position() const { return pos_; }
  const std::string& path() const { return path_; }

 private:
  void Need(std::size_t count, const char* field) const;
  const S3View& file_;
  std::string path_;
  std::size_t pos_ = 0;
};

// Sequential builder of an S3File payload.
class S3Builder {
 public:
  S3Builder() { file_.header = StandardS3Header(); file_.has_checksum = true; }
  // Room for `words` more words, so that a large file's words are allocated once, not by doubling.
  void Reserve(std::size_t words) { file_.words.reserve(file_.words.size() + words); }
  void U32(std::uint32_t value) { file_.words.push_back(value); }
  void Floats(const std::vector<float>& values) {
    for (float v : values) file_.words.push_back(FloatBits(v));
  }
  void FloatArray1D(const std::vector<float>& values) {
    U32(static_cast<std::uint32_t>(values.size()));
    Floats(values);
  }
  S3File& file() { return file_; }

 private:
  S3File file_;
};

}  // namespace pstrain
