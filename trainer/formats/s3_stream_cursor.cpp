// Checking an s3 file read forward a piece at a time.
#include "formats/s3_stream_cursor.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace pstrain {

S3StreamCursor::S3StreamCursor(const std::filesystem::path& path, ByteSink on_bytes, std::size_t piece_bytes)
    : path_(path.string()),
      file_(path),
      on_bytes_(std::move(on_bytes)),
      piece_bytes_(std::max<std::size_t>(piece_bytes, 1)),
      buffer_(piece_bytes_ + 8) {}

void S3StreamCursor::Fill(std::size_t n) {
  if (end_ - begin_ >= n) return;
  std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
  end_ -= begin_;
  begin_ = 0;
  while (end_ < n && file_.left() > 0) {
    const std::size_t got = file_.Read(buffer_.data() + end_, std::min(piece_bytes_, buffer_.size() - end_));
    if (on_bytes_) on_bytes_(buffer_.data() + end_, got);
    end_ += got;
  }
}

void S3StreamCursor::ReadHeader() {
  CheckS3FileSize(file_.size(), path_);
  S3HeaderLines lines(path_);
  std::string line;
  std::uint64_t header_bytes = 0;  // consumed: the header's lines and their '\n'
  for (;;) {
    Fill(1);
    if (begin_ == end_) lines.End();  // a header line must end in '\n'
    const std::uint8_t* first = buffer_.data() + begin_;
    const auto* newline = static_cast<const std::uint8_t*>(std::memchr(first, '\n', end_ - begin_));
    const std::size_t taken = newline != nullptr ? static_cast<std::size_t>(newline - first) : end_ - begin_;
    line.append(reinterpret_cast<const char*>(first), taken);
    begin_ += taken;
    header_bytes += taken;
    if (newline == nullptr) continue;
    ++begin_;
    ++header_bytes;
    if (lines.Add(line)) break;
    line.clear();
  }
  lines.Finish();
  layout_.has_checksum = lines.has_checksum();
  Fill(4);
  CheckS3Payload(file_.size() - header_bytes, buffer_.data() + begin_, layout_, path_);
  begin_ += 4;
  header_read_ = true;
}

std::uint32_t S3StreamCursor::NextWord() {
  Fill(4);
  if (end_ - begin_ < 4) throw std::logic_error("S3StreamCursor: the file ended inside a word");  // its reader gives every byte
  const std::uint32_t word = LoadS3Word(buffer_.data() + begin_, layout_.byte_order);
  begin_ += 4;
  return word;
}

void S3StreamCursor::Skip(std::size_t n_words) {
  while (n_words > 0) {
    Fill(4);
    if (end_ - begin_ < 4) throw std::logic_error("S3StreamCursor: the file ended inside a word");
    const std::size_t n = std::min(n_words, (end_ - begin_) / 4);
    const std::uint8_t* words = buffer_.data() + begin_;
    std::uint32_t sum = checksum_;
    for (std::size_t i = 0; i < n; ++i) sum = S3ChecksumStep(sum, LoadS3Word(words + 4 * i, layout_.byte_order));
    checksum_ = sum;
    begin_ += 4 * n;
    pos_ += n;
    n_words -= n;
  }
}

std::uint32_t S3StreamCursor::U32(const char* field) {
  CheckS3WordsLeft(1, layout_.n_words - pos_, field, path_);
  const std::uint32_t word = NextWord();
  checksum_ = S3ChecksumStep(checksum_, word);
  ++pos_;
  return word;
}

std::vector<float> S3StreamCursor::FloatArray1D(std::size_t expected, const char* field, bool keep) {
  if (keep) throw std::logic_error("S3StreamCursor::FloatArray1D: the cursor keeps no values");
  const std::uint32_t n = U32(field);
  CheckS3ArrayCount(n, expected, field, path_);
  CheckS3WordsLeft(n, layout_.n_words - pos_, field, path_);
  Skip(n);
  return {};
}

void S3StreamCursor::ExpectEnd() { CheckS3NoWordsLeft(layout_.n_words - pos_, path_); }

void S3StreamCursor::Finish() {
  if (!header_read_) {
    while (file_.left() > 0) {
      begin_ = end_ = 0;
      Fill(piece_bytes_);
    }
    return;
  }
  Skip(layout_.n_words - pos_);
  if (layout_.has_checksum) CheckS3Checksum(NextWord(), checksum_, path_);
}

}  // namespace pstrain
