// Copyright 2026 The custody Authors.
//
// policies/tensor_ptr/tensor_ptr.h — the `tensor_ptr` ownership policy:
// ExecuTorch's TensorPtr (a shared pointer to a tensor) over custody's tensors.
//
//   using namespace custody::tensor_ptr;
//   auto t = make_tensor_ptr({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});  // owns a copy
//   auto u = t;                        // shares: u.use_count() == 2
//   auto v = t.add(1.5);               // a fresh TensorPtr
//   t.reset();                         // gives t's reference back; u still valid
//
// Contract (docs/design.md §5.2):
//  * A handle owns one reference; copying shares (+1), destruction or reset()
//    gives it back; the last reference frees metadata and data (or runs the
//    from_blob deleter, exactly once).
//  * The handle has std::shared_ptr's face: `->` and `*` reach the TensorImpl
//    (sizes(), dim(), const_data_ptr<T>() ...), `get()`, `reset()`, `swap()`,
//    `use_count()`, a null state, comparison with nullptr. Code written against
//    ExecuTorch's extension/tensor ports with namespace aliases.
//  * Using a null handle (default-constructed, reset, moved-from, released) is
//    a LifetimeError that names the op, never undefined behaviour.
//  * `custody::release(t)` = `t.reset()`, idempotent.
//
// The ExecuTorch maker API (make_tensor_ptr, from_blob, for_blob,
// clone_tensor_ptr, resize_tensor_ptr, scalar_tensor, empty/full/zeros/ones/
// rand/randn/randint with _like and _strided) is in policies/tensor_ptr/make.h.
//
// Note [One intrusive pointer]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The handle is a single intrusive pointer: the refcount lives inside the
// TensorImpl with the metadata (no separate control block, unlike
// std::shared_ptr), so a TensorPtr adds no allocation to the tensor's own: a
// fresh tensor is one block for its TensorImpl and owning Storage (Note [One
// allocation per tensor], core/tensor_impl.h) and its data.

// Note [Autograd under tensor_ptr]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A graph lives while some TensorPtr to one of its outputs does (the
// output's TensorImpl holds the node that made it, and the node holds what it
// saved: Note [The graph holds core references], core/autograd/meta.h), as in
// PyTorch: a loss kept across iterations keeps its whole graph; reset() it or
// keep `loss.detach()`. `grad()` is a TensorPtr sharing the leaf's gradient,
// which the next backward accumulates into in place.

#ifndef CUSTODY_POLICIES_TENSOR_PTR_TENSOR_PTR_H_
#define CUSTODY_POLICIES_TENSOR_PTR_TENSOR_PTR_H_

#include <cstddef>
#include <utility>

#include "absl/strings/str_format.h"
#include "core/error.h"
#include "core/policy_traits.h"
#include "core/tensor.h"
#include "core/tensor_impl.h"

namespace custody::tensor_ptr {

namespace internal {
// The LifetimeError of a null TensorPtr, out of line so that the check inlines
// wherever a handle is used (tensor_ptr.cc).
[[noreturn, gnu::cold]] void throw_null(const char* op);
}  // namespace internal

struct Policy {
  static constexpr const char* name = "tensor_ptr";

  template <class Derived>
  class Handle {
   public:
    Handle() = default;
    Handle(std::nullptr_t) {}
    Handle(AdoptTag, ImplRef ref) : ref_(std::move(ref)) {}

    // ---- std::shared_ptr face ----
    TensorImpl* get() const noexcept { return ref_.get(); }
    TensorImpl& operator*() const { return const_cast<TensorImpl&>(checked_impl("operator*")); }
    TensorImpl* operator->() const {
      return const_cast<TensorImpl*>(&checked_impl("operator->"));
    }
    void reset() noexcept { ref_.reset(); }
    void swap(Handle& other) noexcept { std::swap(ref_, other.ref_); }
    // Number of TensorPtrs (and in-flight ops) sharing this tensor; 0 when null.
    long use_count() const noexcept { return ref_ ? static_cast<long>(ref_->use_count()) : 0; }
    explicit operator bool() const noexcept { return static_cast<bool>(ref_); }
    friend bool operator==(const Handle& a, std::nullptr_t) noexcept { return !a.ref_; }
    friend bool operator==(const Handle& a, const Handle& b) noexcept { return a.ref_ == b.ref_; }

    // ---- the policy contract used by BasicTensor ----
    const TensorImpl& checked_impl(const char* op) const {
      if (!ref_) [[unlikely]] internal::throw_null(op);
      return *ref_;
    }
    void release_reference() noexcept { ref_.reset(); }

   private:
    ImplRef ref_;
  };
};
static_assert(OwnershipPolicy<Policy>);

// `TensorPtr<B>` is the policy's handle on backend B.
template <class B>
using TensorPtrOn = BasicTensor<Policy, B>;

}  // namespace custody::tensor_ptr

#endif  // CUSTODY_POLICIES_TENSOR_PTR_TENSOR_PTR_H_
