// Copyright 2026 The custody Authors.
//
// core/refcount.h — the intrusive, atomic reference count shared by Storage and
// TensorImpl, and `Ref<T>`, a smart pointer that owns exactly one reference.
//
// Note [Memory orderings]
// ~~~~~~~~~~~~~~~~~~~~~~~
// As in c10::intrusive_ptr: taking a reference is a relaxed increment (the
// caller already holds one, so the object cannot die concurrently); giving one
// back is an acq_rel decrement, so every write made through any reference
// happens-before the destructor that runs after the last decrement.

#ifndef CUSTODY_CORE_REFCOUNT_H_
#define CUSTODY_CORE_REFCOUNT_H_

#include <atomic>
#include <cstdint>
#include <utility>

namespace custody {

class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;

  [[gnu::always_inline]] void retain() const {
    refcount_.fetch_add(1, std::memory_order_relaxed);
  }
  // Returns true when this was the last reference; the caller then destroys.
  [[gnu::always_inline]] bool release_ref() const {
    return refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1;
  }
  int64_t use_count() const { return refcount_.load(std::memory_order_acquire); }
  // Takes a new reference unless the last one is already gone (the object is
  // being destroyed): what a weak reference needs to become a strong one. The
  // caller must know the memory is still there (autograd's GradAccumulator
  // reads it under the lock the destructor takes).
  bool try_retain() const {
    int64_t n = refcount_.load(std::memory_order_relaxed);
    while (n > 0 && !refcount_.compare_exchange_weak(n, n + 1, std::memory_order_relaxed)) {
    }
    return n > 0;
  }

 protected:
  ~RefCounted() = default;

 private:
  mutable std::atomic<int64_t> refcount_{1};  // Born with the creator's reference.
};

struct AdoptTag {};
inline constexpr AdoptTag kAdopt{};

// Owns one reference on a T derived from RefCounted. T must provide a static
// `Destroy(T*)` that frees it once the last reference is gone.
//
// Copying, resetting and destroying a Ref are always inlined: each is an
// atomic instruction and a branch, on every handle's hottest path, and gcc's
// inliner otherwise gives them up in a translation unit that instantiates many
// policies and backends (one that includes the whole matrix, as a benchmark or
// a user's program may).
template <class T>
class Ref {
 public:
  Ref() = default;
  Ref(std::nullptr_t) {}
  // Takes over a reference the caller owns (a fresh object starts with one).
  Ref(AdoptTag, T* p) : p_(p) {}
  // Takes a new reference on `p`.
  static Ref Retain(T* p) {
    if (p) p->retain();
    return Ref(kAdopt, p);
  }
  [[gnu::always_inline]] Ref(const Ref& o) : p_(o.p_) {
    if (p_) p_->retain();
  }
  Ref(Ref&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  Ref& operator=(Ref o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  [[gnu::always_inline]] ~Ref() { reset(); }

  [[gnu::always_inline]] void reset() {
    if (T* p = std::exchange(p_, nullptr); p && p->release_ref()) T::Destroy(p);
  }
  // Gives up ownership without dropping the reference.
  T* leak() { return std::exchange(p_, nullptr); }

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  friend bool operator==(const Ref& a, const Ref& b) { return a.p_ == b.p_; }

 private:
  T* p_ = nullptr;
};

}  // namespace custody

#endif  // CUSTODY_CORE_REFCOUNT_H_
