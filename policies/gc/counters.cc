// Copyright 2026 The custody Authors.
//
// policies/gc/counters.cc — the gc policy's counts: each thread's ThreadState
// (aliases created and disposed, bytes allocated and not yet shared), the
// shared counters, and the bytes allocated per device since the last
// collection that the pressure trigger reads (core's allocation observer).

#include "policies/gc/internal.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "policies/internal/per_thread.h"

namespace custody::gc::internal {

Counters& counters() {
  static Counters* c = new Counters;
  return *c;
}

ThreadState::ThreadState() {
  ThreadState* head = g_all_states.load(std::memory_order_relaxed);
  do {
    next_state = head;
  } while (!g_all_states.compare_exchange_weak(head, this, std::memory_order_release,
                                               std::memory_order_relaxed));
}
policy_internal::RegistryList<ThreadState>& thread_states() {
  static auto* list = new policy_internal::RegistryList<ThreadState>;  // immortal
  return *list;
}
ThreadState& late_state() {
  static auto* c = new ThreadState;
  return *c;
}

int64_t sum_counts(std::atomic<int64_t> ThreadState::*which) {
  int64_t total = (late_state().*which).load(std::memory_order_relaxed);
  for (ThreadState* t : thread_states().snapshot()) {
    total += (t->*which).load(std::memory_order_relaxed);
  }
  return total;
}

namespace {

// Note [Bytes since the last collection]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Every tensor allocation adds its bytes to its device's count, which the
// pressure trigger compares with its threshold and every collection resets.
// One shared atomic per device was a locked add per allocation, and the count
// of Note [No trigger] another. A thread instead keeps what it allocated in
// its ThreadState (a load and a store) and adds it to the shared count when
// it reaches kFlushBytes, when the thread allocates on another device, or when
// the shared count plus its own reaches the trigger's threshold: on one thread
// the trigger becomes due at the same allocation as with a shared count; each
// other thread may hold back up to kFlushBytes. A reset bumps `bytes_epoch`; a
// thread that finds it changed drops what it held (allocated before the
// collection). Readers (bytes_since_collection(), stats(), the trigger's slow
// path) add every thread's bytes of the current epoch to the shared counts:
// exact when no other thread allocates meanwhile.
constexpr int64_t kFlushBytes = int64_t{256} << 10;

}  // namespace

DeviceBytes bytes_since_all() {
  Counters& c = counters();
  DeviceBytes out;
  for (size_t i = 0; i < out.size(); ++i) out[i] = c.bytes_since[i].load(std::memory_order_relaxed);
  const uint64_t epoch = c.bytes_epoch.load(std::memory_order_acquire);
  for (ThreadState* t : thread_states().snapshot()) {
    if (t->bytes_epoch.load(std::memory_order_relaxed) != epoch) continue;
    out[static_cast<size_t>(t->bytes_slot.load(std::memory_order_relaxed))] +=
        t->bytes_pending.load(std::memory_order_relaxed);
  }
  return out;
}
int64_t max_bytes_since() {
  const DeviceBytes b = bytes_since_all();
  return *std::max_element(b.begin(), b.end());
}
int64_t total_bytes_since() {
  int64_t total = 0;
  for (int64_t b : bytes_since_all()) total += b;
  return total;
}

namespace {

// Adds `bytes` to the shared count of `slot` (Note [Bytes since the last collection]).
void add_shared_bytes(int slot, int64_t bytes, bool triggered) {
  const int64_t since =
      counters().bytes_since[slot].fetch_add(bytes, std::memory_order_relaxed) + bytes;
  Trigger& t = trigger();
  if (!triggered) {
    note_untriggered(static_cast<size_t>(bytes));
  } else if (since >= t.threshold.load(std::memory_order_relaxed)) {
    t.due.store(true, std::memory_order_relaxed);
  }
}

}  // namespace

void on_alloc(Device device, size_t size) {
  const int slot = device_slot(device);
  const int64_t bytes = static_cast<int64_t>(size);
  Counters& c = counters();
  Trigger& tr = trigger();
  const bool triggered = tr.enabled.load(std::memory_order_relaxed);
  ThreadState* t = StateOfThisThread::mine();
  if (t == nullptr) [[unlikely]] {  // a thread_local destructor
    add_shared_bytes(slot, bytes, triggered);
    return;
  }
  // Only this thread writes its counts: loads and stores, no RMW.
  const uint64_t epoch = c.bytes_epoch.load(std::memory_order_relaxed);
  int64_t pending = t->bytes_pending.load(std::memory_order_relaxed);
  if (t->bytes_epoch.load(std::memory_order_relaxed) != epoch) [[unlikely]] {
    t->bytes_epoch.store(epoch, std::memory_order_relaxed);
    pending = 0;  // allocated before the last collection
  } else if (const int held = t->bytes_slot.load(std::memory_order_relaxed); held != slot) {
    t->bytes_pending.store(0, std::memory_order_relaxed);
    if (pending != 0) add_shared_bytes(held, pending, triggered);
    pending = 0;
  }
  t->bytes_slot.store(slot, std::memory_order_relaxed);
  pending += bytes;
  if (pending < kFlushBytes &&
      !(triggered && c.bytes_since[slot].load(std::memory_order_relaxed) + pending >=
                         tr.threshold.load(std::memory_order_relaxed))) {
    t->bytes_pending.store(pending, std::memory_order_relaxed);
    return;
  }
  t->bytes_pending.store(0, std::memory_order_relaxed);
  add_shared_bytes(slot, pending, triggered);
}

}  // namespace custody::gc::internal
