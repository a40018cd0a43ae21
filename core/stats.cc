// Copyright 2026 The custody Authors.

#include "core/stats.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"

namespace custody {

std::string StatsSnapshot::to_string() const {
  return absl::StrFormat(
      "live_tensors=%d live_storages=%d bytes_in_use=%d peak_bytes_in_use=%d num_allocs=%d "
      "num_frees=%d reserved_bytes=%d num_alloc_retries=%d num_ooms=%d",
      live_tensors, live_storages, bytes_in_use, peak_bytes_in_use, num_allocs, num_frees,
      reserved_bytes, num_alloc_retries, num_ooms);
}

void MemoryStats::on_alloc(int64_t bytes, const void* address) {
  num_allocs_.fetch_add(1, std::memory_order_relaxed);
  const int64_t now = bytes_in_use_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t peak = peak_bytes_.load(std::memory_order_relaxed);
  while (now > peak && !peak_bytes_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  if (recording()) record(MemoryEventKind::kAlloc, bytes, address);
}

void MemoryStats::on_free(int64_t bytes, const void* address) {
  num_frees_.fetch_add(1, std::memory_order_relaxed);
  bytes_in_use_.fetch_sub(bytes, std::memory_order_relaxed);
  if (recording()) record(MemoryEventKind::kFree, bytes, address);
}

void MemoryStats::bump(std::atomic<int64_t>& counter, int64_t delta, MemoryEventKind kind,
                       int64_t bytes) {
  counter.fetch_add(delta, std::memory_order_relaxed);
  if (recording()) record(kind, bytes);
}

StatsSnapshot MemoryStats::snapshot() const {
  StatsSnapshot s;
  s.live_tensors = live_tensors_.load();
  s.live_storages = live_storages_.load();
  s.bytes_in_use = bytes_in_use_.load();
  s.peak_bytes_in_use = peak_bytes_.load();
  s.num_allocs = num_allocs_.load();
  s.num_frees = num_frees_.load();
  s.reserved_bytes = reserved_bytes_.load();
  s.num_alloc_retries = num_alloc_retries_.load();
  s.num_ooms = num_ooms_.load();
  return s;
}

void MemoryStats::record_history(bool enabled) {
  absl::MutexLock lock(&mu_);
  if (enabled && !recording_.load()) {
    start_ = std::chrono::steady_clock::now();
    events_.clear();
  }
  recording_.store(enabled);
}

void MemoryStats::record(MemoryEventKind kind, int64_t bytes, const void* address) {
  absl::MutexLock lock(&mu_);
  if (!recording_.load(std::memory_order_relaxed)) return;
  const double t =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  events_.push_back(MemoryEvent{t, bytes_in_use_.load(std::memory_order_relaxed),
                                live_tensors_.load(std::memory_order_relaxed), kind, bytes,
                                address});
}

void MemoryStats::mark() {
  if (recording()) record(MemoryEventKind::kMark, 0);
}

std::vector<MemoryEvent> MemoryStats::history() const {
  absl::MutexLock lock(&mu_);
  return events_;
}

void MemoryStats::clear_history() {
  absl::MutexLock lock(&mu_);
  events_.clear();
}

int64_t live_set_lower_bound(const std::vector<MemoryEvent>& history) {
  // Pass 1: for each allocation (event index of its kAlloc), the index of its
  // last use; an allocation is open from its kAlloc until the kFree of its address.
  const size_t n = history.size();
  std::vector<size_t> last_use(n, 0);
  absl::flat_hash_map<const void*, size_t> open;  // address -> index of its kAlloc
  for (size_t i = 0; i < n; ++i) {
    const MemoryEvent& e = history[i];
    if (e.address == nullptr) continue;
    switch (e.kind) {
      case MemoryEventKind::kAlloc:
        open[e.address] = i;
        last_use[i] = i;
        break;
      case MemoryEventKind::kUse:
        if (auto it = open.find(e.address); it != open.end()) last_use[it->second] = i;
        break;
      case MemoryEventKind::kFree:
        open.erase(e.address);
        break;
      default:
        break;
    }
  }
  // Pass 2: sweep, each allocation live over [alloc, last use].
  std::vector<int64_t> delta(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    const MemoryEvent& e = history[i];
    if (e.kind != MemoryEventKind::kAlloc || e.address == nullptr) continue;
    delta[i] += e.bytes;
    delta[last_use[i] + 1] -= e.bytes;
  }
  int64_t live = 0, peak = 0;
  for (size_t i = 0; i < n; ++i) {
    live += delta[i];
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace custody
