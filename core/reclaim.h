// Copyright 2026 The custody Authors.
//
// core/reclaim.h — hooks between allocation and the policies that hold memory
// back (gc): an observer told of every tensor allocation (the memory-pressure
// trigger) and reclaimers run when an allocation fails, after which the
// allocation is retried once (CUDA.jl's `retry_reclaim`).
//
// Note [Reclaim hooks]
// ~~~~~~~~~~~~~~~~~~~~
// Hooks are process-wide, registered once (typically by a policy's static
// initialiser or first use) and never removed. They run on the allocating
// thread, outside every lock of core. A reclaimer returns true if it may have
// freed memory (then the allocation is retried and, if it succeeds, counted in
// MemoryStats::num_alloc_retries). With no hooks registered the cost is one
// relaxed atomic load per allocation.

#ifndef CUSTODY_CORE_RECLAIM_H_
#define CUSTODY_CORE_RECLAIM_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/storage.h"

namespace custody {

// Called after every successful tensor allocation with the byte count.
using AllocObserver = void (*)(Device device, size_t bytes);
// Called when an allocation of `bytes` failed; returns true if it may have freed memory.
using Reclaimer = bool (*)(Device device, size_t bytes);

void register_alloc_observer(AllocObserver fn);
void register_reclaimer(Reclaimer fn);

// Allocation-failure injection, for tests (Note [Allocation-failure injection]):
// the k-th tensor allocation from now on (k >= 1), on any backend, fails as if
// the device were full (ResourceExhausted, so an OutOfMemoryError), once;
// reclaimers then run and a retry may succeed, as for a real failure. k = 0
// disarms it. Counting is process-wide (all threads).
//
//   inject_allocation_failure(0);              // count only
//   run();  n = allocation_attempts();         // how many a run makes
//   for (k = 1..n) { inject_allocation_failure(k); run(); ... }
void inject_allocation_failure(int64_t k);
// Allocation attempts (retries included) since the last inject_allocation_failure.
int64_t allocation_attempts();
// Injected failures that have fired since the last inject_allocation_failure.
int64_t injected_failures();

// The same for tensor metadata (Note [Allocation-failure injection]): the k-th
// allocation of metadata from now on fails as if the heap were full, once,
// with an OutOfMemoryError — a TensorImpl (a view's, or the block of a new
// tensor with its Storage) or a policy's record of a reference (a dispose or
// gc alias, a scope entry, a manual ledger slot). No reclaimer runs: nothing a
// collection frees makes room for metadata. k = 0 disarms it.
void inject_metadata_failure(int64_t k);
int64_t metadata_attempts();
int64_t injected_metadata_failures();

namespace internal {
// Armed by inject_metadata_failure: the only cost of the hook below when not.
inline std::atomic<bool> metadata_injection_armed{false};
void maybe_fail_metadata_slow(const char* what);
// Where tensor metadata is allocated: throws OutOfMemoryError naming `what`
// when this is the injected failure.
inline void maybe_fail_metadata(const char* what) {
  if (metadata_injection_armed.load(std::memory_order_relaxed)) [[unlikely]] {
    maybe_fail_metadata_slow(what);
  }
}
void notify_alloc(Device device, size_t bytes);
bool run_reclaimers(Device device, size_t bytes);
// True when this allocation attempt is to fail (counts the attempt).
bool injected_allocation_failure();
}  // namespace internal

}  // namespace custody

#endif  // CUSTODY_CORE_RECLAIM_H_
