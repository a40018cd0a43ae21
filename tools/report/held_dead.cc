// Copyright 2026 The custody Authors.

#include "tools/report/held_dead.h"

#include <algorithm>
#include <array>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/debugging/symbolize.h"

namespace custody::report {

StepClock::StepClock(const std::vector<MemoryEvent>& history)
    : uses_(history.size() + 1, 0), after_(history.size(), 0) {
  const size_t n = history.size();
  const auto is_use = [&](size_t i) { return i < n && history[i].kind == MemoryEventKind::kUse; };
  // A run of kUse events with nothing between them is one kernel (its operands,
  // in whatever order the arguments were evaluated): one tick, at its end.
  for (size_t i = 0; i < n; ++i) {
    uses_[i + 1] = uses_[i] + (is_use(i) && !is_use(i + 1) ? 1 : 0);
    if (history[i].kind == MemoryEventKind::kMark) marks_.push_back(i);
  }
  for (size_t i = n; i-- > 0;) after_[i] = is_use(i) && is_use(i + 1) ? after_[i + 1] : uses_[i + 1];
}

double StepClock::time(size_t i, int64_t clock) const {
  // The span of event i: between the last mark at or before it and the next.
  const size_t k = static_cast<size_t>(std::upper_bound(marks_.begin(), marks_.end(), i) - marks_.begin());
  const double base = marks_.empty() ? 0 : static_cast<double>(k) - 1;  // k == 0: the set-up
  const int64_t start = k == 0 ? 0 : uses_[marks_[k - 1]];
  const int64_t end = k < marks_.size() ? uses_[marks_[k]] : uses_.back();
  return end > start ? base + static_cast<double>(clock - start) / static_cast<double>(end - start) : base;
}

// Note [Folding sites]
// ~~~~~~~~~~~~~~~~~~~~
// An allocation's stack starts inside custody (the allocator, the backend, the
// op, the policy's handle) and reaches the code that asked for the tensor a
// few frames up. A site is named by that first frame outside custody: a frame
// is custody's own when its symbol is in namespace custody, except the
// workloads and examples (custody's own user code, which the compare tool
// diagnoses), or in std:: or absl:: (std::function's invokers, containers), or
// a compiler helper (__). So code to be diagnosed lives outside namespace
// custody, as a user's does. Sites are grouped by that frame's program counter:
// two calls in one function are two sites, one call reached along two paths is
// one. A stack with no such frame (all of it custody's) folds to its outermost.
bool is_library_frame(std::string_view symbol) {
  for (std::string_view user : {"custody::workloads::", "custody::examples::"}) {
    if (symbol.starts_with(user)) return false;
  }
  for (std::string_view lib : {"custody::", "std::", "absl::", "__"}) {
    if (symbol.starts_with(lib)) return true;
  }
  return false;
}

namespace {

struct Allocation {
  size_t alloc = 0, last_use = 0, free = 0;  // event indices; free = n when never freed
  int64_t bytes = 0;
  const sites::Site* site = nullptr;
};

class Symbols {
 public:
  const std::string& name(const void* pc) {
    auto [it, inserted] = names_.try_emplace(pc);
    if (inserted) {
      char buf[1024];
      it->second = absl::Symbolize(const_cast<void*>(pc), buf, sizeof(buf)) ? buf : "??";
    }
    return it->second;
  }
  // The folded frame of `site` (Note [Folding sites]), cached by frame array.
  const void* fold(const sites::Site& site) {
    auto [it, inserted] = folded_.try_emplace(site.frames());
    if (inserted) {
      const void* pc = site.frames()[site.size() - 1];
      for (int i = 0; i < site.size(); ++i) {
        if (!is_library_frame(name(site.frames()[i]))) {
          pc = site.frames()[i];
          break;
        }
      }
      it->second = pc;
    }
    return it->second;
  }

 private:
  absl::flat_hash_map<const void*, std::string> names_;
  absl::flat_hash_map<void* const*, const void*> folded_;
};

}  // namespace

HeldDead held_dead(const std::vector<MemoryEvent>& history) {
  HeldDead out;
  const size_t n = history.size();
  const StepClock clock(history);
  int64_t marks = 0;
  std::vector<Allocation> allocs;
  absl::flat_hash_map<const void*, size_t> open;  // address -> its allocation
  int64_t live = 0;
  size_t peak_at = 0;
  const auto close = [&](size_t a, size_t at) {
    allocs[a].free = at;
    live -= allocs[a].bytes;
  };
  for (size_t i = 0; i < n; ++i) {
    const MemoryEvent& e = history[i];
    if (e.kind == MemoryEventKind::kMark) ++marks;
    if (e.address == nullptr) continue;
    const auto it = open.find(e.address);
    switch (e.kind) {
      case MemoryEventKind::kAlloc:
        if (it != open.end()) close(it->second, i);  // reused without a recorded free
        open[e.address] = allocs.size();
        allocs.push_back({i, i, n, e.bytes, &e.site});
        live += e.bytes;
        if (live > out.peak_bytes) {
          out.peak_bytes = live;
          peak_at = i;
        }
        break;
      case MemoryEventKind::kUse:
        if (it != open.end()) allocs[it->second].last_use = i;
        break;
      case MemoryEventKind::kFree:
        if (it != open.end()) {
          close(it->second, i);
          open.erase(it);
        }
        break;
      default:
        break;
    }
  }
  out.steps = std::max<int64_t>(0, marks - 1);
  out.peak_step = clock.at(peak_at);

  Symbols symbols;
  absl::flat_hash_map<const void*, size_t> by_pc;  // folded pc -> index in out.sites
  std::vector<std::pair<double, const sites::Site*>> worst;  // per site: its largest holder
  for (const Allocation& a : allocs) {
    const double bytes = static_cast<double>(a.bytes);
    const double alloc = clock.at(a.alloc), last_use = clock.after(a.last_use), free = clock.at(a.free);
    const double held = bytes * (free - last_use);
    const double all = bytes * (free - alloc);
    out.byte_steps += all;
    out.held_dead_byte_steps += held;
    out.bound_byte_steps += bytes * (last_use - alloc);
    const bool dead_at_peak = a.alloc <= peak_at && peak_at < a.free && a.last_use < peak_at;
    if (dead_at_peak) out.dead_at_peak_bytes += a.bytes;

    const void* pc = a.site->empty() ? nullptr : symbols.fold(*a.site);
    auto [it, inserted] = by_pc.try_emplace(pc, out.sites.size());
    if (inserted) {
      SiteHeld s;
      s.pc = pc;
      s.frame = pc == nullptr ? "(no site: record the history with sites)" : symbols.name(pc);
      out.sites.push_back(std::move(s));
      worst.emplace_back(-1, nullptr);
    }
    SiteHeld& s = out.sites[it->second];
    ++s.allocations;
    s.bytes += a.bytes;
    s.byte_steps += all;
    s.held_dead_byte_steps += held;
    if (dead_at_peak) s.dead_at_peak_bytes += a.bytes;
    if (a.free == n) s.unfreed_bytes += a.bytes;
    if (held > worst[it->second].first) worst[it->second] = {held, a.site};
  }
  for (size_t i = 0; i < out.sites.size(); ++i) {
    if (worst[i].second != nullptr) out.sites[i].stack = worst[i].second->to_string();
  }
  std::stable_sort(out.sites.begin(), out.sites.end(), [](const SiteHeld& a, const SiteHeld& b) {
    return a.held_dead_byte_steps > b.held_dead_byte_steps;
  });
  return out;
}

}  // namespace custody::report
