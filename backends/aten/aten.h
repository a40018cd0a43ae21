// Copyright 2026 The custody Authors.
//
// backends/aten/aten.h — `custody::Aten`, the libtorch (ATen) CPU backend.
//
// Memory: host allocations from libtorch's CPU allocator (`c10::GetCPUAllocator()`,
// 64-byte aligned), counted exactly in `stats()`. Kernels: every kernel of the
// op set v1 is one `at::` op (`at::amax_out`, `at::bmm_out`, `at::_softmax_out`,
// `Tensor::copy_`, ...; the elementwise ones call libtorch's CPU kernels
// directly, `at::cpu::add_out`, Note [Direct CPU kernels] in aten.cc) run on
// zero-copy `at::from_blob` views of the KernelViews core passes in, writing
// straight into the output's memory: no copy on the way in or out. Random numbers are custody's own Philox
// streams (core/philox.h), computed on the host, so a seed gives the same
// values here as on every other backend.
//
//   using T = custody::BasicTensor<custody::tensor_ptr::Policy, custody::Aten>;
//   T x = T::randn({64, 128});
//   T y = x.matmul(T::randn({128, 10})).softmax(1);   // at::bmm_out, at::_softmax_out
//
// This header includes no torch header: libtorch stays inside the backend's
// own translation units (aten.cc, interop.cc), so code that only uses the
// backend through BasicTensor never compiles ATen. To share memory with
// libtorch both ways (`to_aten`, `from_aten`), include backends/aten/interop.h.
//
// Errors: kernels never let a `c10::Error` escape. A libtorch error becomes an
// absl::Status naming the op (an index error: InvalidArgument / kOutOfRange;
// a dtype libtorch does not implement: DTypeError; anything else:
// InvalidArgument), which core throws as the matching custody::Error. An
// allocation libtorch cannot satisfy is ResourceExhausted (OutOfMemoryError);
// core counts it in `num_ooms` after any reclaim-and-retry.
//
// Note [Which allocator frees]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// `allocate` takes libtorch's CPU allocator once, on first use, and every
// block is given back through that same allocator's raw deleter, so a later
// `c10::SetCPUAllocator` (which changes what libtorch's own at::empty uses)
// can never make `deallocate` free a block with the wrong allocator. (An
// installed allocator without libtorch's raw interface, `raw_deleter() ==
// nullptr`, cannot free by address; libtorch's default CPU allocator is used
// instead.)

#ifndef CUSTODY_BACKENDS_ATEN_ATEN_H_
#define CUSTODY_BACKENDS_ATEN_ATEN_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/backend.h"

namespace custody {

struct Aten {
  static constexpr const char* name = "aten";
  static Device device() { return Device{DeviceType::kCPU, 0}; }
  static bool available() { return true; }

  // allocate, deallocate, copy_to_host, copy_from_host, stats and the kernels
  // (Note [The kernel interface, declared once], core/backend.h). allocate
  // gives a block of at least `bytes` (never null, even for 0 bytes) from
  // libtorch's CPU allocator; ResourceExhausted when libtorch cannot allocate it.
  CUSTODY_DECLARE_BACKEND_FUNCTIONS()
  static absl::Status synchronize() { return absl::OkStatus(); }

  // Number of libtorch op calls the kernels have made so far (to verify that
  // work went through ATen; tests compare it before and after an op).
  static int64_t aten_calls();
};

static_assert(Backend<Aten>);

}  // namespace custody

#endif  // CUSTODY_BACKENDS_ATEN_ATEN_H_
