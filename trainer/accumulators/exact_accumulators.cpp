// ExactAccumulators: the exact adds, the reduction, the double view and the exact_counts encoding.
#include "accumulators/exact_accumulators.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <future>
#include <iterator>
#include <optional>
#include <span>
#include <system_error>
#include <utility>

#include "common/error.h"
#include "common/file_io.h"
#include "common/file_reader.h"
#include "common/parallel_for.h"
#include "common/piece_handoff.h"
#include "common/sha256.h"
#include "common/sha256_pair.h"

namespace pstrain {

namespace fs = std::filesystem;

namespace {

constexpr char kExactMagic[] = "PSTRAIN_EXACT_COUNTS_V2\n";
constexpr std::size_t kMagicLength = sizeof(kExactMagic) - 1;
constexpr std::size_t kHeaderWords = 6;

const char* BlockName(ExactAccumulators::Block block) {
  switch (block) {
    case ExactAccumulators::Block::kMixw: return "mixture-weight count";
    case ExactAccumulators::Block::kDnom: return "density occupancy (dnom)";
    case ExactAccumulators::Block::kMean: return "mean numerator";
    case ExactAccumulators::Block::kVar: return "variance numerator";
    case ExactAccumulators::Block::kTmat: return "transition count";
  }
  return "statistic";
}

void AppendU32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>((v >> (8 * i)) & 0xFF));
}

// exact_counts stores each value as 16 bytes of two's complement, least significant byte first: the
// memory layout of FixedPoint on a little-endian machine (x86-64, aarch64), copied as is there.
void StoreFixed(std::uint8_t* out, FixedPoint value) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(out, &value, sizeof(value));
  } else {
    UnsignedFixedPoint bits = static_cast<UnsignedFixedPoint>(value);
    for (int i = 0; i < 16; ++i) {
      out[i] = static_cast<std::uint8_t>(bits & 0xFF);
      bits >>= 8;
    }
  }
}

FixedPoint LoadFixed(const std::uint8_t* in) {
  if constexpr (std::endian::native == std::endian::little) {
    FixedPoint value;
    std::memcpy(&value, in, sizeof(value));
    return value;
  } else {
    UnsignedFixedPoint bits = 0;
    for (int i = 15; i >= 0; --i) bits = (bits << 8) | in[i];
    return static_cast<FixedPoint>(bits);
  }
}

// What Accumulators' float32 view of FromFixed(value) is, without the double copy.
std::vector<float> ToCountFloats(const CarrySaveSums& values, const char* what) {
  std::vector<float> out(values.size());
  double chunk[512];  // (the doubles of a chunk stay in the L1 cache)
  for (std::size_t first = 0; first < values.size(); first += std::size(chunk)) {
    const std::size_t n = std::min(std::size(chunk), values.size() - first);
    values.Doubles(first, n, chunk, what);
    for (std::size_t j = 0; j < n; ++j) out[first + j] = ClampTinyMagnitude(static_cast<float>(chunk[j]));
  }
  return out;
}

std::vector<double> ToDoubles(const CarrySaveSums& values, const char* what) {
  std::vector<double> out(values.size());
  values.Doubles(0, values.size(), out.data(), what);
  return out;
}

constexpr ExactAccumulators::Block kBlocks[] = {ExactAccumulators::Block::kMixw, ExactAccumulators::Block::kDnom,
                                                ExactAccumulators::Block::kMean, ExactAccumulators::Block::kVar,
                                                ExactAccumulators::Block::kTmat};

}  // namespace

ExactAccumulators::ExactAccumulators(const AccumulatorShape& shape, bool pass2var) : shape_(shape), pass2var_(pass2var) {
  const std::size_t n_dens = std::size_t(shape.n_senones) * shape.n_density;
  mixw_ = CarrySaveSums(n_dens);
  dnom_ = CarrySaveSums(n_dens);
  mean_ = CarrySaveSums(n_dens * shape.veclen);
  var_ = CarrySaveSums(n_dens * shape.veclen);
  tmat_ = CarrySaveSums(std::size_t(shape.n_tmat) * shape.n_emit_state * (shape.n_emit_state + 1));
}

CarrySaveSums& ExactAccumulators::BlockData(Block block) {
  return const_cast<CarrySaveSums&>(static_cast<const ExactAccumulators*>(this)->BlockData(block));
}

const CarrySaveSums& ExactAccumulators::BlockData(Block block) const {
  switch (block) {
    case Block::kMixw: return mixw_;
    case Block::kDnom: return dnom_;
    case Block::kMean: return mean_;
    case Block::kVar: return var_;
    case Block::kTmat: return tmat_;
  }
  return tmat_;
}

void ExactAccumulators::AddValue(Block block, std::size_t index, double value) {
  BlockData(block).AddValues(index, &value, 1, BlockName(block));
}

// Zeros add nothing to an exact sum, so the carry-save kernel may add them or skip them alike.
void ExactAccumulators::AddValues(Block block, std::size_t first, const double* values, std::size_t n) {
  BlockData(block).AddValues(first, values, n, BlockName(block));
}

void ExactAccumulators::Add(const ExactAccumulators& other, const std::string& what) {
  RequireSettled();
  other.RequireSettled();
  if (!(shape_ == other.shape_)) throw InputError(what + ": accumulator dimensions do not match");
  if (pass2var_ != other.pass2var_) throw InputError(what + ": mixes 2-pass and 1-pass variance accumulators");
  for (Block block : kBlocks) {
    CarrySaveSums& into = BlockData(block);
    const CarrySaveSums& from = other.BlockData(block);
    const char* name = BlockName(block);
    for (std::size_t i = 0; i < into.size(); ++i) into.AddFixedValue(i, from.Value(i, name), name);
  }
}

bool ExactAccumulators::operator==(const ExactAccumulators& other) const {
  RequireSettled();
  other.RequireSettled();
  if (!(shape_ == other.shape_) || pass2var_ != other.pass2var_) return false;
  for (Block block : kBlocks) {
    const CarrySaveSums& a = BlockData(block);
    const CarrySaveSums& b = other.BlockData(block);
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a.Value(i, BlockName(block)) != b.Value(i, BlockName(block))) return false;
    }
  }
  return true;
}

Accumulators ExactAccumulators::ToAccumulators(unsigned threads) const {
  RequireSettled();
  // Each block is built by its converter: no zero-filled arrays allocated first only to be replaced
  // (on a tied CD model 3 MB, a millisecond or two of page faults before the parallel part).
  Accumulators acc;
  acc.shape_ = shape_;
  acc.pass2var_ = pass2var_;
  std::vector<double>* into[] = {&acc.mixw_, &acc.dnom_, &acc.mean_, &acc.var_, &acc.tmat_};
  ParallelFor(std::size(kBlocks), threads, [&](std::size_t b) { *into[b] = ToDoubles(BlockData(kBlocks[b]), BlockName(kBlocks[b])); });
  return acc;
}

Accumulators ExactAccumulators::ToAccumulatorsWithoutGaussians() const {
  RequireSettled();
  Accumulators acc;
  acc.shape_ = shape_;
  acc.pass2var_ = pass2var_;
  acc.mixw_ = ToDoubles(mixw_, BlockName(Block::kMixw));
  acc.dnom_ = ToDoubles(dnom_, BlockName(Block::kDnom));
  acc.tmat_ = ToDoubles(tmat_, BlockName(Block::kTmat));
  return acc;
}

void ExactAccumulators::MeanDoubles(std::size_t first, std::size_t n, double* out) const {
  RequireSettled();
  mean_.Doubles(first, n, out, BlockName(Block::kMean));
}

void ExactAccumulators::VarDoubles(std::size_t first, std::size_t n, double* out) const {
  RequireSettled();
  var_.Doubles(first, n, out, BlockName(Block::kVar));
}

DoubleChunks ExactAccumulators::MeanChunks() const {
  return [this](std::size_t first, std::size_t n, double* out) { MeanDoubles(first, n, out); };
}

DoubleChunks ExactAccumulators::VarChunks() const {
  return [this](std::size_t first, std::size_t n, double* out) { VarDoubles(first, n, out); };
}

std::size_t ExactAccumulators::ExactCountsSize() const {
  return kMagicLength + 4 * kHeaderWords + 16 * (mixw_.size() + dnom_.size() + mean_.size() + var_.size() + tmat_.size());
}

void ExactAccumulators::EmitExactCounts(const ByteSink& sink) const {
  RequireSettled();
  EmitPieces(sink);
}

std::vector<std::uint8_t> ExactAccumulators::HeadBytes() const {
  std::vector<std::uint8_t> head(kExactMagic, kExactMagic + kMagicLength);
  for (std::uint32_t v : {shape_.n_senones, shape_.n_density, shape_.veclen, shape_.n_tmat, shape_.n_emit_state,
                          static_cast<std::uint32_t>(pass2var_ ? 1 : 0)}) {
    AppendU32(head, v);
  }
  return head;
}

void ExactAccumulators::EmitPieces(const ByteSink& sink) const {
  const std::vector<std::uint8_t> head = HeadBytes();
  sink(head.data(), head.size());
  // The values in pieces of 4,096 (64 KiB): a file of several megabytes is never held whole.
  constexpr std::size_t kPiece = kValuesPerPiece;
  std::vector<std::uint8_t> piece(16 * kPiece);
  std::vector<FixedPoint> values(kPiece);
  for (Block block : kBlocks) {
    const CarrySaveSums& sums = BlockData(block);
    const char* name = BlockName(block);
    for (std::size_t first = 0; first < sums.size(); first += kPiece) {
      const std::size_t n = std::min(kPiece, sums.size() - first);
      sums.ValuesInto(first, n, values.data(), name);
      for (std::size_t i = 0; i < n; ++i) StoreFixed(piece.data() + 16 * i, values[i]);
      sink(piece.data(), 16 * n);
    }
  }
}

std::vector<std::uint8_t> ExactAccumulators::EncodeExactCounts() const {
  std::vector<std::uint8_t> out;
  out.reserve(ExactCountsSize());  // the exact size up front: no doubling
  EmitExactCounts([&](const void* data, std::size_t size) {
    const auto* bytes = static_cast<const std::uint8_t*>(data);
    out.insert(out.end(), bytes, bytes + size);
  });
  return out;
}

template <typename ReadBytes, typename UsePiece>
void ExactAccumulators::ForEachPiece(ReadBytes&& read, UsePiece&& use) const {
  constexpr std::size_t kPiece = kValuesPerPiece;  // values per read: 64 KiB
  std::vector<std::uint8_t> piece(16 * kPiece);
  for (Block block : kBlocks) {
    const std::size_t size = BlockData(block).size();
    for (std::size_t first = 0; first < size; first += kPiece) {
      const std::size_t n = std::min(kPiece, size - first);
      read(piece.data(), 16 * n);
      use(block, first, piece.data(), n);
    }
  }
}

bool ExactAccumulators::Untouched() const {
  return carries_.empty() && std::all_of(std::begin(kBlocks), std::end(kBlocks), [this](Block block) { return BlockData(block).untouched(); });
}

template <typename ReadBytes>
void ExactAccumulators::ReadValues(ReadBytes&& read) {
  FixedPoint* base[std::size(kBlocks)] = {};
  try {
    ForEachPiece(read, [&](Block block, std::size_t first, const std::uint8_t* bytes, std::size_t n) {
      FixedPoint*& into = base[static_cast<std::size_t>(block)];
      if (into == nullptr) into = BlockData(block).UninitializedBase();  // (at the block's first piece)
      for (std::size_t i = 0; i < n; ++i) into[first + i] = LoadFixed(bytes + 16 * i);
    });
  } catch (...) {
    for (Block block : kBlocks) BlockData(block).Reset();
    throw;
  }
}

ExactAccumulators ExactAccumulators::DecodeExactCounts(const std::vector<std::uint8_t>& bytes, const std::string& path) {
  bool pass2var = false;
  const AccumulatorShape shape = CheckExactCounts(bytes.data(), bytes.size(), bytes.size(), path, pass2var);
  ExactAccumulators acc(shape, pass2var);
  std::size_t pos = kMagicLength + 4 * kHeaderWords;
  acc.ReadValues([&](std::uint8_t* into, std::size_t n) {
    std::memcpy(into, bytes.data() + pos, n);  // CheckExactCounts checked the size
    pos += n;
  });
  return acc;
}

std::size_t ExactAccumulators::ExactCountsHeaderSize() { return kMagicLength + 4 * kHeaderWords; }

AccumulatorShape ExactAccumulators::CheckExactCounts(const std::uint8_t* head, std::size_t head_size, std::uint64_t file_size,
                                                     const std::string& path, bool& pass2var) {
  if (head_size < kMagicLength + 4 * kHeaderWords || std::memcmp(head, kExactMagic, kMagicLength) != 0) {
    throw FileError(path, "not a pstrain exact_counts file (bad magic line or truncated header)");
  }
  std::uint32_t header[kHeaderWords];
  for (std::size_t w = 0; w < kHeaderWords; ++w) {
    header[w] = 0;
    for (int i = 0; i < 4; ++i) header[w] |= std::uint32_t(head[kMagicLength + 4 * w + i]) << (8 * i);
  }
  const AccumulatorShape shape{header[0], header[1], header[2], header[3], header[4]};
  if (header[5] > 1) throw FileError(path, "bad pass2var flag " + std::to_string(header[5]));
  // Overflow-checked: a header whose element count wraps in 64 bits must not pass the size check.
  std::uint64_t n_dens = 0, dens_elements = 0, mean_var = 0, tmat_states = 0, tmat = 0, n_elements = 0, payload = 0,
                expected_size = 0;
  const bool overflow =
      __builtin_mul_overflow(std::uint64_t(shape.n_senones), std::uint64_t(shape.n_density), &n_dens) ||
      __builtin_mul_overflow(n_dens, std::uint64_t(2), &dens_elements) ||
      __builtin_mul_overflow(dens_elements, std::uint64_t(shape.veclen), &mean_var) ||
      __builtin_mul_overflow(std::uint64_t(shape.n_emit_state), std::uint64_t(shape.n_emit_state) + 1, &tmat_states) ||
      __builtin_mul_overflow(std::uint64_t(shape.n_tmat), tmat_states, &tmat) ||
      __builtin_add_overflow(dens_elements, mean_var, &n_elements) || __builtin_add_overflow(n_elements, tmat, &n_elements) ||
      __builtin_mul_overflow(n_elements, std::uint64_t(16), &payload) ||
      __builtin_add_overflow(payload, std::uint64_t(kMagicLength + 4 * kHeaderWords), &expected_size);
  if (overflow) {
    throw FileError(path, "header dimensions " + std::to_string(shape.n_senones) + " x " + std::to_string(shape.n_density) + " x " +
                              std::to_string(shape.veclen) + ", " + std::to_string(shape.n_tmat) + " x " +
                              std::to_string(shape.n_emit_state) + " overflow the size computation: corrupt");
  }
  if (n_elements > (1ull << 32) || file_size != expected_size) {
    throw FileError(path, "size " + std::to_string(file_size) + " bytes does not match its header (expected " +
                              std::to_string(expected_size) + "): truncated or corrupt");
  }
  pass2var = header[5] == 1;
  return shape;
}

BwCountFloats ExactAccumulators::CountFloats() const {
  RequireSettled();
  return BwCountFloats{ToCountFloats(mixw_, BlockName(Block::kMixw)), ToCountFloats(dnom_, BlockName(Block::kDnom)),
                       ToCountFloats(mean_, BlockName(Block::kMean)), ToCountFloats(var_, BlockName(Block::kVar)),
                       ToCountFloats(tmat_, BlockName(Block::kTmat))};
}

void ExactAccumulators::Write(const std::string& dir_string) const {
  WriteCountFiles(dir_string);
  WriteExactCounts(dir_string);
}

std::vector<std::string> ExactAccumulators::WriteCountFiles(const std::string& dir_string) const {
  // The view holds the small blocks as doubles; the Gaussian blocks are asked of the sums.
  return ToAccumulatorsWithoutGaussians().Write(dir_string, MeanChunks(), VarChunks());
}

std::string ExactAccumulators::WriteExactCounts(const std::string& dir_string) const {
  RequireSettled();
  fs::create_directories(dir_string);
  Sha256Stream digest;
  // Encoded and hashed here, written on a thread of its own: 43 MB for 2,102 senones x 16 Gaussians.
  WriteFileAtomicPiped(fs::path(dir_string) / "exact_counts", [&](const ByteSink& sink) {
    EmitPieces([&](const void* data, std::size_t size) {
      sink(data, size);
      digest.Add(data, size);
    });
  });
  return digest.HexDigest();
}

namespace {

// DIR/exact_counts opened and its header checked (CheckExactCounts): the reader is at the values.
// With `sha256`, every byte is hashed as it is read, and Finish() stores the digest there; with
// `copy`, every byte read is passed to it (the header once checked, then each piece of values).
struct OpenedExactCounts {
  fs::path path;
  SequentialFileReader reader;
  std::string* sha256;
  const ByteSink* copy;
  AccumulatorShape shape;
  bool pass2var = false;

  OpenedExactCounts(const std::string& dir, std::string* sha256_out, const ByteSink* copy_to)
      : path(MissingOr(fs::path(dir) / "exact_counts")),
        reader(path, sha256_out ? SequentialFileReader::Hashing::kSha256 : SequentialFileReader::Hashing::kNone),
        sha256(sha256_out),
        copy(copy_to) {
    const std::size_t got = reader.Read(head, sizeof head);
    shape = ExactAccumulators::CheckExactCounts(head, got, reader.size_at_open(), path.string(), pass2var);
    if (copy) (*copy)(head, got);
  }
  std::uint8_t head[kMagicLength + 4 * kHeaderWords];  // (checked: all of it read)
  // The next n bytes of values into `into`.
  void Read(std::uint8_t* into, std::size_t n) {
    if (reader.Read(into, n) != n) throw FileError(path.string(), "read error (file shrank?)");
    if (copy) (*copy)(into, n);
  }
  // After the last value: the file must end there (it may have grown since its size was checked).
  void Finish() {
    if (!reader.AtEnd()) throw FileError(path.string(), "longer than its header says (it grew while being read?)");
    if (sha256) *sha256 = reader.Sha256();
  }

 private:
  static fs::path MissingOr(fs::path path) {
    if (!fs::is_regular_file(path)) throw FileError(path.string(), "exact statistics file is missing");
    return path;
  }
};

}  // namespace

ExactAccumulators ExactAccumulators::Read(const std::string& dir_string, std::string* sha256, const ByteSink* copy) {
  OpenedExactCounts file(dir_string, sha256, copy);
  ExactAccumulators acc(file.shape, file.pass2var);
  acc.ReadValues([&](std::uint8_t* into, std::size_t n) { file.Read(into, n); });
  file.Finish();
  return acc;
}

void ExactAccumulators::AddFile(const std::string& dir_string, std::string* sha256, const ByteSink* copy) {
  if (copy && !Untouched()) throw TrainingError("internal: " + dir_string + "/exact_counts copied as the sums, which already hold values");
  OpenedExactCounts file(dir_string, sha256, copy);
  if (!(shape_ == file.shape)) throw InputError(dir_string + ": accumulator dimensions do not match");
  if (pass2var_ != file.pass2var) throw InputError(dir_string + ": mixes 2-pass and 1-pass variance accumulators");
  if (Untouched()) {
    // Into sums nothing was added to (a reduction's first shard): its values are the sums. Stored
    // as they are read, not added to zeroed memory (for a tied CD model 6 MB zeroed, then added to).
    ReadValues([&](std::uint8_t* into, std::size_t n) { file.Read(into, n); });
    file.Finish();
    return;
  }
  ForEachPiece([&](std::uint8_t* into, std::size_t n) { file.Read(into, n); },
               [&](Block block, std::size_t first, const std::uint8_t* bytes, std::size_t n) { AddPieceWrapping(block, first, bytes, n); });
  file.Finish();
}

void ExactAccumulators::AddPieceWrapping(Block block, std::size_t first, const std::uint8_t* bytes, std::size_t n) {
  CarrySaveSums& sums = BlockData(block);
  for (std::size_t i = 0; i < n; ++i) {
    if (const int carry = sums.AddFixedValueWrapping(first + i, LoadFixed(bytes + 16 * i))) [[unlikely]] {
      const auto key = std::make_pair(static_cast<int>(block), first + i);
      if ((carries_[key] += carry) == 0) carries_.erase(key);
    }
  }
}

std::string ExactAccumulators::AddFileWritingSums(const std::string& dir_string, std::string* sha256, const std::string& sums_dir) {
  if (Untouched()) throw TrainingError("internal: " + dir_string + "/exact_counts added as the last file to sums that hold no other");
  // Not hashed by the reader's thread: below, side by side with the sums' bytes.
  OpenedExactCounts file(dir_string, nullptr, nullptr);
  if (!(shape_ == file.shape)) throw InputError(dir_string + ": accumulator dimensions do not match");
  if (pass2var_ != file.pass2var) throw InputError(dir_string + ": mixes 2-pass and 1-pass variance accumulators");
  const std::vector<std::uint8_t> head = HeadBytes();  // (the same length as the file's: the same format)
  Sha256PairStream digests;
  // Each piece: the file's bytes read into `in`, added, and the sums' bytes after them encoded into
  // `out`; then used(n) for its n bytes of each. The first piece is the two headers.
  std::vector<FixedPoint> values(kValuesPerPiece);
  const auto add = [&](const auto& next_piece, const auto& used) {
    const auto [file_head, sums_head] = next_piece();
    std::memcpy(file_head, file.head, head.size());
    std::memcpy(sums_head, head.data(), head.size());
    used(head.size());
    for (Block block : kBlocks) {
      const std::size_t size = BlockData(block).size();
      for (std::size_t first = 0; first < size; first += kValuesPerPiece) {
        const std::size_t n = std::min(kValuesPerPiece, size - first);
        const auto [in, out] = next_piece();
        file.Read(in, 16 * n);
        AddPieceWrapping(block, first, in, n);
        BlockData(block).ValuesInto(first, n, values.data(), BlockName(block));
        for (std::size_t i = 0; i < n; ++i) StoreFixed(out + 16 * i, values[i]);
        used(16 * n);
      }
    }
    file.Finish();
  };
  fs::create_directories(sums_dir);
  const fs::path path = fs::path(sums_dir) / "exact_counts";
  const std::string what = path.string();
  // Three threads, each piece handed on in a buffer of its own that holds both halves: this one
  // reads and adds, one hashes the two halves side by side, one writes the sums' half
  // (PieceHandoff: up to 8 pieces in flight, 1 MiB, of the peak memory's tail). Without those
  // threads, all of it here.
  constexpr std::size_t kHalf = 16 * kValuesPerPiece;
  PieceHandoff handoff(8, 2 * kHalf, 2);
  constexpr std::size_t kHasher = 0, kWriter = 1;
  std::future<void> hashed, written;
  try {
    written = StartPieceWriter(path, handoff, kWriter, kHalf);
    hashed = std::async(std::launch::async, [&] {
      handoff.UseEvery(kHasher, what.c_str(), [&](std::span<const std::uint8_t> piece) {
        digests.Add(piece.data(), piece.data() + kHalf, piece.size());
      });
    });
  } catch (...) {
    handoff.Finish(false);  // (a writer that started ends, its file removed)
    if (written.valid()) written.wait();
    if (hashed.valid()) hashed.wait();
    written = {};
    hashed = {};
    try {
      throw;
    } catch (const std::system_error&) {
      // (no thread: all of it on this one, below)
    }
  }
  if (!hashed.valid()) {
    std::vector<std::uint8_t> piece(2 * kHalf);
    WriteFileAtomicStreamed(path, [&](const ByteSink& sink) {
      add([&] { return std::pair(piece.data(), piece.data() + kHalf); },
          [&](std::size_t size) {
            digests.Add(piece.data(), piece.data() + kHalf, size);
            sink(piece.data() + kHalf, size);
          });
    });
  } else {
    // Both threads end before this returns or throws; the add's error is reported, or (a thread
    // stopped first) that thread's.
    struct Finish {
      PieceHandoff& handoff;
      std::future<void>& hashed;
      std::future<void>& written;
      ~Finish() {
        handoff.Finish(false);  // (no effect once finished complete)
        if (hashed.valid()) hashed.wait();
        if (written.valid()) written.wait();
      }
    } finish{handoff, hashed, written};
    struct UserStopped {};
    try {
      add(
          [&] {
            std::uint8_t* const buffer = handoff.NextBuffer();
            if (buffer == nullptr) throw UserStopped{};
            return std::pair(buffer, buffer + kHalf);
          },
          [&](std::size_t size) { handoff.Hand(size); });
    } catch (const UserStopped&) {
      // The error of the thread that stopped (the other one's is the handoff's stop).
      handoff.Finish(false);
      for (std::future<void>* thread : {&written, &hashed}) {
        try {
          thread->get();
        } catch (const PiecesStopped&) {
        }
      }
      throw TrainingError("internal: " + what + ": its writer or hasher stopped without an error");
    }
    handoff.Finish(true);
    written.get();
    hashed.get();
  }
  std::array<std::string, 2> hex = digests.HexDigests();
  if (sha256 != nullptr) *sha256 = std::move(hex[0]);
  return std::move(hex[1]);
}

void ExactAccumulators::Compact() {
  for (Block block : kBlocks) BlockData(block).Compact(BlockName(block));
}

void ExactAccumulators::SettleCarries() {
  if (carries_.empty()) return;
  const Block block = static_cast<Block>(carries_.begin()->first.first);
  carries_.clear();  // (the sums are not meaningful: the reducer fails the pass)
  ThrowOverflow(BlockName(block));
}

void ExactAccumulators::RequireSettled() const {
  if (!carries_.empty()) throw TrainingError("exact sums read before the range check of the files added to them (SettleCarries)");
}

}  // namespace pstrain
