// UninitializedVector<T>: a std::vector whose resize (and sized constructor) default-initializes
// new elements instead of value-initializing them, so that for doubles and integers they are left
// as they are instead of zeroed. For buffers every element of which is written before it is read,
// grown in a hot loop: the forward pass's per-frame density cache grows by one frame's values every
// frame and its alphas by doubling, and a zeroing resize was a memset call each time.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace pstrain {

template <typename T>
class DefaultInitAllocator : public std::allocator<T> {
 public:
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}  // NOLINT: converting, as std::allocator's

  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <typename T>
using UninitializedVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace pstrain
