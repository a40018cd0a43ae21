// Copyright 2026 The custody Authors.

#include "policies/dispose/dispose.h"

#include <cstdlib>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "core/shape.h"
#include "core/sites.h"

namespace custody::dispose {
namespace internal {
namespace {

struct Registry {
  absl::Mutex mu;
  Alias head;  // sentinel of the circular list of undisposed aliases
  int64_t live = 0;
  uint64_t serial = 0;
  Registry() { head.prev = head.next = &head; }
};

Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

uint64_t this_thread_id() {
  return static_cast<uint64_t>(std::hash<std::thread::id>()(std::this_thread::get_id()));
}

void unlink(Alias* a) {
  a->prev->next = a->next;
  a->next->prev = a->prev;
  a->prev = a->next = nullptr;
}

}  // namespace

Alias* new_alias(ImplRef ref) {
  auto* a = new Alias;
  a->ref = std::move(ref);
  a->handles = 1;
  a->thread = this_thread_id();
  a->site = sites::capture();
  Registry& r = registry();
  absl::MutexLock lock(&r.mu);
  a->serial = r.serial++;
  a->next = &r.head;
  a->prev = r.head.prev;
  r.head.prev->next = a;
  r.head.prev = a;
  ++r.live;
  return a;
}

void add_handle(Alias* a) {
  absl::MutexLock lock(&registry().mu);
  ++a->handles;
}

void drop_handle(Alias* a) {
  bool free_it;
  {
    absl::MutexLock lock(&registry().mu);
    free_it = --a->handles == 0 && !a->ref;
  }
  if (free_it) delete a;
}

bool dispose(Alias* a) {
  ImplRef ref;
  {
    Registry& r = registry();
    absl::MutexLock lock(&r.mu);
    if (!a->ref) return false;
    ref = std::move(a->ref);  // a->ref is null from here on
    unlink(a);
    --r.live;
  }
  // `ref` is released here, outside the lock (it may free memory).
  return true;
}

void throw_disposed(const Alias* a, const char* op) {
  std::string msg = absl::StrFormat(
      "%s: this tensor was disposed (alias #%d); dispose() only after the last use, or use "
      "alias() to keep an independent reference", op, a->serial);
  absl::StrAppend(&msg, "\n", sites::describe("created at", a->site));
  throw LifetimeError(msg);
}

void throw_null(const char* op) {
  throw LifetimeError(absl::StrFormat(
      "%s: this handle refers to no tensor (default-constructed or moved from)", op));
}

}  // namespace internal

std::vector<LeakedAlias> leak_report() {
  std::vector<LeakedAlias> out;
  std::vector<sites::Site> leaked_sites;
  {
    internal::Registry& r = internal::registry();
    absl::MutexLock lock(&r.mu);
    for (internal::Alias* a = r.head.next; a != &r.head; a = a->next) {
      if (a->handles > 0) continue;
      out.push_back(LeakedAlias{a->serial, std::string(dtype_name(a->ref->scalar_type())),
                                std::vector<int64_t>(a->ref->sizes().begin(), a->ref->sizes().end()),
                                std::string()});
      leaked_sites.push_back(a->site);
    }
  }
  // Symbolized outside the lock: it is the slow part (core/sites.h).
  for (size_t i = 0; i < out.size(); ++i) out[i].site = leaked_sites[i].to_string();
  return out;
}

std::string leak_report_string() {
  std::string s;
  for (const LeakedAlias& l : leak_report()) {
    absl::StrAppendFormat(&s, "leaked alias #%d: %s %s\n%s", l.serial, l.dtype, shape_str(l.sizes),
                          sites::describe("created at", l.site));
  }
  return s;
}

int64_t live_aliases() {
  internal::Registry& r = internal::registry();
  absl::MutexLock lock(&r.mu);
  return r.live;
}

void set_track_sites(bool on) { sites::set_tracking(on); }

namespace testing {

uint64_t next_serial() {
  internal::Registry& r = internal::registry();
  absl::MutexLock lock(&r.mu);
  return r.serial;
}

void dispose_created_on_this_thread_since(uint64_t since) {
  const uint64_t me = internal::this_thread_id();
  std::vector<ImplRef> refs;
  std::vector<internal::Alias*> orphans;
  {
    internal::Registry& r = internal::registry();
    absl::MutexLock lock(&r.mu);
    for (internal::Alias* a = r.head.next; a != &r.head;) {
      internal::Alias* next = a->next;
      if (a->thread == me && a->serial >= since) {
        refs.push_back(std::move(a->ref));
        internal::unlink(a);
        --r.live;
        if (a->handles == 0) orphans.push_back(a);
      }
      a = next;
    }
  }
  refs.clear();  // gives the references back outside the lock
  for (internal::Alias* a : orphans) delete a;
}

}  // namespace testing
}  // namespace custody::dispose
