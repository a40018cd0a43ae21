// Copyright 2026 The custody Authors.

#include "core/stats.h"

#include <algorithm>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/container/flat_hash_map.h"
#include "absl/debugging/stacktrace.h"
#include "absl/strings/str_format.h"

namespace custody {

std::string StatsSnapshot::to_string() const {
  return absl::StrFormat(
      "live_tensors=%d live_storages=%d bytes_in_use=%d peak_bytes_in_use=%d num_allocs=%d "
      "num_frees=%d reserved_bytes=%d num_alloc_retries=%d num_ooms=%d",
      live_tensors, live_storages, bytes_in_use, peak_bytes_in_use, num_allocs, num_frees,
      reserved_bytes, num_alloc_retries, num_ooms);
}

namespace internal {

constinit thread_local ThreadStatsCache thread_stats_cache{};
constinit thread_local MemoryCategory current_category = MemoryCategory::kUnknown;
constinit thread_local const char* current_op = nullptr;
constinit thread_local bool in_collector = false;
constinit thread_local const Holder* current_holder = nullptr;
constinit std::atomic<int> histories_recording{0};

namespace {

std::atomic<ThreadStatsBlock*> g_blocks{nullptr};  // every block ever made (never freed)
std::atomic<uint64_t> g_next_id{1};

constinit thread_local bool thread_exiting = false;

// Gives this thread's blocks back (to the next new thread) when it exits. A
// destructor that counts after this one gets a block of its own, never given back.
struct ThreadBlocks {
  std::vector<ThreadStatsBlock*> held;
  ~ThreadBlocks() {
    thread_exiting = true;
    thread_stats_cache = ThreadStatsCache{};
    for (ThreadStatsBlock* b : held) b->in_use.store(false, std::memory_order_release);
  }
};

}  // namespace
}  // namespace internal

namespace {
// Every MemoryStats alive, for record_collection().
struct Registry {
  absl::Mutex mu;
  std::vector<MemoryStats*> all ABSL_GUARDED_BY(mu);
};
Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: stats may outlive static destructors
  return *r;
}
}  // namespace

MemoryStats::MemoryStats() : id_(internal::g_next_id.fetch_add(1, std::memory_order_relaxed)) {
  Registry& r = registry();
  absl::MutexLock lock(&r.mu);
  r.all.push_back(this);
}

MemoryStats::~MemoryStats() {
  if (recording_sites_.load()) sites::release_tracking();
  if (recording_.load()) internal::histories_recording.fetch_sub(1);
  Registry& r = registry();
  absl::MutexLock lock(&r.mu);
  r.all.erase(std::remove(r.all.begin(), r.all.end(), this), r.all.end());
}

void record_collection() {
  Registry& r = registry();
  absl::MutexLock lock(&r.mu);
  for (MemoryStats* s : r.all) {
    if (s->recording()) s->record(MemoryEventKind::kCollection, 0);
  }
}

const char* category_name(MemoryCategory c) {
  switch (c) {
    case MemoryCategory::kParameter: return "parameter";
    case MemoryCategory::kOptimizerState: return "optimizer_state";
    case MemoryCategory::kInput: return "input";
    case MemoryCategory::kActivation: return "activation";
    case MemoryCategory::kGradient: return "gradient";
    case MemoryCategory::kTemporary: return "temporary";
    case MemoryCategory::kAutogradSaved: return "autograd_saved";
    case MemoryCategory::kUnknown: break;
  }
  return "unknown";
}

internal::ThreadStatsBlock* MemoryStats::block_slow() {
  using internal::ThreadStatsBlock;
  // Take over a block of this MemoryStats a thread left, or make one.
  ThreadStatsBlock* b = nullptr;
  for (ThreadStatsBlock* it = internal::g_blocks.load(std::memory_order_acquire); it != nullptr; it = it->next) {
    bool free = false;
    if (it->owner == id_ && it->in_use.compare_exchange_strong(free, true, std::memory_order_acquire)) {
      b = it;
      break;
    }
  }
  if (b == nullptr) {
    b = new ThreadStatsBlock;  // never freed (Note [Per-thread counters])
    b->owner = id_;
    b->in_use.store(true, std::memory_order_relaxed);
    b->next = internal::g_blocks.load(std::memory_order_relaxed);
    while (!internal::g_blocks.compare_exchange_weak(b->next, b, std::memory_order_release,
                                                     std::memory_order_relaxed)) {
    }
  }
  if (!internal::thread_exiting) {
    static thread_local internal::ThreadBlocks held;
    held.held.push_back(b);
  }
  // Cache it in a free slot, else in place of the oldest (that block stays this thread's).
  internal::ThreadStatsCache& c = internal::thread_stats_cache;
  int slot = internal::ThreadStatsCache::kSlots - 1;
  for (int i = 0; i < internal::ThreadStatsCache::kSlots; ++i) {
    if (c.id[i] == 0) {
      slot = i;
      break;
    }
  }
  c.id[slot] = id_;
  c.block[slot] = b;
  return b;
}

int64_t MemoryStats::sum(std::atomic<int64_t> internal::ThreadStatsBlock::*counter) const {
  int64_t total = 0;
  for (internal::ThreadStatsBlock* it = internal::g_blocks.load(std::memory_order_acquire); it != nullptr;
       it = it->next) {
    if (it->owner == id_) total += (it->*counter).load(std::memory_order_relaxed);
  }
  return total;
}

namespace {
// The stack of the event being recorded, whether or not sites are tracked
// for leak reports (sites::tracking()): the history asked for it.
ABSL_ATTRIBUTE_NOINLINE sites::Site this_stack() {
  void* pcs[sites::Site::kMaxFrames];
  return sites::Site::from_frames(pcs, absl::GetStackTrace(pcs, sites::Site::kMaxFrames, 0));
}
}  // namespace

void MemoryStats::on_alloc(int64_t bytes, const void* address) {
  internal::ThreadStatsBlock::add(block()->allocs, 1);
  const int64_t now = bytes_in_use_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t peak = peak_bytes_.load(std::memory_order_relaxed);
  while (now > peak && !peak_bytes_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  if (recording()) {
    record(MemoryEventKind::kAlloc, bytes, address,
           recording_sites_.load(std::memory_order_relaxed) ? this_stack() : sites::Site());
  }
}

// An allocator calls this before the block can be handed out again (before it
// goes back to the allocator underneath or into a cache another thread takes
// from): the history pairs frees with allocations by address, and a free
// recorded after another thread's allocation at the same address pairs with
// the wrong block (custody/report's HeldDead::out_of_order_allocs counts it).
void MemoryStats::on_free(int64_t bytes, const void* address) {
  internal::ThreadStatsBlock::add(block()->frees, 1);
  bytes_in_use_.fetch_sub(bytes, std::memory_order_relaxed);
  if (recording()) {
    record(MemoryEventKind::kFree, bytes, address,
           recording_sites_.load(std::memory_order_relaxed) && !internal::in_collector ? this_stack()
                                                                                     : sites::Site());
  }
}

StatsSnapshot MemoryStats::snapshot() const {
  StatsSnapshot s;
  s.live_tensors = sum(&internal::ThreadStatsBlock::tensors);
  s.live_storages = sum(&internal::ThreadStatsBlock::storages);
  s.bytes_in_use = bytes_in_use_.load();
  s.peak_bytes_in_use = peak_bytes_.load();
  s.num_allocs = sum(&internal::ThreadStatsBlock::allocs);
  s.num_frees = sum(&internal::ThreadStatsBlock::frees);
  s.reserved_bytes = reserved_bytes_.load();
  s.num_alloc_retries = num_alloc_retries_.load();
  s.num_ooms = num_ooms_.load();
  return s;
}

void HeldBy::push(const internal::Holder& holder) {
  holder_ = holder;
  previous_ = internal::current_holder;
  internal::current_holder = &holder_;
  active_ = true;
}

void HeldBy::pop() { internal::current_holder = previous_; }

void MemoryStats::record_history(bool enabled, bool with_sites) {
  absl::MutexLock lock(&mu_);
  if (enabled && !recording_.load()) {
    start_ = std::chrono::steady_clock::now();
    events_.clear();
  }
  const bool had_sites = recording_sites_.load();
  const bool was_recording = recording_.load();
  recording_sites_.store(enabled && with_sites);
  recording_.store(enabled);
  if (enabled != was_recording) internal::histories_recording.fetch_add(enabled ? 1 : -1);
  // Sites of holders too (Note [Held by]).
  if (enabled && with_sites && !had_sites) sites::hold_tracking();
  if (had_sites && !(enabled && with_sites)) sites::release_tracking();
}

namespace {

// MemoryEvent::thread: this thread's number, given on its first recorded event.
uint32_t recording_thread() {
  static std::atomic<uint32_t> next{1};
  static constinit thread_local uint32_t id = 0;
  if (id == 0) id = next.fetch_add(1, std::memory_order_relaxed);
  return id;
}

}  // namespace

void MemoryStats::on_saved(const void* address, const char* op) {
  if (!recording()) return;
  record(MemoryEventKind::kSaved, 0, address,
         recording_sites_.load(std::memory_order_relaxed) ? this_stack() : sites::Site(), op);
}

void MemoryStats::record(MemoryEventKind kind, int64_t bytes, const void* address, sites::Site site,
                         const char* op) {
  absl::MutexLock lock(&mu_);
  if (!recording_.load(std::memory_order_relaxed)) return;
  const double t =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // A free's holder (Note [Held by]).
  const internal::Holder* h = kind == MemoryEventKind::kFree ? internal::current_holder : nullptr;
  events_.push_back(MemoryEvent{t, bytes_in_use_.load(std::memory_order_relaxed),
                                sum(&internal::ThreadStatsBlock::tensors), kind, bytes,
                                address, std::move(site),
                                kind == MemoryEventKind::kAlloc ? internal::current_category
                                                                : MemoryCategory::kUnknown,
                                kind == MemoryEventKind::kAlloc ? internal::current_op : op,
                                kind == MemoryEventKind::kFree && internal::in_collector,
                                recording_thread(),
                                h != nullptr ? h->what : nullptr,
                                h != nullptr ? h->name : nullptr,
                                h != nullptr ? h->verb : nullptr,
                                h != nullptr && h->site != nullptr ? *h->site : sites::Site()});
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
