// The Baum-Welch statistics of a pass (or of one shard of it) in exact fixed-point form
// (accumulators/exact_sum.h): each utterance's double statistics are rounded once to 2^-64 and
// added as 128-bit integers, so summing utterances, shards or passes in any grouping or order gives
// identical bits. In memory each block is a CarrySaveSums (accumulators/carry_save_sums.h): the
// same exact integers, with the carries between their 64-bit limbs deferred until they are read.
// `ToAccumulators()` gives the double view that re-estimation uses.
//
// A directory written by `Write` holds bw's three float32 files (for SphinxTrain's norm and for
// people) and `exact_counts` (docs/formats.md), from which `Read` restores the exact values.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <string>
#include <vector>

#include "accumulators/accumulators.h"
#include "accumulators/carry_save_sums.h"
#include "accumulators/exact_sum.h"
#include "common/file_io.h"

namespace pstrain {

class ExactAccumulators {
 public:
  enum class Block { kMixw, kDnom, kMean, kVar, kTmat };

  ExactAccumulators() = default;
  ExactAccumulators(const AccumulatorShape& shape, bool pass2var);

  const AccumulatorShape& shape() const { return shape_; }
  bool pass2var() const { return pass2var_; }

  // Adds `value` (rounded to 2^-64) to element `index` of `block`. Index layouts as Accumulators:
  // mixw/dnom [senone][density]; mean/var [senone][density][dim]; tmat [tmat][from][to].
  void AddValue(Block block, std::size_t index, double value);
  // AddValue(block, first + i, values[i]) for every i < n with values[i] != 0.
  void AddValues(Block block, std::size_t first, const double* values, std::size_t n);
  // A hint that elements [first, first + n) of `block` are added to soon (a cache prefetch; no
  // effect on any value).
  void Prefetch(Block block, std::size_t first, std::size_t n) const { BlockData(block).Prefetch(first, n); }
  // Exact element-wise sum; shapes and pass2var must agree (InputError naming `what`).
  void Add(const ExactAccumulators& other, const std::string& what);

  // The double view (FromFixed of every sum), its blocks converted on up to `threads` threads.
  Accumulators ToAccumulators(unsigned threads = 1) const;
  // The same without the mean and variance blocks (Accumulators::has_gaussians() false): their
  // values are asked of MeanDoubles and VarDoubles while these sums exist. A pass's tail then holds
  // 8 bytes less for each of those elements (21 MB for 2,102 senones x 16 Gaussians).
  Accumulators ToAccumulatorsWithoutGaussians() const;
  // Values [first, first + n) of the mean or variance block as doubles: ToAccumulators' values.
  void MeanDoubles(std::size_t first, std::size_t n, double* out) const;
  void VarDoubles(std::size_t first, std::size_t n, double* out) const;
  // The same as the pieces Accumulators::Write asks of a view without those blocks (these sums
  // must outlive them).
  DoubleChunks MeanChunks() const;
  DoubleChunks VarChunks() const;
  // The float32 values of the bw-format files (what Write writes), without the double view.
  BwCountFloats CountFloats() const;

  // Writes the bw-format files (as ToAccumulators().Write would, without its double copy) and
  // exact_counts, streamed to disk in 64 KiB pieces.
  void Write(const std::string& dir) const;
  // Only the bw-format files (the bytes of CountFloats()), gauden_counts streamed from the sums a
  // piece at a time: no float32 copy of the mean and variance blocks and no gauden_counts bytes in
  // memory (21 MB at a worker's end for 2,102 senones x 16 Gaussians; the small blocks are held as
  // doubles and mixw_counts and tmat_counts encoded whole). Returns each file's SHA-256, in
  // kBwCountFiles order, hashed as written. Safe beside WriteExactCounts on another thread.
  std::vector<std::string> WriteCountFiles(const std::string& dir) const;
  // Only exact_counts (Write = the bw-format files of CountFloats() + this). Returns the SHA-256
  // of the bytes written (hashed as they are encoded, on this thread, while another thread writes
  // them: WriteFileAtomicPiped; the file is not read back).
  std::string WriteExactCounts(const std::string& dir) const;
  // Reads exact_counts in 64 KiB pieces: the file is never held whole beside its values. With
  // `sha256`, the file is hashed as it is read (common/file_reader.h) and its SHA-256 stored there:
  // the digest of exactly the bytes the sums came from, so that a check of it against a recorded
  // digest checks what was read (the reducer's check of a shard's payload). A file that does not
  // end where its header says is an error (FileError), also when it grew while being read.
  // With `copy`, every byte read (header and values, the bytes hashed) is passed to it as well, in
  // order: a file of its own that is then this one's bytes (a pass of one shard writes its reduced
  // exact_counts so, shards/reducer.h).
  static ExactAccumulators Read(const std::string& dir, std::string* sha256 = nullptr, const ByteSink* copy = nullptr);
  // *this += the sums in DIR/exact_counts (as Add(Read(dir), dir), same checks; `sha256` as for
  // Read), added from each 64 KiB piece as it is read: no second set of sums is built. The additions
  // are modulo 2^128, each element's carries out of the range counted (AddFixedWrapping), so that
  // files added in any order give the same sums and the same carries; SettleCarries() must follow
  // the last file, and reading the sums before it is an error (TrainingError). Into sums nothing
  // was added to, the values are stored as read (the same sums). A read error part-way leaves
  // *this partly added (stored into fresh sums: all zero again), and a wrong digest found by the
  // caller after it the whole file added: either way the reducer then fails the pass.
  // `copy` as for Read, only into sums nothing was added to (whose values are then the file's):
  // otherwise a TrainingError before anything is read.
  static constexpr std::size_t kValuesPerPiece = 4096;  // 64 KiB of exact_counts
  void AddFile(const std::string& dir, std::string* sha256 = nullptr, const ByteSink* copy = nullptr);
  // AddFile of the last file into sums that hold the others (a reduction's last shard), writing
  // the sums' exact_counts into DIR `sums_dir` as it adds: each piece of the sums is final once the
  // file's piece is added, so it is encoded then, and the two pieces, the one read and the one to be
  // written, are hashed side by side on one thread (Sha256PairStream: two streams at about the speed
  // of one) while another writes: the add, the hashes and the writes on three threads, a few pieces
  // apart (on this one alone where the two cannot be started).
  // Stores the added file's SHA-256 in `sha256` (as AddFile) and returns that of the bytes written.
  // When the range check (SettleCarries, which this does not do) then passes, the file written has
  // the bytes WriteExactCounts would write. An error before its rename leaves nothing at
  // sums_dir/exact_counts (written under a temporary name), and the sums partly added as AddFile's;
  // the error reported is the add's, or that of the thread that stopped first. A TrainingError
  // before anything is read if the sums hold nothing yet.
  std::string AddFileWritingSums(const std::string& dir, std::string* sha256, const std::string& sums_dir);
  // Every block held in 16 bytes a value (CarrySaveSums::Compact): for sums kept after their
  // E-step (a shard's lent to the coordinator that ran it). The values do not change.
  void Compact();
  // The range check of the files added: throws the overflow error (TrainingError naming the block)
  // for the first element, in block and element order, whose carries do not add up to 0; otherwise
  // every sum is exact and in range and the sums may be read.
  void SettleCarries();
  // The exact_counts bytes (also what Write stores): whole, or piece by piece in order.
  std::vector<std::uint8_t> EncodeExactCounts() const;
  void EmitExactCounts(const ByteSink& sink) const;
  std::size_t ExactCountsSize() const;
  static ExactAccumulators DecodeExactCounts(const std::vector<std::uint8_t>& bytes, const std::string& path);
  // Every check DecodeExactCounts makes (the values themselves are any 128-bit integers), from the
  // file's first bytes `head` (at least ExactCountsHeaderSize() of them, or the whole file if it is
  // shorter) and its size, without reading or building the sums: the shape, and the pass2var flag
  // into `pass2var`. Throws as DecodeExactCounts does.
  static AccumulatorShape CheckExactCounts(const std::uint8_t* head, std::size_t head_size, std::uint64_t file_size,
                                           const std::string& path, bool& pass2var);
  static std::size_t ExactCountsHeaderSize();

  // Equal shapes, pass2var and canonical values (however the limbs hold them).
  bool operator==(const ExactAccumulators& other) const;

 private:
  CarrySaveSums& BlockData(Block block);
  const CarrySaveSums& BlockData(Block block) const;
  // Throws when AddFile left carries that SettleCarries has not checked.
  void RequireSettled() const;
  // The file's header: the magic line and the shape's six words.
  std::vector<std::uint8_t> HeadBytes() const;
  // Values [first, first + n) of `block` += the 16-byte values at `bytes`, modulo 2^128, the
  // carries counted (AddFile's step).
  void AddPieceWrapping(Block block, std::size_t first, const std::uint8_t* bytes, std::size_t n);
  // EmitExactCounts without the check.
  void EmitPieces(const ByteSink& sink) const;
  // Fills every block's values, in file order, from read(into, n), which stores the next n bytes
  // of the file's values at `into` (exact_accumulators.cpp): into sums nothing was added to
  // (Untouched()), stored straight into their canonical form (no zeroing, no addition). If read
  // throws, every value is zero again.
  template <typename ReadBytes>
  void ReadValues(ReadBytes&& read);
  // Whether nothing was ever added to these sums.
  bool Untouched() const;
  // The file's values in order, 64 KiB at a time: use(block, first, bytes, n) for values
  // [first, first + n) of `block`, stored at `bytes` (16 each), as read(into, n) delivers them.
  template <typename ReadBytes, typename UsePiece>
  void ForEachPiece(ReadBytes&& read, UsePiece&& use) const;

  AccumulatorShape shape_;
  bool pass2var_ = false;
  CarrySaveSums mixw_, dnom_, mean_, var_, tmat_;
  // AddFile's net carries, by (block, element); only non-zero ones are kept (none but for sums near
  // the range's ends).
  std::map<std::pair<int, std::size_t>, std::int64_t> carries_;
};

}  // namespace pstrain
