// Copyright 2026 The custody Authors.
//
// core/tensor_impl.h — `TensorImpl`, the refcounted metadata of a tensor.
//
// A TensorImpl holds dtype, sizes, strides, storage offset, dynamism and
// capacity, and exactly one reference on its Storage. Handles
// (`BasicTensor<Policy, Backend>`) own references on TensorImpls; how and when
// they give them back is the policy's business.
//
// Note [One TensorImpl, many handles]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// `alias()` and in-place ops return fresh handles to the *same* TensorImpl
// (G2, G8); views (`transpose`, `narrow`, ...) return handles to *new*
// TensorImpls that share the Storage (G5). Resizing changes the TensorImpl, so
// every handle to it sees the new sizes, as with ExecuTorch's TensorPtr copies.

#ifndef CUSTODY_CORE_TENSOR_IMPL_H_
#define CUSTODY_CORE_TENSOR_IMPL_H_

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_format.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/refcount.h"
#include "core/shape.h"
#include "core/stats.h"
#include "core/storage.h"

namespace custody {

namespace autograd::internal {
struct AutogradMeta;  // core/autograd/meta.h
}  // namespace autograd::internal

namespace internal {

// The sizes and strides of a tensor in one array (after c10's SizesAndStrides):
// up to kInlineDims dims in place, more in one heap array. `resize` keeps no
// values; the caller writes every size and stride after it.
class SizesAndStrides {
 public:
  static constexpr size_t kInlineDims = 5;

  SizesAndStrides() = default;
  SizesAndStrides(const SizesAndStrides&) = delete;
  SizesAndStrides& operator=(const SizesAndStrides&) = delete;
  ~SizesAndStrides() {
    if (!is_inline()) delete[] heap_;
  }

  size_t dim() const { return dim_; }
  IntSpan sizes() const { return IntSpan(data(), dim_); }
  IntSpan strides() const { return IntSpan(data() + dim_, dim_); }
  int64_t* sizes_data() { return data(); }
  int64_t* strides_data() { return data() + dim_; }

  void resize(size_t dim) {
    if (dim == dim_) return;
    if (!is_inline()) delete[] heap_;
    if (dim > kInlineDims) heap_ = new int64_t[2 * dim];
    dim_ = dim;
  }
  void assign(IntSpan sizes, IntSpan strides) {
    resize(sizes.size());
    std::copy(sizes.begin(), sizes.end(), sizes_data());
    std::copy(strides.begin(), strides.end(), strides_data());
  }

 private:
  bool is_inline() const { return dim_ <= kInlineDims; }
  const int64_t* data() const { return is_inline() ? inline_ : heap_; }
  int64_t* data() { return is_inline() ? inline_ : heap_; }

  size_t dim_ = 0;
  union {
    int64_t inline_[2 * kInlineDims];
    int64_t* heap_;
  };
};

}  // namespace internal

// Note [One allocation per tensor]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A fresh tensor's TensorImpl and its owning Storage live in one heap block
// (`internal::TensorBlock`), as ExecuTorch's TensorPtr keeps metadata, deleter
// and refcount in one allocation. The two keep their own refcounts, because
// views share the Storage and may outlive the TensorImpl (G5): each part is
// destroyed in place when its own count reaches zero, and the block is freed
// when the second part goes (a count of live parts, 2 at birth; acq_rel, so
// both destructors happen-before the free). Views and from_blob tensors
// allocate their TensorImpl alone (a view's Storage exists already; a
// from_blob tensor's borrowed Storage is allocated on its own).
class TensorImpl final : public RefCounted {
 public:
  // `sizes`/`strides` must already be validated (see core/ops.h).
  static Ref<TensorImpl> Create(Ref<Storage> storage, int64_t storage_offset, IntSpan sizes,
                                IntSpan strides, ScalarType dtype,
                                TensorShapeDynamism dynamism, MemoryStats* stats);
  // A fresh tensor over backend memory `data` (given back with `free_fn`), its
  // Storage in the same block (Note [One allocation per tensor]).
  static Ref<TensorImpl> CreateOwning(void* data, size_t nbytes, Device device,
                                      Storage::FreeFn free_fn, IntSpan sizes, IntSpan strides,
                                      ScalarType dtype, TensorShapeDynamism dynamism,
                                      MemoryStats* stats);
  // The same, contiguous, `numel` being the (checked) product of `sizes`: the
  // strides are written in place (every op's fresh output takes this path).
  static Ref<TensorImpl> CreateOwningContiguous(void* data, size_t nbytes, Device device,
                                                Storage::FreeFn free_fn, IntSpan sizes,
                                                int64_t numel, ScalarType dtype,
                                                TensorShapeDynamism dynamism, MemoryStats* stats);
  static void Destroy(TensorImpl* t);

  int64_t dim() const { return static_cast<int64_t>(dims_.dim()); }
  IntSpan sizes() const { return dims_.sizes(); }
  IntSpan strides() const { return dims_.strides(); }
  int64_t size(int64_t d) const { return dims_.sizes()[d]; }
  int64_t stride(int64_t d) const { return dims_.strides()[d]; }
  int64_t numel() const { return numel_; }
  ScalarType scalar_type() const { return dtype_; }
  ScalarType dtype() const { return dtype_; }
  size_t element_size() const { return custody::element_size(dtype_); }
  size_t nbytes() const { return static_cast<size_t>(numel_) * element_size(); }
  int64_t storage_offset() const { return storage_offset_; }
  TensorShapeDynamism shape_dynamism() const { return dynamism_; }
  bool is_contiguous() const { return contiguous_; }
  Dims dim_order() const { return dim_order_from_strides(strides()); }
  Device device() const { return storage_->device(); }
  // Elements this tensor may hold after a resize without reallocating.
  int64_t capacity() const { return capacity_; }
  const Ref<Storage>& storage() const { return storage_; }
  MemoryStats* stats() const { return stats_; }

  // Address of element 0 (storage base + offset). A device address on device backends.
  void* data() const {
    return static_cast<char*>(storage_->data()) + storage_offset_ * static_cast<int64_t>(element_size());
  }
  // Typed data pointers; DTypeError when T does not match the dtype.
  template <class T> const T* const_data_ptr() const { return static_cast<const T*>(checked_data<T>()); }
  template <class T> T* mutable_data_ptr() const { return static_cast<T*>(checked_data<T>()); }
  template <class T> T* data_ptr() const { return mutable_data_ptr<T>(); }
  // Untyped, as ExecuTorch's Tensor has them.
  const void* const_data_ptr() const { return data(); }
  void* mutable_data_ptr() const { return data(); }
  // ExecuTorch's Tensor is a handle over a TensorImpl; here the TensorImpl is
  // what `*tensor_ptr` gives, so this returns itself (code that goes through
  // `tensor.unsafeGetTensorImpl()->...` ports unchanged).
  TensorImpl* unsafeGetTensorImpl() const { return const_cast<TensorImpl*>(this); }

  // Points this tensor at `data`, memory on its device that the caller keeps
  // alive for capacity() elements (nothing frees it), as ExecuTorch's
  // TensorImpl::set_data binds data to a tensor made without any. Only this
  // tensor changes: views of it and the tensor it was made from keep their
  // storage, whose deleter (if any) runs when the last of them goes.
  // InvalidArgument unless `data` is aligned to the element size.
  void set_data(void* data);

  // Autograd's record of this tensor (core/autograd/meta.h): null for a tensor
  // that has never required grad, so that plain tensors pay one predictable
  // branch per op. Owned by the TensorImpl and deleted with it. Mutable: ops
  // take their operands as const and record on them; changing it while
  // another thread runs ops on the same tensor is a race in the caller.
  autograd::internal::AutogradMeta* autograd_meta() const { return autograd_meta_; }
  autograd::internal::AutogradMeta& ensure_autograd_meta() const;
  void reset_autograd_meta() const;

  // Metadata changes used by resize (core/ops_impl_factories.h); not for general use.
  void set_sizes_contiguous(IntSpan sizes, int64_t numel);
  void set_storage(Ref<Storage> storage, int64_t capacity);

 private:
  friend struct internal::TensorBlock;
  TensorImpl() = default;
  ~TensorImpl();
  void init(int64_t storage_offset, IntSpan sizes, IntSpan strides, ScalarType dtype,
            TensorShapeDynamism dynamism, MemoryStats* stats);
  // A TensorImpl and its Storage over `data`, in one TensorBlock; metadata unset.
  static TensorImpl* MakeOwning(void* data, size_t nbytes, Device device, Storage::FreeFn free_fn,
                                MemoryStats* stats);
  // sizes = `sizes`, strides = their row-major strides.
  void set_contiguous(IntSpan sizes);
  template <class T>
  void* checked_data() const {
    if (scalar_type_of<T> != dtype_) {
      throw DTypeError(absl::StrFormat("data_ptr<%s>: tensor has dtype %s, not %s",
                                       dtype_name(scalar_type_of<T>), dtype_name(dtype_),
                                       dtype_name(scalar_type_of<T>)));
    }
    return data();
  }

  Ref<Storage> storage_;
  int64_t storage_offset_ = 0;
  internal::SizesAndStrides dims_;
  int64_t numel_ = 0;
  int64_t capacity_ = 0;
  MemoryStats* stats_ = nullptr;
  ScalarType dtype_ = ScalarType::Float;
  TensorShapeDynamism dynamism_ = TensorShapeDynamism::STATIC;
  bool contiguous_ = true;
  internal::TensorBlock* block_ = nullptr;  // set when co-allocated with its Storage
  mutable autograd::internal::AutogradMeta* autograd_meta_ = nullptr;
};

using ImplRef = Ref<TensorImpl>;

}  // namespace custody

#endif  // CUSTODY_CORE_TENSOR_IMPL_H_
