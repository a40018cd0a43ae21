// Copyright 2026 The custody Authors.

#include "custody/report/held_dead.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/symbolize.h"

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
// custody, as a user's does. Frames are source frames (core/symbolize.h): a
// call the compiler inlined is a frame of its own, so code inlined into
// custody's is still found. Sites are grouped by that frame's file:line (by
// its program counter when the line is unknown: no DWARF): two calls in one
// function are two sites; one line reached along two paths, or compiled into
// two instantiations of a template, is one. A stack with no such frame (all of
// it custody's) folds to its outermost.
namespace {
// The qualified name of a demangled function: what precedes its parameter
// list, without the return type a function template's name starts with
// ("void* custody::internal::f<int>(long)" -> "custody::internal::f<int>").
std::string_view qualified_name(std::string_view symbol) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < symbol.size(); ++i) {
    const char c = symbol[i];
    if (c == '<') ++depth;
    if (c == '>' && depth > 0) --depth;
    if (depth > 0) continue;
    if (c == '(' && i > start) return symbol.substr(start, i - start);
    if (c == ' ') start = i + 1;  // what came before was a return type
  }
  return symbol.substr(start);
}

// An inlined call to a function of internal linkage (an anonymous namespace's)
// is named without its namespace, DWARF keeping no linkage name for it
// ("fill"): custody's own when its file is.
bool unqualified_library_frame(const sites::SourceFrame& f) {
  if (qualified_name(f.function).find("::") != std::string_view::npos) return false;
  for (std::string_view lib : {"core/", "policies/", "backends/", "/usr/"}) {
    if (std::string_view(f.file).starts_with(lib)) return true;
  }
  return false;
}
}  // namespace

bool is_library_frame(std::string_view symbol) {
  symbol = qualified_name(symbol);
  for (std::string_view user : {"custody::workloads::", "custody::examples::"}) {
    if (symbol.starts_with(user)) return false;
  }
  for (std::string_view lib : {"custody::", "std::", "absl::", "__"}) {
    if (symbol.starts_with(lib)) return true;
  }
  return false;
}

// Note [Memory categories]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// PyTorch's memory profiler sorts allocations into parameters, optimizer
// state, inputs, activations, gradients, temporaries and autograd detail,
// reading the autograd graph. In custody the code that makes a tensor says what
// it is (CategoryScope, core/stats.h): nn::VarStore makes parameters, the
// optimizers their state, module forwards activations, the autograd engine and
// the hand-written backward functions gradients, and host data copied in is an
// input. Three things are read from the history instead. What an autograd node
// saved for backward (a kSaved event) is `autograd_saved`, unless it is a
// parameter, optimizer state or an input, which stay what they are. A
// temporary is what dies young: an activation, a gradient or an unnamed
// allocation whose last use is no later than the kernel after the one that
// made it (a matmul's output consumed by the bias add). What is left unnamed
// lived longer, across kernels of the code that made it: an activation (the
// workload's `a = h.relu()`, kept for the backward).
MemoryCategory resolve_category(MemoryCategory recorded, int64_t alloc_kernels, int64_t last_use_kernels,
                                bool used, bool saved) {
  switch (recorded) {
    case MemoryCategory::kParameter:
    case MemoryCategory::kOptimizerState:
    case MemoryCategory::kInput:
    case MemoryCategory::kTemporary:
      return recorded;
    default:
      break;
  }
  if (saved) return MemoryCategory::kAutogradSaved;
  // Made before kernel alloc_kernels runs (its producer); the next kernel is alloc_kernels + 1.
  if (!used || last_use_kernels <= alloc_kernels + 1) return MemoryCategory::kTemporary;
  return recorded == MemoryCategory::kUnknown ? MemoryCategory::kActivation : recorded;
}

// Note [Garbage awaiting collection]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Under gc, memory held past its last use is either still referenced by the
// program (a handle in a live variable or container) or garbage the collector
// has not found yet; which, and since when, the history cannot see. What it
// does see: the collections (kCollection, recorded as each begins) and which
// frees were a finalizer's (by_collector). An allocation a finalizer freed
// after collection k was reachable at collection k-1, or that collection would
// have found it: so its dead time up to collection k-1 was held by the
// program, and only what follows may have been garbage awaiting collection.
// That second part is reported as "at most" awaiting collection: with no
// earlier collection recorded, all of its dead time is. Collections libgc
// starts on its own (not through the gc policy) are not recorded and only make
// the bound looser; conservative stack scanning keeping garbage alive is
// counted as held.

namespace {

struct Allocation {
  size_t alloc = 0, last_use = 0, free = 0;  // event indices; free = n when never freed
  int64_t bytes = 0;
  const sites::Site* site = nullptr;
  MemoryCategory category = MemoryCategory::kUnknown;  // as recorded, then resolved
  const char* op = nullptr;        // the op that allocated it
  const char* saved_by = nullptr;  // the first autograd node that saved it (kSaved)
  const sites::Site* save_site = nullptr;  // the stack that recorded that node
  bool by_collector = false;
  size_t reachable_until = 0;  // a collector free: the last earlier collection (0: none)
};

// A site's frame, as the report shows it and groups by.
struct Folded {
  const void* pc = nullptr;  // the stack frame it is in
  std::string key;           // "file:line" when the line is known; else the pc
  std::string label;         // "file:line function"
};

class Symbols {
 public:
  // The folded frame of `site` (Note [Folding sites]), cached by frame array.
  const Folded& fold(const sites::Site& site) {
    auto [it, inserted] = folded_.try_emplace(site.frames());
    if (inserted) {
      const void* outermost = site.frames()[site.size() - 1];
      it->second = make(outermost, frames(outermost).back());
      for (int i = 0; i < site.size(); ++i) {
        if (const Folded* user = user_frame(site.frames()[i])) {
          it->second = *user;
          break;
        }
      }
    }
    return it->second;
  }

 private:
  // The first of a program counter's source frames that is not custody's own,
  // or null (cached: every stack through the same call shares it).
  const Folded* user_frame(const void* pc) {
    auto [it, inserted] = user_.try_emplace(pc);
    if (inserted) {
      const std::vector<sites::SourceFrame>& fs = frames(pc);
      const auto user = std::find_if(fs.begin(), fs.end(), [](const sites::SourceFrame& f) {
        return !is_library_frame(f.function) && !unqualified_library_frame(f);
      });
      if (user != fs.end()) it->second = make(pc, *user);
    }
    return it->second.has_value() ? &*it->second : nullptr;
  }

  // The source frames of a program counter, innermost first (inlined calls included).
  const std::vector<sites::SourceFrame>& frames(const void* pc) {
    auto [it, inserted] = frames_.try_emplace(pc);
    if (inserted) it->second = sites::symbolize(pc);
    return it->second;
  }
  static Folded make(const void* pc, const sites::SourceFrame& f) {
    return Folded{pc, f.line > 0 ? absl::StrCat(f.file, ":", f.line) : absl::StrFormat("%p", pc), sites::format(f)};
  }

  absl::flat_hash_map<const void*, std::vector<sites::SourceFrame>> frames_;
  absl::flat_hash_map<void* const*, Folded> folded_;
  absl::flat_hash_map<const void*, std::optional<Folded>> user_;
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
  size_t last_collection = 0, previous_collection = 0;  // event index + 1 (0: none)
  const auto close = [&](size_t a, size_t at) {
    allocs[a].free = at;
    live -= allocs[a].bytes;
  };
  for (size_t i = 0; i < n; ++i) {
    const MemoryEvent& e = history[i];
    if (e.kind == MemoryEventKind::kMark) ++marks;
    if (e.kind == MemoryEventKind::kCollection) {
      ++out.collections;
      previous_collection = last_collection;
      last_collection = i + 1;
    }
    if (e.address == nullptr) continue;
    const auto it = open.find(e.address);
    switch (e.kind) {
      case MemoryEventKind::kAlloc:
        if (it != open.end()) {  // reused without a recorded free
          close(it->second, i);
          ++out.out_of_order_allocs;
        }
        open[e.address] = allocs.size();
        allocs.push_back({i, i, n, e.bytes, &e.site, e.category, e.op});
        live += e.bytes;
        if (live > out.peak_bytes) {
          out.peak_bytes = live;
          peak_at = i;
        }
        break;
      case MemoryEventKind::kUse:
        if (it != open.end()) allocs[it->second].last_use = i;
        break;
      case MemoryEventKind::kSaved:
        if (it != open.end() && allocs[it->second].saved_by == nullptr) {
          allocs[it->second].saved_by = e.op != nullptr ? e.op : "?";
          allocs[it->second].save_site = &e.site;
        }
        break;
      case MemoryEventKind::kFree:
        if (it != open.end()) {
          close(it->second, i);
          if (e.thread != history[allocs[it->second].alloc].thread) ++out.cross_thread_frees;
          if (e.by_collector) {
            allocs[it->second].by_collector = true;
            // The collection that found it is the last one; it was reachable at the one before.
            allocs[it->second].reachable_until = previous_collection;
          }
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
  // What held each allocation past its last use (Note [Held by], core/stats.h).
  absl::flat_hash_map<std::pair<std::string, std::string>, size_t> holders;  // -> index in out.held_by
  std::vector<absl::flat_hash_map<std::string, double>> site_holders;  // per site: holder -> held
  const auto add_holder = [&](std::string holder, std::string released_at, double held) {
    auto [it, inserted] = holders.try_emplace(std::make_pair(holder, released_at), out.held_by.size());
    if (inserted) out.held_by.push_back(HeldByShare{std::move(holder), std::move(released_at)});
    ++out.held_by[it->second].allocations;
    out.held_by[it->second].held_dead_byte_steps += held;
    return out.held_by[it->second].label();
  };
  const auto hold = [&](const Allocation& a, double held, double awaiting, size_t site) {
    std::string holder, released_at;
    const MemoryEvent* f = a.free < n ? &history[a.free] : nullptr;
    if (f == nullptr) {
      holder = "still held at the end";
    } else if (f->kind != MemoryEventKind::kFree) {
      holder = "unknown (its free was not recorded)";
    } else {
      holder = f->holder == nullptr ? "its last handle" : f->holder;
      if (f->holder_name != nullptr) absl::StrAppend(&holder, " ", f->holder_name);
      if (!f->holder_site.empty()) {
        absl::StrAppend(&holder, " ", f->holder_verb != nullptr ? f->holder_verb : "made at", " ",
                        symbols.fold(f->holder_site).key);
      }
      if (!f->site.empty()) released_at = symbols.fold(f->site).key;
      if (a.by_collector) absl::StrAppend(&holder, ", still reachable");
    }
    if (held - awaiting > 0) site_holders[site][add_holder(holder, released_at, held - awaiting)] += held - awaiting;
    if (awaiting > 0) site_holders[site][add_holder("garbage awaiting a collection", "", awaiting)] += awaiting;
  };
  absl::flat_hash_map<std::string, size_t> by_key;  // folded frame's key -> index in out.sites
  std::vector<std::pair<double, const sites::Site*>> worst;  // per site: its largest holder
  // The timeline: bytes by category and the bound's schedule, as deltas per event.
  std::vector<std::array<int64_t, kNumMemoryCategories>> delta(n + 1);
  std::vector<int64_t> bound_delta(n + 1, 0);
  for (Allocation& a : allocs) {
    a.category = resolve_category(a.category, clock.kernels(a.alloc), clock.kernels(a.last_use),
                                  a.last_use != a.alloc, a.saved_by != nullptr);
    const auto c = static_cast<size_t>(a.category);
    delta[a.alloc][c] += a.bytes;
    delta[a.free][c] -= a.bytes;
    bound_delta[a.alloc] += a.bytes;
    bound_delta[std::min(a.last_use + 1, a.free)] -= a.bytes;
  }
  {
    TimelineSample s;
    for (size_t i = 0; i < n; ++i) {
      for (int c = 0; c < kNumMemoryCategories; ++c) s.by_category[c] += delta[i][c];
      s.bound += bound_delta[i];
      const MemoryEventKind k = history[i].kind;
      if (k != MemoryEventKind::kAlloc && k != MemoryEventKind::kFree) continue;
      s.step = clock.at(i);
      out.timeline.push_back(s);
    }
  }

  std::vector<std::array<int64_t, kNumMemoryCategories>> site_category_bytes;
  for (const Allocation& a : allocs) {
    const double bytes = static_cast<double>(a.bytes);
    const double alloc = clock.at(a.alloc), last_use = clock.after(a.last_use), free = clock.at(a.free);
    const double held = bytes * (free - last_use);
    const double all = bytes * (free - alloc);
    // Note [Garbage awaiting collection]
    double awaiting = 0;
    if (a.by_collector && held > 0) {
      const double reachable = a.reachable_until > 0 ? clock.at(a.reachable_until - 1) : 0;
      awaiting = a.reachable_until > 0 ? bytes * (free - std::clamp(reachable, last_use, free)) : held;
    }
    const auto c = static_cast<size_t>(a.category);
    out.byte_steps += all;
    out.held_dead_byte_steps += held;
    out.awaiting_collection_byte_steps += awaiting;
    out.held_dead_by_category[c] += held;
    out.bound_byte_steps += bytes * (last_use - alloc);
    const bool alive_at_peak = a.alloc <= peak_at && peak_at < a.free;
    const bool dead_at_peak = alive_at_peak && a.last_use < peak_at;
    if (alive_at_peak) out.peak_by_category[c] += a.bytes;
    if (dead_at_peak) {
      out.dead_at_peak_bytes += a.bytes;
      out.dead_at_peak_by_category[c] += a.bytes;
    }

    // A tensor saved for backward is shown at the op that saved it (its save
    // site), where holding it past its last backward use is decided; a saved
    // parameter or input is held by what made it, and shown there.
    const bool at_save = a.category == MemoryCategory::kAutogradSaved && a.save_site != nullptr &&
                         !a.save_site->empty();
    const sites::Site* site = at_save ? a.save_site : a.site;
    const Folded* folded = site->empty() ? nullptr : &symbols.fold(*site);
    auto [it, inserted] = by_key.try_emplace(folded == nullptr ? std::string() : folded->key, out.sites.size());
    if (inserted) {
      SiteHeld s;
      s.pc = folded == nullptr ? nullptr : folded->pc;
      s.frame = folded == nullptr ? "(no site: record the history with sites)" : folded->label;
      out.sites.push_back(std::move(s));
      worst.emplace_back(-1, nullptr);
      site_category_bytes.emplace_back();
      site_holders.emplace_back();
    }
    SiteHeld& s = out.sites[it->second];
    if (s.saved_by.empty() && at_save) s.saved_by = a.saved_by;
    if (a.op != nullptr && std::find(s.ops.begin(), s.ops.end(), a.op) == s.ops.end()) s.ops.push_back(a.op);
    ++s.allocations;
    s.bytes += a.bytes;
    s.byte_steps += all;
    s.held_dead_byte_steps += held;
    s.awaiting_collection_byte_steps += awaiting;
    site_category_bytes[it->second][c] += a.bytes;
    if (alive_at_peak) s.alive_at_peak_bytes += a.bytes;
    if (dead_at_peak) s.dead_at_peak_bytes += a.bytes;
    if (a.free == n) s.unfreed_bytes += a.bytes;
    if (held > worst[it->second].first) worst[it->second] = {held, site};
    if (held > 0) hold(a, held, awaiting, it->second);
  }
  for (size_t i = 0; i < out.sites.size(); ++i) {
    if (worst[i].second != nullptr) out.sites[i].stack = worst[i].second->to_string();
    const auto& b = site_category_bytes[i];
    out.sites[i].category = static_cast<MemoryCategory>(std::max_element(b.begin(), b.end()) - b.begin());
    double most = 0;
    for (const auto& [holder, held] : site_holders[i]) {
      if (held > most || (held == most && holder < out.sites[i].held_by)) {
        most = held;
        out.sites[i].held_by = holder;
      }
    }
  }
  std::stable_sort(out.held_by.begin(), out.held_by.end(), [](const HeldByShare& a, const HeldByShare& b) {
    return a.held_dead_byte_steps > b.held_dead_byte_steps;
  });
  std::stable_sort(out.sites.begin(), out.sites.end(), [](const SiteHeld& a, const SiteHeld& b) {
    return a.held_dead_byte_steps > b.held_dead_byte_steps;
  });
  return out;
}

void keep_top_sites(HeldDead& h, size_t k) {
  std::vector<size_t> by_peak(h.sites.size()), by_leak;
  for (size_t i = 0; i < h.sites.size(); ++i) {
    by_peak[i] = i;
    if (h.sites[i].unfreed_bytes > 0 && by_leak.size() < k) by_leak.push_back(i);
  }
  std::stable_sort(by_peak.begin(), by_peak.end(), [&](size_t a, size_t b) {
    return h.sites[a].alive_at_peak_bytes > h.sites[b].alive_at_peak_bytes;
  });
  std::vector<bool> keep(h.sites.size(), false);
  for (size_t i = 0; i < std::min(k, h.sites.size()); ++i) keep[i] = keep[by_peak[i]] = true;
  for (size_t i : by_leak) keep[i] = true;
  std::vector<SiteHeld> kept;
  for (size_t i = 0; i < h.sites.size(); ++i) {
    if (keep[i]) kept.push_back(std::move(h.sites[i]));
  }
  h.sites = std::move(kept);
}

}  // namespace custody::report
