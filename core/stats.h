// Copyright 2026 The custody Authors.
//
// core/stats.h — exact memory statistics, one `MemoryStats` per backend, and
// the optional memory history the compare tool plots.
//
// Counters are exact: every Storage/TensorImpl construction and destruction and
// every backend allocation and free updates them atomically. `peak_bytes_in_use`
// is the maximum of `bytes_in_use` since the last `reset_peak()`.

#ifndef CUSTODY_CORE_STATS_H_
#define CUSTODY_CORE_STATS_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace custody {

struct StatsSnapshot {
  int64_t live_tensors = 0;       // TensorImpls alive
  int64_t live_storages = 0;      // Storages alive (owning or from_blob)
  int64_t bytes_in_use = 0;       // bytes the backend handed out and not yet freed
  int64_t peak_bytes_in_use = 0;  // max of bytes_in_use since reset_peak()
  int64_t num_allocs = 0;
  int64_t num_frees = 0;
  int64_t reserved_bytes = 0;     // bytes held from the system (>= bytes_in_use for pools)
  int64_t num_alloc_retries = 0;  // allocations that succeeded only after reclaiming
  int64_t num_ooms = 0;           // allocations that failed for good
  std::string to_string() const;
};

// kUse: a kernel read or wrote the allocation `address` (recorded where a
// kernel view of a tensor is taken, and on copies to the host).
enum class MemoryEventKind : uint8_t { kAlloc, kFree, kTensorCreated, kTensorDestroyed, kMark, kUse };

struct MemoryEvent {
  double time_s;          // seconds since history recording started
  int64_t bytes_in_use;   // after the event
  int64_t live_tensors;   // after the event
  MemoryEventKind kind;
  int64_t bytes;          // size of the alloc/free, 0 otherwise
  const void* address = nullptr;  // the allocation (kAlloc, kFree, kUse), when known
};

// The live-set lower bound of a recorded history: the peak of bytes in use had
// every allocation been freed right after its last use (its kAlloc, or the
// last kUse of its address before its kFree). No ownership policy can do
// better with the same allocations; the compare tool reports each policy's
// peak as a ratio to it. Addresses are reused: an allocation is the span from
// a kAlloc to the kFree of the same address. Allocations made before
// recording started are not counted (start recording before the workload).
int64_t live_set_lower_bound(const std::vector<MemoryEvent>& history);

class MemoryStats {
 public:
  void on_tensor_created() { bump(live_tensors_, 1, MemoryEventKind::kTensorCreated, 0); }
  void on_tensor_destroyed() { bump(live_tensors_, -1, MemoryEventKind::kTensorDestroyed, 0); }
  void on_storage_created() { live_storages_.fetch_add(1, std::memory_order_relaxed); }
  void on_storage_destroyed() { live_storages_.fetch_sub(1, std::memory_order_relaxed); }
  // `address`: the allocation, for the memory history (may be null).
  void on_alloc(int64_t bytes, const void* address = nullptr);
  void on_free(int64_t bytes, const void* address = nullptr);
  // A kernel is about to read or write the allocation at `address` (history only).
  void on_use(const void* address) {
    if (recording()) record(MemoryEventKind::kUse, 0, address);
  }
  void on_retry() { num_alloc_retries_.fetch_add(1, std::memory_order_relaxed); }
  void on_oom() { num_ooms_.fetch_add(1, std::memory_order_relaxed); }
  void set_reserved(int64_t bytes) { reserved_bytes_.store(bytes, std::memory_order_relaxed); }
  void add_reserved(int64_t bytes) { reserved_bytes_.fetch_add(bytes, std::memory_order_relaxed); }

  StatsSnapshot snapshot() const;
  void reset_peak() { peak_bytes_.store(bytes_in_use_.load(std::memory_order_relaxed)); }

  // Memory history (cf. torch.cuda.memory._record_memory_history).
  void record_history(bool enabled);
  bool recording() const { return recording_.load(std::memory_order_relaxed); }
  void mark();  // adds a kMark event (e.g. at each training step)
  std::vector<MemoryEvent> history() const;
  void clear_history();

 private:
  void bump(std::atomic<int64_t>& counter, int64_t delta, MemoryEventKind kind, int64_t bytes);
  void record(MemoryEventKind kind, int64_t bytes, const void* address = nullptr);

  std::atomic<int64_t> live_tensors_{0}, live_storages_{0}, bytes_in_use_{0}, peak_bytes_{0},
      num_allocs_{0}, num_frees_{0}, reserved_bytes_{0}, num_alloc_retries_{0}, num_ooms_{0};
  std::atomic<bool> recording_{false};
  mutable absl::Mutex mu_;
  std::chrono::steady_clock::time_point start_;
  std::vector<MemoryEvent> events_;
};

}  // namespace custody

#endif  // CUSTODY_CORE_STATS_H_
