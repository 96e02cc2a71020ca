// CarrySaveSums: an array of exact sums (accumulators/exact_sum.h) held in memory as carry-save
// limbs, so that adding one utterance's statistics is two plain 64-bit additions per element.
//
// Element i's value is base[i] + hi[i] * 2^48 + lo[i] (in units of 2^-64, exactly):
//  - base: the canonical signed 128-bit sums (the form exact_counts stores), touched only when
//    limbs are folded into it and for values the limbs cannot take;
//  - hi, lo: signed 64-bit limbs. Each value with |value| < 2^32 is rounded once to 2^-64 exactly
//    as ToFixed does, F = H * 2^48 + Lo with |H| <= 2^48 and |Lo| <= 2^47, and H and Lo are added
//    to the limbs with no carry between them (numerics/vector_kernels.h add_split).
// Bound: a limb that has received at most kMaxPendingAdds = 32767 additions since it was last
// folded satisfies |limb| <= 32767 * 2^48 < 2^63, so a limb never wraps. Every AddValues call adds
// at most once to each element and counts one addition for each group of kGroup elements it
// touches; a group whose count reaches the bound is folded into base first.
// Values with |value| >= 2^32 (and NaN or infinity, which throw) go straight to base through
// ToFixed + AddFixed. Folding adds hi * 2^48 + lo to base with the overflow check of AddFixed, so a
// sum outside |sum| < 2^63 is still an error, never a wrap: it is reported when its group is
// folded (at the latest when the sums are read, compared, reduced or written).
// The value of every element is independent of when folds happen: all additions are of integers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "accumulators/exact_sum.h"
#include "common/uninitialized_vector.h"

namespace pstrain {

class CarrySaveSums {
 public:
  static constexpr std::size_t kGroup = 64;
  static constexpr std::uint32_t kMaxPendingAdds = 32767;

  CarrySaveSums() = default;
  explicit CarrySaveSums(std::size_t size) : size_(size) {}

  std::size_t size() const { return size_; }

  // Element first + i += values[i] rounded to 2^-64, for i < n. Throws TrainingError (naming
  // `what`) for a non-finite value or an overflowing sum.
  void AddValues(std::size_t first, const double* values, std::size_t n, const char* what);
  // Element i += fixed (a canonical value, e.g. from another set of sums).
  void AddFixedValue(std::size_t i, FixedPoint fixed, const char* what);
  // The same modulo 2^128, returning AddFixedWrapping's carry (exact_sum.h): for a reduction whose
  // order is not fixed, which checks the range from the carries at its end.
  int AddFixedValueWrapping(std::size_t i, FixedPoint fixed);
  // A cache-prefetch hint for elements [first, first + n) (no effect on any value).
  void Prefetch(std::size_t first, std::size_t n) const {
    if (hi_.empty()) return;
    const char* h = reinterpret_cast<const char*>(hi_.data() + first);
    const char* l = reinterpret_cast<const char*>(lo_.data() + first);
    for (std::size_t offset = 0; offset < n * sizeof(std::int64_t); offset += 64) {
      __builtin_prefetch(h + offset, 1);
      __builtin_prefetch(l + offset, 1);
    }
  }

  // The canonical value of element i (base + limbs, overflow-checked).
  FixedPoint Value(std::size_t i, const char* what) const;
  // Every element's canonical value.
  std::vector<FixedPoint> Values(const char* what) const;
  // out[j] = Value(first + j) for j < n, in one loop (no call for each element).
  void ValuesInto(std::size_t first, std::size_t n, FixedPoint* out, const char* what) const;
  // out[j] = FromFixed(Value(first + j)) for j < n: the values rounded to double, in one loop.
  void Doubles(std::size_t first, std::size_t n, double* out, const char* what) const;
  // Folds every limb into base (the limbs become zero); the values do not change.
  void Fold(const char* what);
  // If both base and the limbs are held (a group was folded, or a value went to base): folds every
  // limb into base and releases the limbs, so that the values are held in 16 bytes each, not 32.
  // The values do not change. Sums held in one of the two are left as they are.
  void Compact(const char* what);
  // Whether nothing was ever added (every value zero, no memory held).
  bool untouched() const { return base_.empty() && hi_.empty(); }
  // Whether the values are held in base alone (allocated, no limbs): adding to them with
  // AddFixedValueWrapping then changes base's elements only, never what holds them.
  bool base_only() const { return !base_.empty() && hi_.empty(); }
  // For sums nothing was added to (untouched()): base, allocated and not zeroed, to be written
  // directly, every one of the size() elements, before any value is read (a shard's exact_counts
  // read into fresh sums: no zeroing pass and no addition). After a failure part-way, Reset().
  FixedPoint* UninitializedBase();
  // Every value zero again, the memory released (the size stays).
  void Reset();

  // The additions each group has received since it was last folded (for tests of the bound).
  std::uint32_t PendingAdds(std::size_t i) const { return counts_.empty() ? 0 : counts_[i / kGroup]; }

 private:
  void EnsureLimbs();
  void EnsureBase();
  void FoldGroup(std::size_t group, const char* what);

  std::size_t size_ = 0;
  // Allocated on first use: a block that is never added to costs no memory, and during the E-step
  // only the limbs are touched (base stays unallocated unless a value needs it).
  UninitializedVector<FixedPoint> base_;
  std::vector<std::int64_t> hi_, lo_;
  std::vector<std::uint16_t> counts_;  // per group of kGroup elements
};

}  // namespace pstrain
