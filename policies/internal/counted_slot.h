// Copyright 2026 The custody Authors.
//
// policies/internal/counted_slot.h — `CountedSlot<Slot>`, what a handle of
// dispose or scope holds: a pointer to the policy's slot for one reference (a
// dispose alias, a scope entry) that counts the handles naming it. Copying
// adds a handle, destroying drops one, moving hands the pointer over (the
// source becomes null); copy-and-swap assignment. What adding and dropping do
// is the policy's: `add_handle(Slot*)` and `drop_handle(Slot*)` in the slot's
// namespace (found by argument-dependent lookup), usually inline fast paths
// for the owner thread (policies/dispose/dispose.h, Note [Owner fast paths]).
//
//   class Handle {
//     ...
//    private:
//     internal::CountedSlot<internal::Alias> alias_;  // copy/move/destroy: the defaults
//   };

#ifndef CUSTODY_POLICIES_INTERNAL_COUNTED_SLOT_H_
#define CUSTODY_POLICIES_INTERNAL_COUNTED_SLOT_H_

#include <utility>

namespace custody::policy_internal {

template <class Slot>
class CountedSlot {
 public:
  CountedSlot() = default;
  // Takes over the handle a new slot starts with.
  explicit CountedSlot(Slot* slot) noexcept : slot_(slot) {}
  CountedSlot(const CountedSlot& o) : slot_(o.slot_) {
    if (slot_ != nullptr) add_handle(slot_);
  }
  CountedSlot(CountedSlot&& o) noexcept : slot_(std::exchange(o.slot_, nullptr)) {}
  CountedSlot& operator=(CountedSlot o) noexcept {
    std::swap(slot_, o.slot_);
    return *this;
  }
  ~CountedSlot() {
    if (slot_ != nullptr) drop_handle(slot_);
  }

  Slot* get() const noexcept { return slot_; }
  Slot* operator->() const noexcept { return slot_; }
  explicit operator bool() const noexcept { return slot_ != nullptr; }

 private:
  Slot* slot_ = nullptr;
};

}  // namespace custody::policy_internal

#endif  // CUSTODY_POLICIES_INTERNAL_COUNTED_SLOT_H_
