// Copyright 2026 The custody Authors.
//
// tests/extra_collector/deferred.cc — the queue of dropped references and its
// safe points: collect(), the reclaimer and the pressure trigger's allocation
// observer (core/reclaim.h).

#include "tests/extra_collector/deferred.h"

#include <atomic>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/reclaim.h"
#include "core/stats.h"

namespace custody::deferred {
namespace {

struct Queue {
  absl::Mutex mu;
  std::vector<ImplRef> refs ABSL_GUARDED_BY(mu);
  int64_t bytes ABSL_GUARDED_BY(mu) = 0;
  int64_t collections ABSL_GUARDED_BY(mu) = 0;
  int64_t given_back ABSL_GUARDED_BY(mu) = 0;
  std::atomic<int64_t> trigger_bytes{0};  // 0: no pressure trigger
};

bool on_alloc_failure(Device, size_t);
void on_alloc(Device, size_t);

// Never destroyed: a handle dropped during static destruction still finds it,
// and what it holds at exit stays held (the process is ending).
Queue& queue() {
  static Queue* q = [] {
    auto* made = new Queue;
    register_reclaimer(&on_alloc_failure);
    register_alloc_observer(&on_alloc);
    return made;
  }();
  return *q;
}

// Gives back the queue if `threshold` bytes are queued (0: always); returns how many.
int64_t flush(int64_t threshold) {
  Queue& q = queue();
  std::vector<ImplRef> batch;
  {
    absl::MutexLock lock(&q.mu);
    if (q.bytes < threshold) return 0;
    batch.swap(q.refs);
    q.bytes = 0;
    q.collections++;
    q.given_back += static_cast<int64_t>(batch.size());
  }
  const auto n = static_cast<int64_t>(batch.size());
  record_collection();         // a memory history tells held memory from garbage (core/stats.h)
  const CollectorFrees frees;  // what the batch frees is garbage this collection found
  batch.clear();               // outside the lock: destroying a tensor frees its memory
  return n;
}

// A tensor allocation failed: give back the queue, so that the retry may succeed.
bool on_alloc_failure(Device, size_t) { return flush(0) > 0; }

// After every tensor allocation: the pressure trigger's safe point.
void on_alloc(Device, size_t) {
  const int64_t threshold = queue().trigger_bytes.load(std::memory_order_relaxed);
  if (threshold > 0) flush(threshold);
}

}  // namespace

int64_t collect() { return flush(0); }

Stats stats() {
  Queue& q = queue();
  absl::MutexLock lock(&q.mu);
  return {q.collections, q.given_back, static_cast<int64_t>(q.refs.size()), q.bytes};
}

ScopedPressureTrigger::ScopedPressureTrigger(int64_t bytes) {
  if (bytes <= 0) {
    throw InvalidArgument(absl::StrFormat(
        "deferred::ScopedPressureTrigger: bytes must be positive (the queued bytes at which an "
        "allocation gives back the queue), got %d",
        bytes));
  }
  previous_ = queue().trigger_bytes.exchange(bytes, std::memory_order_relaxed);
}

ScopedPressureTrigger::~ScopedPressureTrigger() {
  queue().trigger_bytes.store(previous_, std::memory_order_relaxed);
}

namespace internal {

void defer(ImplRef ref) noexcept {
  const auto bytes = static_cast<int64_t>(ref->storage()->nbytes());
  Queue& q = queue();
  absl::MutexLock lock(&q.mu);
  try {
    q.refs.push_back(std::move(ref));
  } catch (...) {
    return;  // no room to queue it: `ref` is given back when this returns, outside the lock
  }
  q.bytes += bytes;
}

}  // namespace internal

}  // namespace custody::deferred
