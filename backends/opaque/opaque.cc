// Copyright 2026 The custody Authors.

#include "backends/opaque/opaque.h"

#include <atomic>
#include <cstring>
#include <initializer_list>

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

// Every operand of a kernel is device memory, or the kernel refuses.
absl::Status check(const char* kernel, std::initializer_list<const KernelView*> views) {
  for (const KernelView* v : views) {
    if (!usable(v->data)) return not_device_memory(kernel, v->data);
  }
  return absl::OkStatus();
}

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

absl::Status Opaque::copy(const KernelView& dst, const KernelView& src) {
  CUSTODY_RETURN_IF_ERROR(check("copy", {&dst, &src}));
  return Onednn::copy(host(dst), host(src));
}

absl::Status Opaque::fill(const KernelView& dst, const Scalar& value) {
  CUSTODY_RETURN_IF_ERROR(check("fill", {&dst}));
  return Onednn::fill(host(dst), value);
}

absl::Status Opaque::binary(BinaryOp op, const KernelView& out, const KernelView& a,
                            const KernelView& b) {
  CUSTODY_RETURN_IF_ERROR(check(op_name(op), {&out, &a, &b}));
  return Onednn::binary(op, host(out), host(a), host(b));
}

absl::Status Opaque::binary_scalar(BinaryOp op, const KernelView& out, const KernelView& a,
                                   const Scalar& s, bool scalar_first) {
  CUSTODY_RETURN_IF_ERROR(check(op_name(op), {&out, &a}));
  return Onednn::binary_scalar(op, host(out), host(a), s, scalar_first);
}

absl::Status Opaque::unary(UnaryOp op, const KernelView& out, const KernelView& in) {
  CUSTODY_RETURN_IF_ERROR(check(op_name(op), {&out, &in}));
  return Onednn::unary(op, host(out), host(in));
}

absl::Status Opaque::where(const KernelView& out, const KernelView& cond, const KernelView& a,
                           const KernelView& b) {
  CUSTODY_RETURN_IF_ERROR(check("where", {&out, &cond, &a, &b}));
  return Onednn::where(host(out), host(cond), host(a), host(b));
}

absl::Status Opaque::reduce(ReduceOp op, const KernelView& out, const KernelView& in) {
  CUSTODY_RETURN_IF_ERROR(check(op_name(op), {&out, &in}));
  return Onednn::reduce(op, host(out), host(in));
}

absl::Status Opaque::softmax(const KernelView& out, const KernelView& in, int64_t dim, bool log) {
  CUSTODY_RETURN_IF_ERROR(check(log ? "log_softmax" : "softmax", {&out, &in}));
  return Onednn::softmax(host(out), host(in), dim, log);
}

absl::Status Opaque::matmul(const KernelView& out, const KernelView& a, const KernelView& b) {
  CUSTODY_RETURN_IF_ERROR(check("matmul", {&out, &a, &b}));
  return Onednn::matmul(host(out), host(a), host(b));
}

absl::Status Opaque::index_select(const KernelView& out, const KernelView& in, int64_t dim,
                                  const KernelView& index) {
  CUSTODY_RETURN_IF_ERROR(check("index_select", {&out, &in, &index}));
  return Onednn::index_select(host(out), host(in), dim, host(index));
}

absl::Status Opaque::random(const KernelView& out, RandomDist dist, const RandomParams& params) {
  CUSTODY_RETURN_IF_ERROR(check("random", {&out}));
  return Onednn::random(host(out), dist, params);
}

}  // namespace custody
