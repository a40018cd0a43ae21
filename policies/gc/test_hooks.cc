// Copyright 2026 The custody Authors.
//
// policies/gc/test_hooks.cc — gc::testing (gc.h): what tests read of the root
// filter and the alias lists, and the test idiom's releases (PolicyIdiom<gc::Policy>).

#include "policies/gc/internal.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/spin_lock.h"
#include "policies/internal/per_thread.h"

namespace custody::gc::testing {

bool scans_static_data_of(const char* path) {
  internal::initialize();  // the library paths are known after it
  return internal::scans_object(path);
}

bool uses_finalizer_table() { return internal::kTable; }

int64_t listed_aliases() {
  SpinLockHolder walk(&internal::g_walk);
  int64_t n = 0;
  internal::walk_lists([&](internal::Alias*, bool /*is_head*/) {
    ++n;
    return false;
  });
  return n;
}

uint64_t next_serial() { return internal::g_serials.fence(); }

namespace {

// Disposes, during one walk of the alias lists, every live alias `pick` selects; returns how many.
template <class Pick>
int64_t dispose_where(Pick&& pick) {
  std::vector<TensorImpl*> refs;
  {
    SpinLockHolder walk(&internal::g_walk);
    internal::walk_holding([&](internal::Alias* a) {
      if (!pick(*a)) return;
      refs.push_back(nullptr);  // before the take: a bad_alloc leaves the alias as it was
      refs.back() = internal::take_reference(a, internal::AliasState::kDisposed);
      if (refs.back() == nullptr) refs.pop_back();
    });
  }
  // The aliases may be unreachable already: nothing touches them outside the
  // walk (table builds leave their finalizers registered; they find nothing to do).
  internal::count(&internal::ThreadState::disposed, static_cast<int64_t>(refs.size()));
  for (TensorImpl* p : refs) internal::give_back(p);
  return static_cast<int64_t>(refs.size());
}

}  // namespace

int64_t release_created_on_this_thread_since(uint64_t since) {
  const uint64_t me = policy_internal::this_thread_number();
  return dispose_where([&](const internal::Alias& a) { return a.thread == me && a.serial >= since; });
}

int64_t release_created_since(uint64_t since) {
  return dispose_where([&](const internal::Alias& a) { return a.serial >= since; });
}

std::vector<uint64_t> still_holding(const std::vector<uint64_t>& serials) {
  std::vector<uint64_t> held;
  {
    SpinLockHolder walk(&internal::g_walk);
    internal::walk_holding([&](internal::Alias* a) { held.push_back(a->serial); });
  }
  std::sort(held.begin(), held.end());
  std::vector<uint64_t> out;
  for (uint64_t s : serials) {
    if (std::binary_search(held.begin(), held.end(), s)) out.push_back(s);
  }
  return out;
}

int64_t dispose_serials(const std::vector<uint64_t>& serials) {
  std::vector<uint64_t> sorted = serials;
  std::sort(sorted.begin(), sorted.end());
  return dispose_where(
      [&](const internal::Alias& a) { return std::binary_search(sorted.begin(), sorted.end(), a.serial); });
}

}  // namespace custody::gc::testing
