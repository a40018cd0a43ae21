// Copyright 2026 The custody Authors.
//
// custody/report/held_dead.h — where memory is held past its last use, from a
// recorded memory history (core/stats.h), by creation site.
//
//   B::stats().record_history(true, /*with_sites=*/true);
//   ... steps, each ended by B::stats().mark() ...
//   B::stats().record_history(false);
//   const report::HeldDead h = report::held_dead(B::stats().history());
//   for (const report::SiteHeld& s : h.sites) std::cout << s.frame << " " << s.held_dead_byte_steps;
//
// For every allocation of the history: its creation (kAlloc, with the stack
// that made it), its last use (the last kUse of its address before its kFree,
// or its kAlloc) and its free (kFree, or the end of the history when it was
// never freed). Time is step-time on the kernels' clock (StepClock): the
// marks end steps, each step is 1 whatever it costs, and within a step time
// advances with each kernel use (kUse), so an allocation freed before the next
// kernel runs was held dead for no time at all.
//
//   byte-steps       bytes × (free − alloc)        what the program held
//   bound            bytes × (last use − alloc)    what the live-set bound's schedule holds
//   held dead        bytes × (free − last use)     the difference: memory held past its last use
//   dead at the peak the allocations alive at the history's peak whose last use was already past
//
// so Σ held dead = byte-steps − bound, over every site and in total. Sites
// are folded to their first frame outside custody's own code (Note [Folding
// sites]) and aggregated by that frame's file:line.
//
// A tensor an autograd node saved for backward is shown at the site that
// saved it (the op's call), with the node's name (SiteHeld::saved_by).
//
// Each allocation also has a category (Note [Memory categories]), and under a
// garbage collector its held-dead time is split: the part after the last
// collection that still found it reachable may have been garbage awaiting
// the next collection (Note [Garbage awaiting collection]).

#ifndef CUSTODY_CUSTODY_REPORT_HELD_DEAD_H_
#define CUSTODY_CUSTODY_REPORT_HELD_DEAD_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/stats.h"

namespace custody::report {

// One creation site: the allocations whose stacks fold to the same frame.
struct SiteHeld {
  std::string frame;  // the first frame outside custody: "file:line function" ("(no site)" without stacks)
  const void* pc = nullptr;  // the program counter of the first allocation's frame
  std::string stack;  // the whole stack of the site's largest holder of dead memory, symbolized
  int64_t allocations = 0;
  int64_t bytes = 0;  // allocated in all
  double byte_steps = 0;
  double held_dead_byte_steps = 0;
  int64_t dead_at_peak_bytes = 0;
  int64_t alive_at_peak_bytes = 0;
  int64_t unfreed_bytes = 0;  // never freed while the history was recorded
  // Of held_dead_byte_steps, at most this was garbage awaiting a collection.
  double awaiting_collection_byte_steps = 0;
  MemoryCategory category = MemoryCategory::kUnknown;  // of most of its bytes
  // The ops that allocated this site's memory ("relu"; several when one line
  // makes more than one), in the order first seen; empty when not recorded.
  std::vector<std::string> ops;
  // The autograd node that saved this site's tensors for backward ("relu"),
  // when the site is where they were saved; empty otherwise.
  std::string saved_by;
  // What held most of this site's dead byte-time (HeldByShare::label()); empty
  // when nothing was held dead.
  std::string held_by;
};

// What held memory past its last use (Note [Held by], core/stats.h), and how
// much: the allocations it let go of, and their dead byte-time.
struct HeldByShare {
  // As the policy said it, with the line of its site: "the dispose scope
  // opened at workloads/mlp/scope.h:31", "the autograd node relu", "its last
  // handle" (no holder said: the last reference went); "garbage awaiting a
  // collection" and "<holder>, still reachable" split a collector's frees
  // (Note [Garbage awaiting collection]); "still held at the end" when never freed.
  std::string holder;
  // The line that let go of most of it (the free's stack, folded), when
  // sites were recorded and the holder names no site of its own.
  std::string released_at;
  int64_t allocations = 0;
  double held_dead_byte_steps = 0;
  // "holder, released at file:line" (or the holder alone).
  std::string label() const { return released_at.empty() ? holder : holder + ", released at " + released_at; }
};

// Bytes in use by category, and the live-set bound's schedule, after an event.
struct TimelineSample {
  double step = 0;  // StepClock time
  std::array<int64_t, kNumMemoryCategories> by_category{};  // indexed by MemoryCategory
  int64_t bound = 0;  // the bytes the live-set bound's schedule holds: allocated and not yet past last use
  int64_t total() const {
    int64_t t = 0;
    for (int64_t b : by_category) t += b;
    return t;
  }
};

struct HeldDead {
  double byte_steps = 0;            // Σ bytes × (free − alloc)
  double bound_byte_steps = 0;      // Σ bytes × (last use − alloc)
  double held_dead_byte_steps = 0;  // Σ bytes × (free − last use)
  int64_t peak_bytes = 0;           // of the recorded allocations, at the history's peak
  double peak_step = 0;
  int64_t dead_at_peak_bytes = 0;
  int64_t steps = 0;                 // marks after the first: steps recorded
  int64_t collections = 0;           // kCollection events recorded
  double awaiting_collection_byte_steps = 0;  // of held_dead_byte_steps, at most
  int64_t cross_thread_frees = 0;    // allocations freed on another thread than the one that made them
  // Allocations recorded at an address whose last block had no free recorded
  // yet: a recorder that logs a free after giving the block back (another
  // thread reused the address first). Each one pairs a later free with the
  // wrong block, so every figure above is suspect unless this is 0.
  int64_t out_of_order_allocs = 0;
  std::array<int64_t, kNumMemoryCategories> peak_by_category{};  // alive at the peak
  std::array<int64_t, kNumMemoryCategories> dead_at_peak_by_category{};
  std::array<double, kNumMemoryCategories> held_dead_by_category{};  // byte-steps
  std::vector<TimelineSample> timeline;  // after each recorded kAlloc and kFree
  std::vector<SiteHeld> sites;       // most held dead first
  std::vector<HeldByShare> held_by;  // most held dead first; Σ = held_dead_byte_steps
  // The share of the program's byte-time held past last use (0 when nothing was held).
  double held_dead_share() const { return byte_steps > 0 ? held_dead_byte_steps / byte_steps : 0; }
};

HeldDead held_dead(const std::vector<MemoryEvent>& history);

// Keeps the sites a report shows: the `k` holding most memory past its last
// use, the `k` with most bytes alive at the peak, and every one that leaked
// (up to `k`), in the order of h.sites.
void keep_top_sites(HeldDead& h, size_t k);

// Step-time on the kernels' clock. The marks of `history` end steps: the
// set-up before the first mark spans [-1, 0], the k-th step after it [k-1, k]
// and what follows the last mark (finish) [K, K + 1]. Within each span time
// moves evenly with the kernels in it (a run of consecutive kUse events: a
// kernel records one per operand), so it measures work done, not events
// recorded.
class StepClock {
 public:
  explicit StepClock(const std::vector<MemoryEvent>& history);
  // The time of event i (i = history.size(): the end of the history).
  double at(size_t i) const { return time(i, uses_[i]); }
  // Just after event i: past its kernel when it is a kUse.
  double after(size_t i) const { return time(i, after_[i]); }
  // The kernels ended before event i: a kUse of the k-th kernel has kernels(i) == k.
  int64_t kernels(size_t i) const { return uses_[i]; }

 private:
  double time(size_t i, int64_t clock) const;
  std::vector<int64_t> uses_;   // kernels (runs of kUse) ended before event i, for i = 0..n
  std::vector<int64_t> after_;  // the clock once event i's kernel has run
  std::vector<size_t> marks_;
};

// Whether a symbolized frame is custody's own code (or the standard library's,
// or Abseil's) and so folded away: Note [Folding sites].
bool is_library_frame(std::string_view symbol);

// The category custody/report gives an allocation made in `recorded`
// (Note [Memory categories]): parameters, optimizer state and inputs as
// recorded; else what an autograd node saved (`saved`) is autograd_saved; an
// activation, gradient or unnamed allocation whose last use is no later than
// the kernel after the one that made it is a temporary; what is left unnamed
// is an activation.
MemoryCategory resolve_category(MemoryCategory recorded, int64_t alloc_kernels, int64_t last_use_kernels,
                                bool used, bool saved = false);

}  // namespace custody::report

#endif  // CUSTODY_CUSTODY_REPORT_HELD_DEAD_H_
