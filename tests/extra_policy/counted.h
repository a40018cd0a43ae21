// Copyright 2026 The custody Authors.
//
// tests/extra_policy/counted.h — `counted`, the smallest ownership policy: a
// handle is one counted reference (copy retains, destruction and release give
// it back). It exists to prove docs/extending.md's "Adding a policy" steps complete: it
// is defined outside policies/, never named by core, the matrix macro or
// instantiate.cc, and still runs every generic conformance suite on a backend
// (//tests/extra_policy:conformance_counted_onednn).

#ifndef CUSTODY_TESTS_EXTRA_POLICY_COUNTED_H_
#define CUSTODY_TESTS_EXTRA_POLICY_COUNTED_H_

#include <utility>

#include "absl/strings/str_format.h"
#include "core/error.h"
#include "core/policy_traits.h"
#include "core/tensor.h"
#include "core/tensor_impl.h"

namespace custody::counted {

namespace internal {
// Out of line and cold, so that checked_impl's test inlines wherever a handle is used.
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_released(const char* op) {
  throw LifetimeError(absl::StrFormat("%s: this counted handle was released", op));
}
}  // namespace internal

struct Policy {
  static constexpr const char* name = "counted";

  template <class Derived>
  class Handle {
   public:
    Handle() = default;
    Handle(AdoptTag, ImplRef ref) : ref_(std::move(ref)) {}

    const TensorImpl& checked_impl(const char* op) const {
      if (!ref_) [[unlikely]] internal::throw_released(op);
      return *ref_;
    }
    void release_reference() noexcept { ref_.reset(); }
    long use_count() const noexcept { return ref_ ? static_cast<long>(ref_->use_count()) : 0; }

   private:
    ImplRef ref_;
  };
};
static_assert(OwnershipPolicy<Policy>);

}  // namespace custody::counted

#endif  // CUSTODY_TESTS_EXTRA_POLICY_COUNTED_H_
