// Reducing a validated pass: the shards' statistics summed (exact: in any order; float32: in ascending shard id).
#include "shards/reducer.h"

#include <sys/stat.h>

#include <algorithm>
#include <future>
#include <system_error>

#include "common/error.h"
#include "common/file_io.h"
#include "shards/artifact_validator.h"
#include "shards/fallback_sidecar.h"

namespace pstrain {

ShardReducer::ShardReducer(std::filesystem::path pass_dir, ReductionMode mode) : pass_dir_(std::move(pass_dir)), mode_(mode) {}

void ShardReducer::ExpectStatistics(const AccumulatorShape& shape, bool pass2var) { expected_statistics_.emplace(shape, pass2var); }

bool ShardReducer::Takes(std::uint32_t shard) const {
  if (mode_ != ReductionMode::kExact) return shard == n_added_;
  return shard >= added_.size() || !added_[shard];
}

std::string ShardReducer::AddExactCountsFile(std::uint32_t shard) {
  const std::string dir = (pass_dir_ / ShardDirName(shard)).string();
  std::string sha256;
  try {
    // Sized from the validated expectation when there is one (ExpectStatistics), never from a
    // header read now: a file that changed since cannot make the sums larger.
    if (!reduced_.exact && expected_statistics_) reduced_.exact.emplace(expected_statistics_->first, expected_statistics_->second);
    const auto add = [&](const ByteSink* copy) {
      if (!reduced_.exact) reduced_.exact = ExactAccumulators::Read(dir, &sha256, copy);
      else reduced_.exact->AddFile(dir, &sha256, copy);
    };
    if (!sums_dir_.empty() && n_added_ + (added_ahead_ ? 1 : 0) >= sums_shards_) {
      throw TrainingError(pass_dir_.string() + ": shard " + std::to_string(shard) + " added to a pass of " + std::to_string(sums_shards_) +
                          " shard(s) that has them all");
    }
    // WriteSumsInto: the shard that completes the sums writes their file as it is added.
    const bool completes = !sums_dir_.empty() && n_added_ + 1 == sums_shards_ && !partly_added_;
    const std::filesystem::path file = sums_dir_ / "exact_counts";
    if (!completes) {
      add(nullptr);
    } else if (sums_shards_ == 1) {
      // Its values are the sums: its bytes, as read (and hashed), are theirs.
      std::filesystem::create_directories(sums_dir_);
      WriteFileAtomicStreamed(file, [&](const ByteSink& sink) { add(&sink); });
      written_sha256_ = sha256;
    } else {
      // Each piece of the sums is final once this file's piece is added: written as it is added,
      // the file read and the one written hashed side by side.
      written_sha256_ = reduced_.exact->AddFileWritingSums(dir, &sha256, sums_dir_.string());
    }
  } catch (const InputError& error) {
    // Validated (its size and header at least) before, or at the same time: it changed since, or
    // cannot be read.
    partly_added_ = true;
    throw ArtifactRejected(shard, dir + "/exact_counts", "payload-sha256", std::string("not the file validated: ") + error.what());
  } catch (...) {
    partly_added_ = true;  // (a failed write of the sums' file: the sums may hold part of the shard's)
    throw;
  }
  return sha256;
}

void ShardReducer::WriteSumsInto(std::filesystem::path dir, std::uint32_t shard_count) {
  if (mode_ != ReductionMode::kExact || n_added_ != 0 || added_ahead_ || partly_added_ || shard_count == 0) {
    throw TrainingError(pass_dir_.string() + ": internal: the sums' exact_counts written as they are added in a pass that is not " +
                        "exact, has shards added or has none");
  }
  sums_dir_ = std::move(dir);
  sums_shards_ = shard_count;
}

void ShardReducer::AddExactCountsAhead(std::uint32_t shard) {
  if (mode_ != ReductionMode::kExact || !expected_statistics_ || added_ahead_ || !Takes(shard)) {
    throw TrainingError(pass_dir_.string() + ": shard " + std::to_string(shard) + " cannot be added ahead of its validation");
  }
  std::string sha256 = AddExactCountsFile(shard);
  added_ahead_.emplace(shard, std::move(sha256));
}

void ShardReducer::LendExactSums(std::uint32_t shard, LentShardSums lent) {
  if (mode_ != ReductionMode::kExact || n_added_ != 0 || added_ahead_ || partly_added_ || reduced_.exact || lent_ || !Takes(shard) ||
      !lent.sums) {
    throw TrainingError(pass_dir_.string() + ": internal: shard " + std::to_string(shard) +
                        "'s sums lent to a reduction that cannot take them");
  }
  if (expected_statistics_ &&
      (!(lent.sums->shape() == expected_statistics_->first) || lent.sums->pass2var() != expected_statistics_->second)) {
    throw TrainingError(pass_dir_.string() + ": internal: shard " + std::to_string(shard) + "'s lent sums are not of the pass's shape");
  }
  lent_.emplace(Lent{shard, std::move(lent)});
}

void ShardReducer::TakeLentSums(std::uint32_t shard, const std::filesystem::path& shard_dir,
                                const std::function<std::string(const std::string&)>& listed) {
  LentShardSums taken = std::move(lent_->lent);
  lent_.reset();
  // Whether `path` is the file written (the same device and inode), not one put in its place since.
  const auto is_written = [](const std::filesystem::path& path, const LentShardSums::WrittenFile& file) {
    struct stat status {};
    return ::lstat(path.c_str(), &status) == 0 && static_cast<std::uint64_t>(status.st_dev) == file.device &&
           static_cast<std::uint64_t>(status.st_ino) == file.inode;
  };
  const auto replaced = [shard](const std::filesystem::path& path) {
    return ArtifactRejected(shard, path.string(), "payload-sha256", "not the file written (replaced since): its digest is of another");
  };
  // The sums themselves, and the digest of the bytes written from them: taken once it is the
  // artifact's. bw's count files are the same sums' too, each lent with the digest of the bytes
  // written, which must be the artifact's, and each still the file written, linked or not: their
  // validation left their digests to here (PayloadDigests::kLentByThisProcess).
  const std::filesystem::path path = shard_dir / "exact_counts";
  const bool counts_lent = taken.count_files.size() == std::size(kBwCountFiles);
  try {
    RequirePayloadDigest(shard, path.string(), listed("exact_counts"), taken.exact_counts.sha256);
    for (std::size_t f = 0; counts_lent && f < std::size(kBwCountFiles); ++f) {
      const std::filesystem::path count_path = shard_dir / kBwCountFiles[f];
      RequirePayloadDigest(shard, count_path.string(), listed(kBwCountFiles[f]), taken.count_files[f].sha256);
      if (!is_written(count_path, taken.count_files[f])) throw replaced(count_path);
    }
  } catch (const ArtifactRejected&) {
    partly_added_ = true;  // (Add has counted the shard's frames and log-likelihood)
    throw;
  }
  reduced_.exact.emplace(std::move(*taken.sums));
  if (sums_dir_.empty() || sums_shards_ != 1) return;
  // With WriteSumsInto of this one shard: its files linked there, each checked to be the one written.
  std::vector<std::filesystem::path> links;
  try {
    std::filesystem::create_directories(sums_dir_);
    // Links `name` of the shard; false where the file system refuses.
    const auto link = [&](const char* name, const LentShardSums::WrittenFile& file) {
      const std::filesystem::path to = sums_dir_ / name;
      if (!LinkFileAtomic(shard_dir / name, to)) return false;
      links.push_back(to);
      if (!is_written(to, file)) throw replaced(shard_dir / name);
      return true;
    };
    // (refused: exact_counts written from the sums after the reduction)
    if (!link("exact_counts", taken.exact_counts)) return;
    written_sha256_ = taken.exact_counts.sha256;
    // The count files likewise. Where a link is refused the pass's tail writes all three from the
    // sums (WriteReducedCountFiles), each renamed over any name linked here.
    if (!counts_lent) return;
    for (std::size_t f = 0; f < std::size(kBwCountFiles); ++f) {
      if (!link(kBwCountFiles[f], taken.count_files[f])) return;
    }
    for (const LentShardSums::WrittenFile& file : taken.count_files) linked_count_files_sha256_.push_back(file.sha256);
  } catch (...) {
    // Nothing linked is left, and the sums, which hold the shard's values, are refused by Finish.
    std::error_code ec;
    for (const std::filesystem::path& made : links) std::filesystem::remove(made, ec);
    written_sha256_.clear();
    linked_count_files_sha256_.clear();
    partly_added_ = true;
    throw;
  }
}

void ShardReducer::Discard(std::uint32_t shard) {
  if (added_ahead_ && added_ahead_->first == shard) added_ahead_.reset();
  partly_added_ = true;
}

void ShardReducer::Add(std::uint32_t shard, const ShardArtifact& artifact) {
  if (!Takes(shard)) {
    throw TrainingError(pass_dir_.string() + ": shard " + std::to_string(shard) +
                        (mode_ == ReductionMode::kExact ? " reduced twice" : " reduced out of order (expected shard " + std::to_string(n_added_) + ")"));
  }
  const std::string dir = (pass_dir_ / ShardDirName(shard)).string();
  // The digest the artifact lists for a payload file (none: empty, which no digest matches).
  const auto listed = [&artifact](const std::string& name) {
    const auto it = std::find_if(artifact.payload.begin(), artifact.payload.end(), [&name](const PayloadFile& file) { return file.name == name; });
    return it == artifact.payload.end() ? std::string() : it->sha256;
  };
  FixedPoint log_likelihood = 0;
  FixedFromHex(artifact.log_likelihood_exact, log_likelihood);  // validated before
  log_likelihood_carry_ += AddFixedWrapping(log_likelihood_, log_likelihood);  // range checked in Finish
  reduced_.total_frames += artifact.total_frames;
  if (mode_ == ReductionMode::kExact) {
    // The digest is of the bytes added (ValidateShard may have left it to here: PayloadDigests), or
    // of the bytes the lent sums were written as.
    const std::string path = dir + "/exact_counts";
    if (lent_ && lent_->shard == shard) {
      TakeLentSums(shard, dir, listed);
    } else {
      std::string sha256;
      if (added_ahead_ && added_ahead_->first == shard) {
        sha256 = std::move(added_ahead_->second);
        added_ahead_.reset();
      } else {
        sha256 = AddExactCountsFile(shard);
      }
      try {
        RequirePayloadDigest(shard, path, listed("exact_counts"), sha256);
      } catch (const ArtifactRejected&) {
        partly_added_ = true;  // the sums hold the file's bytes
        throw;
      }
    }
  } else {
    // The count files' digests, of the bytes added (ValidateShard may have left them to here).
    std::vector<std::string> sha256;
    Accumulators shard_stats;
    try {
      shard_stats = Accumulators::ReadBwFormat(dir, &sha256);
    } catch (const InputError& error) {
      throw ArtifactRejected(shard, dir, "payload-sha256", std::string("not the files validated: ") + error.what());
    }
    for (std::size_t f = 0; f < sha256.size(); ++f) RequirePayloadDigest(shard, dir + "/" + kBwCountFiles[f], listed(kBwCountFiles[f]), sha256[f]);
    if (shard == 0) reduced_.accumulators = std::move(shard_stats);
    else reduced_.accumulators.AddInFloat32(shard_stats, dir);
  }
  const bool has_sidecar = !artifact.payload.empty() && artifact.payload.back().name == kFallbackSidecarFile;
  if (has_sidecar) {
    const std::filesystem::path path = std::filesystem::path(dir) / kFallbackSidecarFile;
    const std::string bytes = ReadFileText(path);
    // Validated against the model before; re-decoded here (the count is what follows the header)
    // and required to agree across shards.
    std::vector<std::uint8_t> flags;
    const std::size_t header_end = bytes.find('\n', bytes.find('\n') + 1);
    const std::uint32_t count = header_end == std::string::npos ? 0 : static_cast<std::uint32_t>(bytes.size() - header_end - 1);
    if (auto problem = DecodeFallbackSidecar(bytes, count, flags)) {
      throw TrainingError(path.string() + ": " + problem->detail + " (" + problem->check + ")");
    }
    if (n_added_ == 0) reduced_.fallback_senones = flags;
    if (flags.size() != reduced_.fallback_senones.size()) {
      throw TrainingError(path.string() + ": " + std::to_string(flags.size()) + " tied states, the shards added before have " +
                          std::to_string(reduced_.fallback_senones.size()));
    }
    for (std::size_t i = 0; i < flags.size(); ++i) reduced_.fallback_senones[i] |= flags[i];
  }
  if (shard >= added_.size()) added_.resize(shard + 1, false);
  added_[shard] = true;
  ++n_added_;
}

ReducedPass ShardReducer::Finish() && {
  if (n_added_ == 0) throw TrainingError(pass_dir_.string() + ": no shard artifacts to reduce");
  if (partly_added_) throw TrainingError(pass_dir_.string() + ": the sums hold part of a rejected shard");
  // The range checks of sums added in an order that may vary: whether they fail depends only on
  // the sums (exact_sum.h AddFixedWrapping).
  if (reduced_.exact) reduced_.exact->SettleCarries();
  if (log_likelihood_carry_ != 0) ThrowOverflow("log-likelihood total");
  reduced_.log_likelihood = ExactSum::FromFixedValue(log_likelihood_);
  if (!written_sha256_.empty()) {
    reduced_.exact_counts_file = sums_dir_ / "exact_counts";
    reduced_.exact_counts_sha256 = written_sha256_;
    reduced_.count_files_sha256 = linked_count_files_sha256_;
  }
  return std::move(reduced_);
}

ReducedPass ReducePass(const std::filesystem::path& pass_dir, const std::vector<ShardArtifact>& artifacts, ReductionMode mode) {
  ShardReducer reducer(pass_dir, mode);
  for (std::size_t shard = 0; shard < artifacts.size(); ++shard) reducer.Add(static_cast<std::uint32_t>(shard), artifacts[shard]);
  return std::move(reducer).Finish();
}

namespace {

// The union of the activation sidecars, in a multipron pass (nothing otherwise).
void WriteFallbackSidecar(const ReducedPass& reduced, const std::filesystem::path& dir) {
  if (!reduced.fallback_senones.empty()) WriteFileAtomic(dir / kFallbackSidecarFile, EncodeFallbackSidecar(reduced.fallback_senones));
}

}  // namespace

void WriteReducedStatistics(const ReducedPass& reduced, const std::filesystem::path& dir) {
  if (reduced.exact) reduced.exact->Write(dir.string());
  else reduced.accumulators.Write(dir.string());
  WriteFallbackSidecar(reduced, dir);
}

std::string WriteAndReleaseExactCounts(ReducedPass& reduced, const std::filesystem::path& dir, const std::shared_future<void>& readers_done) {
  if (!reduced.exact) return "";
  struct Release {
    ReducedPass& reduced;
    const std::shared_future<void>& readers_done;
    ~Release() {
      if (readers_done.valid()) readers_done.wait();
      reduced.exact.reset();
    }
  } release{reduced, readers_done};
  if (reduced.exact_counts_file.empty()) return reduced.exact->WriteExactCounts(dir.string());
  // Written by the reducer as it added the last shard (ShardReducer::WriteSumsInto).
  if (reduced.exact_counts_file != dir / "exact_counts") {
    throw TrainingError("internal: the reduced exact_counts was written to " + reduced.exact_counts_file.string() + ", not into " +
                        dir.string());
  }
  return reduced.exact_counts_sha256;
}

std::vector<std::string> WriteReducedCountFiles(const ReducedPass& reduced, const Accumulators& view, const std::filesystem::path& dir) {
  if (!reduced.count_files_sha256.empty()) {
    // Linked by the reducer, beside exact_counts, from the only shard (ShardReducer::LendExactSums).
    if (reduced.exact_counts_file.parent_path() != dir) {
      throw TrainingError("internal: the reduced count files were linked into " + reduced.exact_counts_file.parent_path().string() +
                          ", not into " + dir.string());
    }
    WriteFallbackSidecar(reduced, dir);
    return reduced.count_files_sha256;
  }
  std::vector<std::string> digests;
  if (view.has_gaussians()) {
    digests = view.Write(dir.string());
  } else {
    if (!reduced.exact) throw TrainingError("internal: a view without mean and variance sums, and no exact sums to ask");
    digests = view.Write(dir.string(), reduced.exact->MeanChunks(), reduced.exact->VarChunks());
  }
  WriteFallbackSidecar(reduced, dir);
  return digests;
}

Accumulators DoubleView(const ReducedPass& reduced, unsigned threads) {
  return reduced.exact ? reduced.exact->ToAccumulators(threads) : reduced.accumulators;
}

Accumulators TakeDoubleView(ReducedPass& reduced, unsigned threads) {
  return reduced.exact ? reduced.exact->ToAccumulators(threads) : std::move(reduced.accumulators);
}

Accumulators TailView(ReducedPass& reduced, unsigned threads) {
  if (reduced.exact && reduced.fallback_senones.empty()) return reduced.exact->ToAccumulatorsWithoutGaussians();
  return TakeDoubleView(reduced, threads);
}

GaussianRows ReducedGaussianRows(const ReducedPass& reduced, const Accumulators& view) {
  if (view.has_gaussians()) return {};
  if (!reduced.exact) throw TrainingError("internal: a view without mean and variance sums, and no exact sums to ask");
  const ExactAccumulators* sums = &*reduced.exact;
  const AccumulatorShape shape = view.shape();
  return [sums, shape](std::uint32_t senone, std::uint32_t density, double* mean, double* var) {
    const std::size_t first = (std::size_t(senone) * shape.n_density + density) * shape.veclen;
    sums->MeanDoubles(first, shape.veclen, mean);
    sums->VarDoubles(first, shape.veclen, var);
  };
}

}  // namespace pstrain
