// Copyright 2026 The custody Authors.

#include "backends/opaque/opaque.h"

#include <atomic>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_format.h"
#include "backends/onednn/onednn.h"
#include "core/error.h"
#include "core/host_allocator.h"

namespace custody {
namespace {

// Device::str() of core's generic slot, which this backend uses: "opaque:0".
[[maybe_unused]] const bool g_named = (set_private_use1_name("opaque"), true);

void* tag(void* host) {
  return host == nullptr ? nullptr
                         : reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(host) | Opaque::kTag);
}

// The host address behind a device address (null stays null).
void* untag(const void* device) {
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(device) & ~Opaque::kTag);
}

// A DeviceError once it reaches the caller.
absl::Status not_device_memory(const char* what, const void* p) {
  return MakeStatus(ErrorKind::kDevice, absl::StatusCode::kInvalidArgument, absl::StrFormat(
      "opaque %s: address %p is not memory of the opaque backend (host memory given as a device "
      "tensor? allocate on the backend and copy_from_host, or from_blob device memory)",
      what, p));
}

bool usable(const void* p) { return p == nullptr || Opaque::is_device_address(p); }

// The same view on the host memory behind it: what the oneDNN kernels run on.
KernelView host(const KernelView& v) { return KernelView{untag(v.data), v.dtype, v.sizes, v.strides}; }

struct Counters {
  std::atomic<int64_t> to_host{0}, from_host{0}, to_host_bytes{0}, from_host_bytes{0};
};
Counters& counters() {
  static auto* c = new Counters;
  return *c;
}

CachingHostAllocator& host_allocator() {
  static auto* a = new CachingHostAllocator(&Opaque::stats(), {.thread_cache = true});
  return *a;
}

}  // namespace

MemoryStats& Opaque::stats() {
  static auto* s = new MemoryStats;
  return *s;
}

absl::StatusOr<void*> Opaque::allocate(size_t bytes) {
  absl::StatusOr<void*> p = host_allocator().allocate(bytes);
  if (!p.ok()) return p;
  return tag(*p);
}

void Opaque::deallocate(void* p, size_t bytes) { host_allocator().deallocate(untag(p), bytes); }

absl::Status Opaque::copy_to_host(void* dst, const void* src, size_t bytes) {
  if (!usable(src)) return not_device_memory("copy_to_host", src);
  if (Opaque::is_device_address(dst)) return not_device_memory("copy_to_host (host side)", dst);
  Counters& c = counters();
  c.to_host.fetch_add(1, std::memory_order_relaxed);
  c.to_host_bytes.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  if (bytes > 0) std::memcpy(dst, untag(src), bytes);
  return absl::OkStatus();
}

absl::Status Opaque::copy_from_host(void* dst, const void* src, size_t bytes) {
  if (!usable(dst)) return not_device_memory("copy_from_host", dst);
  if (Opaque::is_device_address(src)) return not_device_memory("copy_from_host (host side)", src);
  Counters& c = counters();
  c.from_host.fetch_add(1, std::memory_order_relaxed);
  c.from_host_bytes.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  if (bytes > 0) std::memcpy(untag(dst), src, bytes);
  return absl::OkStatus();
}

Opaque::Transfers Opaque::transfers() {
  Counters& c = counters();
  return Transfers{c.to_host.load(), c.from_host.load(), c.to_host_bytes.load(),
                   c.from_host_bytes.load()};
}

void Opaque::reset_transfers() {
  Counters& c = counters();
  c.to_host = 0;
  c.from_host = 0;
  c.to_host_bytes = 0;
  c.from_host_bytes = 0;
}

// ---- kernels: the oneDNN backend's, on the host memory behind the views ----------

namespace {

// A kernel's argument as the oneDNN kernel takes it: a view of the host memory
// behind an opaque view; anything else as it is.
KernelView on_host(const KernelView& v) { return host(v); }
template <class T>
const T& on_host(const T& arg) {
  return arg;
}

// The first of a kernel's views whose address is not the backend's, as an
// error naming the op the user called; OK when all are.
template <class... Args>
absl::Status check_views(const char* label, const Args&... args) {
  absl::Status status;
  const auto one = [&](const auto& arg) {
    if constexpr (std::is_same_v<std::decay_t<decltype(arg)>, KernelView>) {
      if (status.ok() && !usable(arg.data)) status = not_device_memory(label, arg.data);
    }
  };
  (one(args), ...);
  return status;
}

template <class F, class... Args>
absl::Status call_on_host(F&& kernel, const Args&... args) {
  return kernel(on_host(args)...);
}

}  // namespace

// Each kernel of the list (Note [The kernel interface, declared once],
// core/backend.h): its views checked to be the backend's (a host address
// fails, naming the op), then the oneDNN kernel of the same name on the host
// memory behind them.
#define CUSTODY_OPAQUE_KERNEL(Ret, name, params, args, label)                   \
  Ret Opaque::name params {                                                     \
    CUSTODY_RETURN_IF_ERROR(check_views(label, CUSTODY_UNPARENTHESIZE args));   \
    return call_on_host([](const auto&... a) { return Onednn::name(a...); },    \
                        CUSTODY_UNPARENTHESIZE args);                           \
  }
CUSTODY_FORALL_KERNELS(CUSTODY_OPAQUE_KERNEL)
#undef CUSTODY_OPAQUE_KERNEL

}  // namespace custody
