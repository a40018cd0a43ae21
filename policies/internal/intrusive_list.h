// Copyright 2026 The custody Authors.
//
// policies/internal/intrusive_list.h — the circular doubly-linked list with a
// sentinel that a policy threads through its own records: scope's entries of
// one open scope, gc's live aliases. The links live in the records (no
// allocation to link or unlink), in a representation the policy chooses
// (`Links`): plain pointers, or pointers hidden from a conservative collector
// (gc, whose registry must not keep its aliases reachable).
//
//   struct Entry { Entry* prev = nullptr; Entry* next = nullptr; ... };
//   IntrusiveList<Entry, &Entry::prev, &Entry::next> list;
//   list.push_back(e);            // O(1)
//   list.erase(e);                // O(1); e's links are cleared
//   list.for_each([&](Entry* e) { if (...) list.erase(e); });  // oldest first
//
// Not synchronized: the owner guards it (scope: its thread; gc: the registry
// lock). Not API: only policies/ may depend on it.

#ifndef CUSTODY_POLICIES_INTERNAL_INTRUSIVE_LIST_H_
#define CUSTODY_POLICIES_INTERNAL_INTRUSIVE_LIST_H_

#include <cstdint>

namespace custody::policy_internal {

// Links stored as the pointers themselves.
struct PlainLinks {
  template <class T>
  static T* hide(T* p) { return p; }
  template <class T>
  static T* reveal(T* p) { return p; }
};

// `T` is default-constructible (the sentinel is one, never handed out); `Prev`
// and `Next` are its link members, of the type `Links::hide` returns.
template <class T, auto Prev, auto Next, class Links = PlainLinks>
class IntrusiveList {
 public:
  IntrusiveList() { head_.*Prev = head_.*Next = Links::hide(&head_); }
  IntrusiveList(const IntrusiveList&) = delete;
  IntrusiveList& operator=(const IntrusiveList&) = delete;

  // Appends `e`, which is in no list.
  void push_back(T* e) {
    T* last = reveal(head_.*Prev);
    e->*Next = Links::hide(&head_);
    e->*Prev = Links::hide(last);
    last->*Next = Links::hide(e);
    head_.*Prev = Links::hide(e);
    ++size_;
  }

  // Removes `e`, which is in this list, and clears its links.
  void erase(T* e) {
    reveal(e->*Prev)->*Next = e->*Next;
    reveal(e->*Next)->*Prev = e->*Prev;
    e->*Prev = e->*Next = {};
    --size_;
  }

  // Calls `f(e)` on every element, oldest first; `f` may erase `e` (and only `e`).
  template <class F>
  void for_each(F&& f) {
    for (T* e = reveal(head_.*Next); e != &head_;) {
      T* next = reveal(e->*Next);
      f(e);
      e = next;
    }
  }

  int64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  template <class L>
  static T* reveal(L link) { return Links::reveal(link); }

  T head_;  // sentinel
  int64_t size_ = 0;
};

}  // namespace custody::policy_internal

#endif  // CUSTODY_POLICIES_INTERNAL_INTRUSIVE_LIST_H_
