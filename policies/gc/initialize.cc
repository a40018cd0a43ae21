// Copyright 2026 The custody Authors.
//
// policies/gc/initialize.cc — the gc policy set up with libgc (GC_INIT, the
// root filter, the collection-event callback) and with core (the off-stack
// runner, the allocation observer, the reclaimer), once, from this library's
// static initializer (Note [Thread registration] in gc.h).
//
// Initialization order: every variable initialize() writes in another source
// (g_roots, g_default_min_bytes_allocd, g_previous_event_proc,
// tls_known_registered: internal.h) is constinit, so the order in which the
// library's sources run their static initializers cannot undo what it wrote.

#include "policies/gc/internal.h"

#include <mutex>

#include "core/foreign_stack.h"
#include "core/reclaim.h"

namespace custody::gc::internal {

void initialize() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_roots.libgc_path = object_path(reinterpret_cast<const void*>(&GC_gcollect));
    g_roots.self_path = object_path(reinterpret_cast<const void*>(&filter_static_roots));
    read_extra_system_dirs();
    GC_register_has_static_roots_callback(&filter_static_roots);  // before any collection
    GC_INIT();
    if (CUSTODY_GC_UNDER_TSAN) GC_disable();
    GC_set_finalize_on_demand(1);
    // Note [The collector's own schedule under a trigger]
    g_default_min_bytes_allocd = GC_get_min_bytes_allocd();
    GC_allow_register_threads();
    g_previous_event_proc = GC_get_on_collection_event();
    GC_set_on_collection_event(&on_collection_event);  // table builds too: Note [Alias lists]
    tls_known_registered = GC_thread_is_registered() != 0;  // GC_INIT registered this thread
    custody::internal::set_off_stack_runner(&run_off_stack_blocking);
    register_alloc_observer(&on_alloc);
    register_reclaimer(&on_alloc_failure);
  });
}

namespace {

// GC_INIT must run on the main thread, before any other thread touches the
// collector: a static initializer of this library does it at load time.
const bool g_initialized = (initialize(), true);

}  // namespace

}  // namespace custody::gc::internal
