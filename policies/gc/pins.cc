// Copyright 2026 The custody Authors.
//
// policies/gc/pins.cc — the slots of the per-thread ring of pinned operands
// (Note [Keep-alive] in gc.h): uncollectable arrays the collector scans,
// pooled across threads.

#include "policies/gc/internal.h"

#include <vector>

#include "absl/synchronization/mutex.h"
#include "core/error.h"

namespace custody::gc::internal {

namespace {
struct PinPool {
  absl::Mutex mu;
  std::vector<const void**> free;
};
PinPool& pin_pool() {
  static auto* p = new PinPool;
  return *p;
}
}  // namespace

const void** acquire_pin_slots() {
  {
    PinPool& pool = pin_pool();
    absl::MutexLock lock(&pool.mu);
    if (!pool.free.empty()) {
      const void** slots = pool.free.back();
      pool.free.pop_back();
      return slots;
    }
  }
  // Uncollectable: scanned by the collector, never freed by it (threads come and
  // go; their slot arrays are pooled, not freed, so no GC call is needed at exit).
  void* mem = GC_MALLOC_UNCOLLECTABLE(kRootWords * sizeof(void*));
  if (mem == nullptr) throw OutOfMemoryError("gc: could not allocate the operand pin slots");
  return static_cast<const void**>(mem);
}

void clear_pins() {
  PinRing& r = tls_pins;
  if (r.slots == nullptr) return;
  for (unsigned i = 0; i < kPinSlots; ++i) r.slots[i] = nullptr;
}

PinRing::~PinRing() {
  exited = true;
  if (slots == nullptr) return;
  // The rest of the alias batch becomes garbage (Note [Alias batches]).
  for (unsigned i = 0; i < kRootWords; ++i) slots[i] = nullptr;
  PinPool& pool = pin_pool();
  absl::MutexLock lock(&pool.mu);
  pool.free.push_back(slots);
  slots = nullptr;  // a later pin() takes slots of its own, never these pooled ones
}

}  // namespace custody::gc::internal
