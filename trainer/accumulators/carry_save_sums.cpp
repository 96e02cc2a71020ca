// CarrySaveSums: the carry-save adds, their bound, and folding into canonical 128-bit sums.
#include "accumulators/carry_save_sums.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "numerics/vector_kernels.h"

namespace pstrain {

namespace {

// hi * 2^48 + lo: |hi|, |lo| < 2^63, so |pending| < 2^112 fits a 128-bit integer with room.
FixedPoint Pending(std::int64_t hi, std::int64_t lo) {
  return static_cast<FixedPoint>(static_cast<UnsignedFixedPoint>(static_cast<FixedPoint>(hi)) << 48) +
         static_cast<FixedPoint>(lo);
}

}  // namespace

void CarrySaveSums::EnsureLimbs() {
  if (!hi_.empty() || size_ == 0) return;
  hi_.assign(size_, 0);
  lo_.assign(size_, 0);
  counts_.assign((size_ + kGroup - 1) / kGroup, 0);
}

void CarrySaveSums::EnsureBase() {
  if (base_.empty()) base_.assign(size_, 0);
}

void CarrySaveSums::FoldGroup(std::size_t group, const char* what) {
  EnsureBase();
  const std::size_t end = std::min(size_, (group + 1) * kGroup);
  for (std::size_t i = group * kGroup; i < end; ++i) {
    AddFixed(base_[i], Pending(hi_[i], lo_[i]), what);
    hi_[i] = 0;
    lo_[i] = 0;
  }
  counts_[group] = 0;
}

void CarrySaveSums::AddValues(std::size_t first, const double* values, std::size_t n, const char* what) {
  if (n == 0) return;
  EnsureLimbs();
  // One addition counted per group this call touches; each element gets at most one.
  for (std::size_t group = first / kGroup, last = (first + n - 1) / kGroup; group <= last; ++group) {
    if (counts_[group] == kMaxPendingAdds) [[unlikely]] FoldGroup(group, what);
    ++counts_[group];
  }
  const numerics::VectorKernels& kernels = numerics::ActiveKernels();
  std::int64_t* hi = hi_.data() + first;
  std::int64_t* lo = lo_.data() + first;
  std::size_t i = 0;
  while (i < n) {
    i += kernels.add_split(values + i, n - i, hi + i, lo + i);
    if (i == n) break;
    // A chunk the limbs cannot take (a value with |value| >= 2^32, or not finite): its first
    // element goes to base through the reference conversion, which throws as the contract says.
    if (values[i] != 0.0) {
      EnsureBase();
      AddFixed(base_[first + i], ToFixed(values[i], what), what);
    }
    ++i;
  }
}

void CarrySaveSums::AddFixedValue(std::size_t i, FixedPoint fixed, const char* what) {
  if (fixed == 0) return;
  EnsureBase();
  AddFixed(base_[i], fixed, what);
}

int CarrySaveSums::AddFixedValueWrapping(std::size_t i, FixedPoint fixed) {
  if (fixed == 0) return 0;
  EnsureBase();
  return AddFixedWrapping(base_[i], fixed);
}

FixedPoint CarrySaveSums::Value(std::size_t i, const char* what) const {
  FixedPoint value;
  ValuesInto(i, 1, &value, what);
  return value;
}

void CarrySaveSums::ValuesInto(std::size_t first, std::size_t n, FixedPoint* out, const char* what) const {
  const FixedPoint* base = base_.empty() ? nullptr : base_.data() + first;
  if (hi_.empty()) {
    for (std::size_t j = 0; j < n; ++j) out[j] = base == nullptr ? 0 : base[j];
    return;
  }
  const std::int64_t* hi = hi_.data() + first;
  const std::int64_t* lo = lo_.data() + first;
  if (base == nullptr) {
    // Limbs alone (the E-step's usual state): |hi * 2^48 + lo| < 2^112, no overflow possible.
    for (std::size_t j = 0; j < n; ++j) out[j] = Pending(hi[j], lo[j]);
    return;
  }
  for (std::size_t j = 0; j < n; ++j) {
    FixedPoint value = base[j];
    AddFixed(value, Pending(hi[j], lo[j]), what);
    out[j] = value;
  }
}

void CarrySaveSums::Doubles(std::size_t first, std::size_t n, double* out, const char* what) const {
  if (!hi_.empty() && base_.empty()) {
    // Limbs alone (see ValuesInto): each value converted as it is formed.
    const std::int64_t* hi = hi_.data() + first;
    const std::int64_t* lo = lo_.data() + first;
    for (std::size_t j = 0; j < n; ++j) out[j] = FromFixed(Pending(hi[j], lo[j]));
    return;
  }
  constexpr std::size_t kPiece = 256;
  FixedPoint piece[kPiece];
  for (std::size_t done = 0; done < n; done += kPiece) {
    const std::size_t m = std::min(kPiece, n - done);
    ValuesInto(first + done, m, piece, what);
    for (std::size_t j = 0; j < m; ++j) out[done + j] = FromFixed(piece[j]);
  }
}

std::vector<FixedPoint> CarrySaveSums::Values(const char* what) const {
  std::vector<FixedPoint> out(size_, 0);
  ValuesInto(0, size_, out.data(), what);
  return out;
}

void CarrySaveSums::Fold(const char* what) {
  if (hi_.empty()) return;
  for (std::size_t group = 0; group < counts_.size(); ++group) {
    if (counts_[group] != 0) FoldGroup(group, what);
  }
}

void CarrySaveSums::Compact(const char* what) {
  if (base_.empty() || hi_.empty()) return;
  Fold(what);
  std::vector<std::int64_t>().swap(hi_);
  std::vector<std::int64_t>().swap(lo_);
  std::vector<std::uint16_t>().swap(counts_);
}

FixedPoint* CarrySaveSums::UninitializedBase() {
  if (!untouched()) throw std::logic_error("CarrySaveSums::UninitializedBase: values were added before");
  base_.resize(size_);  // (default-initialized: not zeroed)
  return base_.data();
}

void CarrySaveSums::Reset() {
  UninitializedVector<FixedPoint>().swap(base_);
  std::vector<std::int64_t>().swap(hi_);
  std::vector<std::int64_t>().swap(lo_);
  std::vector<std::uint16_t>().swap(counts_);
}

}  // namespace pstrain
