// Copyright 2026 The custody Authors.
//
// tests/extra_collector/deferred.h — `deferred`, a second collecting policy:
// reference counting whose drops are given back in batches at safe points. It
// exists to prove the collector hooks of core/policy_idiom.h open: it is
// defined outside policies/, never named by core, the matrix macro or the
// tools, and still runs as a collecting policy (PolicyIdiom::kCollects) in the
// conformance matrix, the compare tool, the fuzzers, failure injection, the
// stress test and the benchmarks.
//
//   using T = custody::BasicTensor<custody::deferred::Policy, custody::Onednn>;
//   {
//     T x = T::ones({1024});
//     T y = x;                       // a second reference
//     custody::release(y);           // given back now
//   }                                // x dropped: its reference is queued, the tensor lives on
//   custody::deferred::collect();    // a safe point: every queued reference given back
//   custody::deferred::ScopedPressureTrigger trigger(8 << 20);  // or: at the first allocation
//                                                               // once 8 MiB are queued
//
// Contract:
//  * A handle is one counted reference on the TensorImpl: copying a handle
//    takes another, a moved-from handle is empty.
//  * `custody::release(t)` gives the handle's reference back now.
//  * A handle dropped while it holds its reference (its destructor, or an
//    assignment over it) gives nothing back: the reference is queued. Queued
//    references are given back, all at once, at a safe point:
//      - `collect()`;
//      - the reclaimer (core/reclaim.h) when a tensor allocation fails, after
//        which the allocation is retried;
//      - the allocation observer (core/reclaim.h: on the allocating thread,
//        outside core's locks) while a ScopedPressureTrigger of N bytes is
//        alive and the queued references' storages hold N bytes or more.
//    Both hooks are registered on first use of the queue.
//  * Using a released, moved-from or default handle is a LifetimeError
//    naming the op.
//  * The queue is process-wide and thread-safe: a handle may be dropped on any
//    thread, and a safe point on any thread gives back what every thread queued.

#ifndef CUSTODY_TESTS_EXTRA_COLLECTOR_DEFERRED_H_
#define CUSTODY_TESTS_EXTRA_COLLECTOR_DEFERRED_H_

#include <cstdint>
#include <utility>

#include "absl/strings/str_format.h"
#include "core/error.h"
#include "core/policy_traits.h"
#include "core/tensor.h"
#include "core/tensor_impl.h"

namespace custody::deferred {

// Gives back every queued reference now; returns how many.
int64_t collect();

struct Stats {
  int64_t collections = 0;  // safe points that gave back the queue (collect, reclaimer, trigger)
  int64_t given_back = 0;   // references those collections gave back
  int64_t queued = 0;       // references queued now
  int64_t queued_bytes = 0; // the bytes of their storages
};
Stats stats();

// RAII: while alive, the first tensor allocation after the queued references'
// storages reach `bytes` gives back the queue. Restores the previous trigger
// (none: 0) when it goes. InvalidArgument unless bytes > 0.
class ScopedPressureTrigger {
 public:
  explicit ScopedPressureTrigger(int64_t bytes);
  ~ScopedPressureTrigger();
  ScopedPressureTrigger(const ScopedPressureTrigger&) = delete;
  ScopedPressureTrigger& operator=(const ScopedPressureTrigger&) = delete;

 private:
  int64_t previous_;
};

namespace internal {
// Queues `ref` until the next safe point; if the queue cannot grow, gives it back now.
void defer(ImplRef ref) noexcept;

// Out of line and cold, so that checked_impl's test inlines wherever a handle is used.
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_released(const char* op) {
  throw LifetimeError(absl::StrFormat(
      "%s: this deferred handle holds no reference (released, moved from, or never given one)",
      op));
}
}  // namespace internal

struct Policy {
  static constexpr const char* name = "deferred";

  template <class Derived>
  class Handle {
   public:
    Handle() = default;
    Handle(AdoptTag, ImplRef ref) : ref_(std::move(ref)) {}
    Handle(const Handle&) = default;
    Handle(Handle&&) noexcept = default;
    Handle& operator=(const Handle& o) {
      if (this != &o) drop(std::exchange(ref_, o.ref_));
      return *this;
    }
    Handle& operator=(Handle&& o) noexcept {
      if (this != &o) drop(std::exchange(ref_, std::move(o.ref_)));
      return *this;
    }
    ~Handle() { drop(std::move(ref_)); }

    const TensorImpl& checked_impl(const char* op) const {
      if (!ref_) [[unlikely]] internal::throw_released(op);
      return *ref_;
    }
    void release_reference() noexcept { ref_.reset(); }
    long use_count() const noexcept { return ref_ ? static_cast<long>(ref_->use_count()) : 0; }

   private:
    static void drop(ImplRef ref) noexcept {
      if (ref) internal::defer(std::move(ref));
    }

    ImplRef ref_;
  };
};
static_assert(OwnershipPolicy<Policy>);

}  // namespace custody::deferred

#endif  // CUSTODY_TESTS_EXTRA_COLLECTOR_DEFERRED_H_
