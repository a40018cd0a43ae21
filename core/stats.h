// Copyright 2026 The custody Authors.
//
// core/stats.h — exact memory statistics, one `MemoryStats` per backend, and
// the optional memory history the compare tool plots.
//
// Counters are exact: every Storage/TensorImpl construction and destruction and
// every backend allocation and free updates them (Note [Per-thread counters]). `peak_bytes_in_use`
// is the maximum of `bytes_in_use` since the last `reset_peak()`.

#ifndef CUSTODY_CORE_STATS_H_
#define CUSTODY_CORE_STATS_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "core/sites.h"

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
// kCollection: a garbage collection began (record_collection(), called by a
// collecting policy before each collection it runs).
// kSaved: an autograd node took the allocation `address` as a tensor it saves
// for backward (MemoryEvent::op names the node, `site` is the stack that
// recorded the op when sites are recorded).
enum class MemoryEventKind : uint8_t {
  kAlloc, kFree, kTensorCreated, kTensorDestroyed, kMark, kUse, kCollection, kSaved,
};

// What an allocation holds, as PyTorch's memory profiler categories: the
// category in effect when it was made (CategoryScope below). core/nn sets them
// (parameters in VarStore, activations in module forwards, gradients in the
// backward functions, optimizer state in the optimizers), host data copied in
// (from_vector, from_blob copies) is an input; custody/report refines the rest
// from the history (Note [Memory categories], custody/report/held_dead.cc).
enum class MemoryCategory : uint8_t {
  kUnknown,  // nothing said: custody/report calls it an activation or a temporary
  kParameter,
  kOptimizerState,
  kInput,
  kActivation,
  kGradient,
  kTemporary,
  // Saved for backward by an autograd node (PyTorch's AUTOGRAD_DETAIL): given by
  // custody/report to what a kSaved event names, not set by a CategoryScope.
  kAutogradSaved,
};
inline constexpr int kNumMemoryCategories = 8;
// "parameter", "optimizer_state", "input", "activation", "gradient", "temporary",
// "autograd_saved", "unknown".
const char* category_name(MemoryCategory c);

struct MemoryEvent {
  double time_s;          // seconds since history recording started
  int64_t bytes_in_use;   // after the event
  int64_t live_tensors;   // after the event
  MemoryEventKind kind;
  int64_t bytes;          // size of the alloc/free, 0 otherwise
  const void* address = nullptr;  // the allocation (kAlloc, kFree, kUse), when known
  // When the history records sites (record_history(true, /*with_sites=*/true)):
  // the call stack that made a kAlloc, that freed a kFree (not a collector's),
  // that recorded a kSaved's node; empty otherwise.
  sites::Site site;
  MemoryCategory category = MemoryCategory::kUnknown;  // kAlloc: the category it was made in
  // kAlloc: the op that allocated ("relu", "matmul", "from_vector"; OpScope);
  // kSaved: the autograd node that saved it. Null when not known.
  const char* op = nullptr;
  bool by_collector = false;  // kFree: given back by a collection that found it garbage (CollectorFrees)
  // The thread that made the event: numbered from 1 in the order threads first
  // record one (a thread's number is never reused). A kFree whose thread differs
  // from its kAlloc's is a release on another thread (a server's responder).
  uint32_t thread = 0;
  // kFree: what held it until now, as the policy that let it go says (HeldBy,
  // Note [Held by]); null when none said, which is its last reference going.
  // `site` is then the stack that freed it, when sites are recorded.
  const char* holder = nullptr;       // "the dispose scope"
  const char* holder_name = nullptr;  // the autograd node's name ("relu"); null otherwise
  const char* holder_verb = nullptr;  // how holder_site relates to it: "opened at", "made at"
  sites::Site holder_site;            // where the holder was made, when known
};

// The live-set lower bound of a recorded history: the peak of bytes in use had
// every allocation been freed right after its last use (its kAlloc, or the
// last kUse of its address before its kFree). No ownership policy can do
// better with the same allocations; the compare tool reports each policy's
// peak as a ratio to it. Addresses are reused: an allocation is the span from
// a kAlloc to the kFree of the same address. Allocations made before
// recording started are not counted (start recording before the workload).
int64_t live_set_lower_bound(const std::vector<MemoryEvent>& history);

namespace internal {

// Note [Per-thread counters]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// Counting a tensor or an allocation must not cost a contended atomic
// read-modify-write: a tiny op creates and destroys a tensor, a storage and an
// allocation, and six `lock`-prefixed instructions were a third of its time.
// So the counters that are sums (tensors, storages, allocations, frees) live in
// per-thread blocks: only the owning thread writes a block (a relaxed load and
// store, no RMW), any thread reads it, and snapshot() adds up every block of
// its MemoryStats. Blocks are never freed: a thread that exits leaves its
// counts in its block, which the next new thread takes over and continues.
// Sums are exact whenever no other thread is creating or destroying meanwhile
// (what every G6 check and test sees). bytes_in_use stays one global atomic,
// so peak_bytes_in_use is the exact maximum of the real total.
struct alignas(64) ThreadStatsBlock {
  std::atomic<int64_t> tensors{0};   // created - destroyed, by this thread
  std::atomic<int64_t> storages{0};
  std::atomic<int64_t> allocs{0};
  std::atomic<int64_t> frees{0};
  uint64_t owner = 0;                // the MemoryStats' id
  std::atomic<bool> in_use{false};   // held by a live thread
  ThreadStatsBlock* next = nullptr;  // the global list of blocks (push only)

  static void add(std::atomic<int64_t>& counter, int64_t delta) {
    counter.store(counter.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
  }
};

// This thread's blocks of the last few MemoryStats it counted in.
struct ThreadStatsCache {
  static constexpr int kSlots = 4;
  uint64_t id[kSlots];
  ThreadStatsBlock* block[kSlots];
};
extern constinit thread_local ThreadStatsCache thread_stats_cache;

// This thread's category for what it allocates now (CategoryScope), and
// whether what it frees now is a collector's (CollectorFrees).
extern constinit thread_local MemoryCategory current_category;
extern constinit thread_local const char* current_op;
struct Holder {
  const char* what;
  const char* name;
  const sites::Site* site;
  const char* verb;
};
extern constinit thread_local const Holder* current_holder;
extern constinit thread_local bool in_collector;
// How many MemoryStats record a history now, over every backend: a HeldBy
// with none recording touches nothing but this count.
extern constinit std::atomic<int> histories_recording;

}  // namespace internal

// RAII: what this thread frees while it is alive is a collector giving back
// garbage it found (MemoryEvent::by_collector, which the report's held-dead
// analysis counts as awaiting collection). A collecting policy opens one
// around what a collection gives back (gc's finalizers, deferred's batch,
// tests/extra_collector). Nests; a thread-local store and load.
class CollectorFrees {
 public:
  CollectorFrees() : outer_(internal::in_collector) { internal::in_collector = true; }
  ~CollectorFrees() { internal::in_collector = outer_; }
  CollectorFrees(const CollectorFrees&) = delete;
  CollectorFrees& operator=(const CollectorFrees&) = delete;

 private:
  bool outer_;
};

// Everything this thread allocates while a CategoryScope is alive is of its
// category, nested scopes overriding outer ones, except inside a parameter or
// optimizer-state scope: what builds persistent state is that state (its
// temporaries are given back at once). A thread-local store and load; what it
// says reaches only a recorded memory history.
//
//   CategoryScope c(MemoryCategory::kActivation);
//   T h = x.matmul(w);   // recorded as an activation
class CategoryScope {
 public:
  explicit CategoryScope(MemoryCategory c) : previous_(internal::current_category) {
    if (previous_ != MemoryCategory::kParameter && previous_ != MemoryCategory::kOptimizerState) {
      internal::current_category = c;
    }
  }
  CategoryScope(const CategoryScope&) = delete;
  CategoryScope& operator=(const CategoryScope&) = delete;
  ~CategoryScope() { internal::current_category = previous_; }

 private:
  MemoryCategory previous_;
};

// RAII: what this thread allocates while it is alive was allocated by the op
// `op` (a string that outlives the history: an op's name), recorded with each
// kAlloc of a memory history (MemoryEvent::op). Ops<B> opens one around each
// output's allocation. A thread-local store and load.
class OpScope {
 public:
  explicit OpScope(const char* op) : previous_(internal::current_op) { internal::current_op = op; }
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;
  ~OpScope() { internal::current_op = previous_; }

 private:
  const char* previous_;
};

// Note [Held by]
// ~~~~~~~~~~~~~~~
// Memory held past its last use was held by something: a handle still alive,
// a reference not yet disposed or freed, a scope not yet ended, an alias the
// collector has not yet found garbage, a VarStore, an autograd node that saved
// it. The policy knows which when it lets the memory go, so that is where it
// is said: a policy (or core/nn, or the autograd engine) opens a HeldBy around
// what it gives back, and each kFree of a memory history records the innermost
// one (MemoryEvent::holder...) with the stack that freed it. Nothing is named
// by the report code: custody/report prints what the policy said ("the dispose
// scope opened at workloads/mlp/scope.h:31") and adds up the dead byte-time
// each holder kept. A free with no HeldBy open is its last reference going
// (a TensorPtr's last handle, a Tensor's destructor), reported with the line
// that dropped it. What it says reaches only a recorded memory history, so
// while no history records it reads one global count and nothing else (it
// sits on every policy's release path).
//
//   HeldBy held("the dispose scope", &scope->opened_at, "opened at");
//   refs.clear();  // each kFree: held by the dispose scope opened at ...
class HeldBy {
 public:
  // `what`, `name` and `verb` outlive the history (string literals, op names);
  // `site` (may be null or empty) outlives this HeldBy.
  explicit HeldBy(const char* what, const sites::Site* site = nullptr, const char* verb = "made at",
                  const char* name = nullptr) {
    if (internal::histories_recording.load(std::memory_order_relaxed) == 0) [[likely]] return;
    push(internal::Holder{what, name, site, verb});
  }
  HeldBy(const HeldBy&) = delete;
  HeldBy& operator=(const HeldBy&) = delete;
  ~HeldBy() {
    if (active_) pop();
  }

 private:
  // Out of line: only a recorded history pays for them.
  void push(const internal::Holder& holder);
  void pop();

  internal::Holder holder_;
  const internal::Holder* previous_ = nullptr;
  bool active_ = false;
};

// Adds a kCollection event to the history of every MemoryStats recording one:
// a collecting policy (gc, tests/extra_collector's deferred) calls it as each
// collection begins, so a report can tell memory a program still held from
// garbage waiting for the collector.
void record_collection();

class MemoryStats {
 public:
  MemoryStats();
  ~MemoryStats();
  MemoryStats(const MemoryStats&) = delete;
  MemoryStats& operator=(const MemoryStats&) = delete;

  void on_tensor_created() { count(&internal::ThreadStatsBlock::tensors, 1, MemoryEventKind::kTensorCreated); }
  void on_tensor_destroyed() { count(&internal::ThreadStatsBlock::tensors, -1, MemoryEventKind::kTensorDestroyed); }
  void on_storage_created() { internal::ThreadStatsBlock::add(block()->storages, 1); }
  void on_storage_destroyed() { internal::ThreadStatsBlock::add(block()->storages, -1); }
  // `address`: the allocation, for the memory history (may be null).
  void on_alloc(int64_t bytes, const void* address = nullptr);
  void on_free(int64_t bytes, const void* address = nullptr);
  // A kernel is about to read or write the allocation at `address` (history only).
  void on_use(const void* address) {
    if (recording()) record(MemoryEventKind::kUse, 0, address);
  }
  // The autograd node `op` saved the allocation at `address` for backward (history only).
  void on_saved(const void* address, const char* op);
  void on_retry() { num_alloc_retries_.fetch_add(1, std::memory_order_relaxed); }
  void on_oom() { num_ooms_.fetch_add(1, std::memory_order_relaxed); }
  void set_reserved(int64_t bytes) { reserved_bytes_.store(bytes, std::memory_order_relaxed); }
  void add_reserved(int64_t bytes) { reserved_bytes_.fetch_add(bytes, std::memory_order_relaxed); }

  // Exact when no other thread creates or destroys meanwhile (Note [Per-thread counters]).
  StatsSnapshot snapshot() const;
  void reset_peak() { peak_bytes_.store(bytes_in_use_.load(std::memory_order_relaxed)); }

  // Memory history (cf. torch.cuda.memory._record_memory_history). With
  // `with_sites`, each kAlloc also keeps the call stack that made it (about a
  // microsecond per allocation; symbolized only by whoever reads it).
  void record_history(bool enabled, bool with_sites = false);
  bool recording() const { return recording_.load(std::memory_order_relaxed); }
  void mark();  // adds a kMark event (e.g. at each training step)
  std::vector<MemoryEvent> history() const;
  void clear_history();

 private:
  friend void record_collection();
  // This thread's counter block (Note [Per-thread counters]).
  internal::ThreadStatsBlock* block() {
    const internal::ThreadStatsCache& c = internal::thread_stats_cache;
    for (int i = 0; i < internal::ThreadStatsCache::kSlots; ++i) {
      if (c.id[i] == id_) return c.block[i];
    }
    return block_slow();
  }
  internal::ThreadStatsBlock* block_slow();
  void count(std::atomic<int64_t> internal::ThreadStatsBlock::*counter, int64_t delta, MemoryEventKind kind) {
    internal::ThreadStatsBlock::add(block()->*counter, delta);
    if (recording()) record(kind, 0);
  }
  int64_t sum(std::atomic<int64_t> internal::ThreadStatsBlock::*counter) const;
  void record(MemoryEventKind kind, int64_t bytes, const void* address = nullptr,
              sites::Site site = {}, const char* op = nullptr);

  const uint64_t id_;  // unique, never reused
  std::atomic<int64_t> bytes_in_use_{0}, peak_bytes_{0}, reserved_bytes_{0}, num_alloc_retries_{0},
      num_ooms_{0};
  std::atomic<bool> recording_{false}, recording_sites_{false};
  mutable absl::Mutex mu_;
  std::chrono::steady_clock::time_point start_;
  std::vector<MemoryEvent> events_;
};

}  // namespace custody

#endif  // CUSTODY_CORE_STATS_H_
