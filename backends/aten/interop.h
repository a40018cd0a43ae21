// Copyright 2026 The custody Authors.
//
// backends/aten/interop.h — zero-copy interop with libtorch, both directions:
// `to_aten(t)` gives an at::Tensor over a custody tensor's memory, and
// `from_aten<T>(x)` gives a custody handle, of any policy, over an at::Tensor's
// memory. Neither copies; each side keeps the other's memory alive.
//
//   #include "backends/aten/interop.h"
//   using T = custody::BasicTensor<custody::tensor_ptr::Policy, custody::Aten>;
//
//   T t = T::ones({2, 3});
//   at::Tensor a = custody::to_aten(t);        // same memory: a.data_ptr() == t.data_ptr<float>()
//   a.mul_(2);                                 // t sees 2s
//   custody::release(t);                       // a stays valid: it holds t's storage
//
//   at::Tensor x = at::arange(12, at::kLong).view({3, 4}).t();   // non-contiguous
//   T y = custody::from_aten<T>(x);            // same memory, sizes [4, 3], strides [1, 4]
//   x.reset();                                 // y stays valid: it holds x's storage
//
// This header includes <ATen/ATen.h>: only code that calls these functions pays
// for compiling libtorch's headers (backends/aten/aten.h includes none).
//
// Contracts
//  * to_aten(t): t must be a live handle (else LifetimeError naming to_aten) on
//    a host backend (Aten, Onednn; else DeviceError). The result is a CPU
//    at::Tensor of t's dtype, sizes, strides and storage offset, whose storage
//    is t's whole Storage (same address, same byte size). It does not require
//    grad; autograd may record ops on it like on any leaf tensor. uint16/32/64
//    have no libtorch 1.13 dtype: DTypeError naming the dtype.
//  * from_aten<T>(x, dyn): T is any BasicTensor<Policy, Backend> with a host
//    backend; x must be a defined, strided CPU tensor (else InvalidArgument /
//    DeviceError) of a dtype custody has — float32, float64, float16,
//    bfloat16, int8, int16, int32, int64, uint8, bool — else DTypeError naming
//    x's dtype ("complex64 (ComplexFloat)", "qint8 (QInt8)", ...). Any view works: the
//    handle has x's sizes, strides and storage offset (non-contiguous, sliced,
//    expanded). The memory is shared like `x.detach()` shares it: autograd
//    does not see what custody does with it. A lazily negated view
//    (`x.is_neg()`) is InvalidArgument: call `x.resolve_neg()` first.
//
// Note [Interop ownership]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// Each direction adds exactly one reference on the *storage* of the other side,
// dropped exactly once when the last user on the borrowing side goes, as in
// ExecuTorch's ATen mode:
//  * to_aten: the at::Tensor's StorageImpl owns a DataPtr whose context is one
//    reference on our Storage. `t.impl().storage()->use_count()` goes up by one
//    per at::StorageImpl made, and our memory is freed (by our backend, counted
//    in its MemoryStats) when both the last custody view and the last at::Tensor
//    sharing it are gone, in whichever order.
//  * from_aten: our Storage is a borrowed one whose deleter owns one reference
//    (a c10::Storage) on x's StorageImpl, so `x.storage().use_count()` goes up by
//    one and libtorch frees the memory when its last tensor and our last view
//    are gone. Our MemoryStats count the TensorImpl and Storage (live_tensors,
//    live_storages) but not the bytes, which libtorch allocated.
//  * Storages are held, not tensors: re-pointing the other side's tensor
//    (`x.set_(...)`, our resize of a DYNAMIC_UNBOUND tensor) never frees memory
//    a view still uses.
//
// Note [Round trips keep one storage]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// `from_aten<T>(to_aten(t))` returns a handle on t's own Storage (no wrapper
// around a wrapper), and `to_aten(from_aten<T>(x))` returns an at::Tensor on x's
// own StorageImpl, so each library's alias and overlap checks
// (`is_same_storage`, `Tensor::is_alias_of`, in-place overlap detection) see
// the sharing. Views made on either side of one shared storage keep sharing it.
//
// Note [Pinned storage]
// ~~~~~~~~~~~~~~~~~~~~~
// Memory shared with custody must not move. from_aten therefore marks x's
// StorageImpl non-resizable (growing x with `resize_` then raises in libtorch
// instead of freeing memory custody still reads), and the storages to_aten
// makes are non-resizable. The mark stays after custody's views are gone.

#ifndef CUSTODY_BACKENDS_ATEN_INTEROP_H_
#define CUSTODY_BACKENDS_ATEN_INTEROP_H_

#include <ATen/ATen.h>

#include "backends/aten/aten.h"
#include "core/tensor.h"

namespace custody {

// libtorch's dtype for a custody dtype; DTypeError for uint16/32/64, which
// libtorch 1.13 lacks.
at::ScalarType to_aten_dtype(ScalarType dtype);
// custody's dtype for a libtorch dtype; DTypeError naming it when there is none.
ScalarType from_aten_dtype(at::ScalarType dtype);

namespace aten_internal {

// The non-template halves of to_aten / from_aten (interop.cc).
at::Tensor share_to_aten(const TensorImpl& t);
ImplRef share_from_aten(const at::Tensor& x, Device device, MemoryStats* stats,
                        TensorShapeDynamism dyn);

template <class T>
const TensorImpl& live_impl(const T& t, const char* op) {
  if constexpr (requires { t.checked_impl(op); }) {
    return t.checked_impl(op);  // LifetimeError naming `op`
  } else {
    return t.impl();
  }
}

}  // namespace aten_internal

// An at::Tensor sharing `t`'s memory and keeping it alive (see the contracts above).
template <AnyTensor T>
at::Tensor to_aten(const T& t) {
  return aten_internal::share_to_aten(aten_internal::live_impl(t, "to_aten"));
}

// A fresh handle of type T (any policy; a host backend) sharing `x`'s memory
// and keeping it alive. `dyn` is the handle's shape dynamism (resizes stay
// within x's element count unless DYNAMIC_UNBOUND, which reallocates on growth).
template <AnyTensor T>
T from_aten(const at::Tensor& x,
            TensorShapeDynamism dyn = TensorShapeDynamism::DYNAMIC_BOUND) {
  using B = typename T::backend_type;
  return T::adopt(aten_internal::share_from_aten(x, B::device(), &B::stats(), dyn));
}

}  // namespace custody

#endif  // CUSTODY_BACKENDS_ATEN_INTEROP_H_
