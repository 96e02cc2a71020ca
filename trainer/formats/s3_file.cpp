// Reading and writing the SphinxTrain "s3" binary container (header, byte order, checksum).
#include "formats/s3_file.h"

#include <bit>
#include <cstring>
#include <stdexcept>

#include "common/error.h"
#include "common/file_io.h"

namespace pstrain {

namespace {

constexpr std::uint32_t kByteOrderMagic = 0x11223344u;

}  // namespace

std::vector<std::pair<std::string, std::string>> StandardS3Header() {
  return {{"version", "1.0"}, {"chksum0", "yes"}};
}

std::uint32_t S3Checksum(const std::vector<std::uint32_t>& words) {
  std::uint32_t sum = 0;
  for (std::uint32_t w : words) sum = S3ChecksumStep(sum, w);
  return sum;
}

std::uint32_t S3View::Word(std::size_t i) const { return LoadS3Word(payload + 4 * i, byte_order); }

bool S3HeaderLines::Add(std::string_view line) {
  if (!started_) {
    if (line != "s3") End();
    started_ = true;
    return false;
  }
  const std::size_t first = line.find_first_not_of(" \t");
  if (first != std::string_view::npos && line.compare(first, std::string_view::npos, "endhdr") == 0) return true;
  if (first == std::string_view::npos) throw FileError(path_, "blank line inside the s3 header");
  const std::size_t space = line.find(' ', first);
  if (space == std::string_view::npos) throw FileError(path_, "s3 header line without a value: " + Quoted(line));
  header_.emplace_back(line.substr(first, space - first), line.substr(space + 1));
  return false;
}

void S3HeaderLines::End() const {
  if (!started_) throw FileError(path_, "not an s3 binary file (first line is not \"s3\")");
  throw FileError(path_, "s3 header is not terminated by \"endhdr\" (file truncated?)");
}

void S3HeaderLines::Finish() {
  bool version_ok = false;
  for (const auto& [key, value] : header_) {
    if (key == "version") {
      if (value != "1.0") throw FileError(path_, "unsupported s3 version " + Quoted(value) + " (expected 1.0)");
      version_ok = true;
    } else if (key == "chksum0") {
      has_checksum_ = (value == "yes");
    }
  }
  if (!version_ok) throw FileError(path_, "s3 header has no \"version\" key");
}

void CheckS3FileSize(std::uint64_t size, const std::string& path) {
  if (size < 3) throw FileError(path, "empty or truncated s3 file (" + std::to_string(size) + " bytes)");
}

void CheckS3Payload(std::uint64_t after_header, const std::uint8_t* magic, S3View& view, const std::string& path) {
  if (after_header < 4) throw FileError(path, "truncated: no byte-order magic after the header");
  const std::uint32_t word = LoadS3Word(magic, ByteOrder::kLittle);
  if (word == kByteOrderMagic) {
    view.byte_order = ByteOrder::kLittle;
  } else if (word == S3ByteSwap(kByteOrderMagic)) {
    view.byte_order = ByteOrder::kBig;
  } else {
    throw FileError(path, "bad byte-order magic word (corrupt file)");
  }
  const std::uint64_t remaining = after_header - 4;
  if (remaining % 4 != 0) {
    throw FileError(path, "payload size " + std::to_string(remaining) + " is not a multiple of 4 bytes (truncated?)");
  }
  view.n_words = static_cast<std::size_t>(remaining / 4);
  if (view.has_checksum) {
    if (view.n_words == 0) throw FileError(path, "truncated: checksum missing");
    --view.n_words;
  }
}

void CheckS3Checksum(std::uint32_t stored, std::uint32_t computed, const std::string& path) {
  if (stored != computed) {
    throw FileError(path, "checksum mismatch (stored " + std::to_string(stored) + ", computed " + std::to_string(computed) +
                              "): the file is corrupt or truncated");
  }
}

void CheckS3WordsLeft(std::size_t count, std::size_t left, const char* field, const std::string& path) {
  if (left < count) {
    throw FileError(path, std::string("truncated: payload ends inside ") + field + " (needs " + std::to_string(count) + " more words, " +
                              std::to_string(left) + " left)");
  }
}

void CheckS3ArrayCount(std::uint32_t n, std::size_t expected, const char* field, const std::string& path) {
  if (n != expected) {
    throw FileError(path, std::string(field) + ": element count " + std::to_string(n) + " does not match the dimensions (expected " +
                              std::to_string(expected) + ")");
  }
}

void CheckS3NoWordsLeft(std::size_t left, const std::string& path) {
  if (left != 0) throw FileError(path, "wrong size: " + std::to_string(left) + " unexpected words after the payload");
}

S3View ParseS3View(const std::vector<std::uint8_t>& bytes, const std::string& path) {
  CheckS3FileSize(bytes.size(), path);
  S3HeaderLines lines(path);
  std::size_t pos = 0;
  for (;;) {
    const auto* first = bytes.data() + pos;
    const auto* newline = static_cast<const std::uint8_t*>(std::memchr(first, '\n', bytes.size() - pos));
    if (newline == nullptr) lines.End();  // a header line must end in '\n'
    pos = static_cast<std::size_t>(newline - bytes.data()) + 1;
    if (lines.Add(std::string_view(reinterpret_cast<const char*>(first), static_cast<std::size_t>(newline - first)))) break;
  }
  lines.Finish();
  S3View file;
  file.header = std::move(lines.header());
  file.has_checksum = lines.has_checksum();
  CheckS3Payload(bytes.size() - pos, bytes.data() + pos, file, path);
  file.payload = bytes.data() + pos + 4;
  if (file.has_checksum) {
    std::uint32_t computed = 0;
    for (std::size_t i = 0; i < file.n_words; ++i) computed = S3ChecksumStep(computed, file.Word(i));
    CheckS3Checksum(file.Word(file.n_words), computed, path);
  }
  return file;
}

S3File ParseS3(const std::vector<std::uint8_t>& bytes, const std::string& path) {
  S3View view = ParseS3View(bytes, path);
  S3File file;
  file.header = std::move(view.header);
  file.byte_order = view.byte_order;
  file.has_checksum = view.has_checksum;
  file.words.resize(view.n_words);
  for (std::size_t i = 0; i < view.n_words; ++i) file.words[i] = view.Word(i);
  return file;
}

S3File ReadS3(const std::string& path) { return ParseS3(ReadFileBytes(path), path); }

namespace {

// The header's text through "endhdr\n", padded with spaces before "endhdr\n" so that the magic
// word after it starts on an 8-byte boundary.
std::string S3HeaderText(const std::vector<std::pair<std::string, std::string>>& header) {
  std::string head = "s3\n";
  for (const auto& [key, value] : header) head += key + " " + value + "\n";
  std::size_t unpadded = head.size() + 7;
  std::size_t padding = (8 - unpadded % 8) % 8;
  head.append(padding, ' ');
  head += "endhdr\n";
  return head;
}

}  // namespace

std::size_t StandardS3HeaderBytes() {
  static const std::size_t bytes = S3HeaderText(StandardS3Header()).size();
  return bytes;
}

S3StreamEncoder::S3StreamEncoder(ByteSink sink) : sink_(std::move(sink)), buffer_(new std::uint8_t[kPieceBytes]) {
  const std::string head = S3HeaderText(StandardS3Header());
  if (head.size() > kPieceBytes) throw std::logic_error("S3StreamEncoder: header longer than a piece");
  std::memcpy(buffer_.get(), head.data(), head.size());
  used_ = head.size();
  Store(kByteOrderMagic);
}

void S3StreamEncoder::Flush() {
  if (used_ > 0) sink_(buffer_.get(), used_);
  used_ = 0;
}

void S3StreamEncoder::Finish() {
  Store(checksum_);
  Flush();
}

std::vector<std::uint8_t> EncodeS3(const S3File& file) {
  const std::string head = S3HeaderText(file.header);
  std::vector<std::uint8_t> out(head.size() + 4 * (1 + file.words.size() + (file.has_checksum ? 1 : 0)));
  std::memcpy(out.data(), head.data(), head.size());
  std::uint8_t* word = out.data() + head.size();
  StoreS3Word(word, kByteOrderMagic, file.byte_order);
  for (std::uint32_t w : file.words) StoreS3Word(word += 4, w, file.byte_order);
  if (file.has_checksum) StoreS3Word(word += 4, S3Checksum(file.words), file.byte_order);
  return out;
}

void S3Cursor::Need(std::size_t count, const char* field) const { CheckS3WordsLeft(count, file_.n_words - pos_, field, path_); }

std::uint32_t S3Cursor::U32(const char* field) {
  Need(1, field);
  return file_.Word(pos_++);
}

std::vector<float> S3Cursor::Floats(std::size_t count, const char* field) {
  Need(count, field);
  std::vector<float> out(count);
  if (file_.byte_order == ByteOrder::kLittle && std::endian::native == std::endian::little) {
    if (count > 0) std::memcpy(out.data(), file_.payload + 4 * pos_, 4 * count);
  } else {
    for (std::size_t i = 0; i < count; ++i) out[i] = BitsToFloat(file_.Word(pos_ + i));
  }
  pos_ += count;
  return out;
}

std::vector<float> S3Cursor::FloatArray1D(std::size_t expected, const char* field, bool keep) {
  const std::uint32_t n = U32(field);
  CheckS3ArrayCount(n, expected, field, path_);
  if (keep) return Floats(n, field);
  Need(n, field);
  pos_ += n;
  return {};
}

void S3Cursor::ExpectEnd() { CheckS3NoWordsLeft(file_.n_words - pos_, path_); }

}  // namespace pstrain
