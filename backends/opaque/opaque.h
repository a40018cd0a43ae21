// Copyright 2026 The custody Authors.
//
// backends/opaque/opaque.h — `custody::Opaque`, a test backend whose memory the
// host must not read: the proof, runnable without a GPU, that core, every
// policy, printing, item(), to_vector(), from_vector() and to<B>() reach tensor
// contents only through the backend (after ExecuTorch's fake device allocator).
//
// Memory is host memory behind *tagged* addresses: bit 62 set, which makes the
// address non-canonical on x86-64, so any direct read or write through it
// faults (SIGSEGV) instead of silently working. Only this backend's copy
// functions and kernels translate an address back, and they refuse one that is
// not tagged (host memory passed off as a device tensor, e.g. a from_blob of a
// host buffer) with an InvalidArgument naming the kernel. Kernels are the
// oneDNN backend's, run on the translated views, so results are bit-for-bit
// the CPU backend's. Copies between host and "device" are counted
// (`transfers()`), to show what each operation costs in copies.
//
//   using T = custody::BasicTensor<custody::tensor_ptr::Policy, custody::Opaque>;
//   custody::Opaque::reset_transfers();
//   float v = T::ones({2}).sum().item<float>();   // one device -> host copy
//
// Not for production use: tests only.

#ifndef CUSTODY_BACKENDS_OPAQUE_OPAQUE_H_
#define CUSTODY_BACKENDS_OPAQUE_OPAQUE_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/backend.h"

namespace custody {

struct Opaque {
  static constexpr const char* name = "opaque";
  // core's generic device slot (kPrivateUse1), printed "opaque:0" (opaque.cc names it).
  static Device device() { return Device{DeviceType::kPrivateUse1, 0}; }
  static bool available() { return true; }

  // allocate, deallocate, copy_to_host, copy_from_host, stats and the kernels
  // (Note [The kernel interface, declared once], core/backend.h). allocate
  // gives tagged addresses of host memory from a caching host allocator of its
  // own (stats() counts them exactly, apart from every other backend's). The
  // host <-> device copies are the only way core reads or writes tensor
  // contents: synchronous (there is no queue), and counted in transfers(). The
  // kernels check their views' addresses and run the oneDNN backend's on the
  // host memory behind them (generated from the list, opaque.cc).
  CUSTODY_DECLARE_BACKEND_FUNCTIONS()
  static absl::Status synchronize() { return absl::OkStatus(); }

  // Host <-> device copies since the last reset_transfers() (all threads).
  struct Transfers {
    int64_t to_host = 0;     // copy_to_host calls
    int64_t from_host = 0;   // copy_from_host calls
    int64_t to_host_bytes = 0;
    int64_t from_host_bytes = 0;
  };
  static Transfers transfers();
  static void reset_transfers();

  // The tag: set on every address this backend hands out.
  static constexpr uintptr_t kTag = uintptr_t{1} << 62;
  static bool is_device_address(const void* p) {
    return (reinterpret_cast<uintptr_t>(p) & kTag) != 0;
  }
};

static_assert(Backend<Opaque>);

}  // namespace custody

#endif  // CUSTODY_BACKENDS_OPAQUE_OPAQUE_H_
