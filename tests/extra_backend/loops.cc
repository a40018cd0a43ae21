// Copyright 2026 The custody Authors.

#include "tests/extra_backend/loops.h"

#include <cstring>

#include "backends/host/loops.h"
#include "core/host_allocator.h"

namespace custody {
namespace {

CachingHostAllocator& host_allocator() {
  static auto* a = new CachingHostAllocator(&Loops::stats(), {.thread_cache = true});
  return *a;
}

}  // namespace

MemoryStats& Loops::stats() {
  static auto* s = new MemoryStats;
  return *s;
}

absl::StatusOr<void*> Loops::allocate(size_t bytes) { return host_allocator().allocate(bytes); }

void Loops::deallocate(void* p, size_t bytes) { host_allocator().deallocate(p, bytes); }

absl::Status Loops::copy_to_host(void* dst, const void* src, size_t bytes) {
  if (bytes > 0) std::memcpy(dst, src, bytes);
  return absl::OkStatus();
}

absl::Status Loops::copy_from_host(void* dst, const void* src, size_t bytes) {
  if (bytes > 0) std::memcpy(dst, src, bytes);
  return absl::OkStatus();
}

// Each kernel of the list: the host loop of the same name (backends/host/loops.h).
#define CUSTODY_LOOPS_KERNEL(Ret, name, params, args, label) \
  Ret Loops::name params { return host::name##_loop args; }
CUSTODY_FORALL_KERNELS(CUSTODY_LOOPS_KERNEL)
#undef CUSTODY_LOOPS_KERNEL

}  // namespace custody
