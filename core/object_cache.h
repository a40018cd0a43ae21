// Copyright 2026 The custody Authors.
//
// core/object_cache.h — `ThreadObjectCache<T>`: raw memory for objects of type
// T, recycled through a small per-thread free list, for the objects custody
// makes and frees at op rate (a tensor's TensorImpl+Storage block, a policy's
// alias or scope entry).
//
//   void* mem = ThreadObjectCache<Entry>::allocate();     // may throw std::bad_alloc
//   Entry* e = ::new (mem) Entry;
//   ...
//   e->~Entry();
//   ThreadObjectCache<Entry>::deallocate(e);               // any thread
//
// Note [Thread object cache]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// Each thread keeps up to kPerThread freed blocks for its next objects, so a
// create/destroy pair costs no malloc/free. A block freed on another thread
// joins *that* thread's list (blocks are interchangeable). The lists are
// thread_local and touched only by their thread: no atomics. A thread's list is
// freed when the thread ends; a block freed after that (late TLS or static
// destructors) goes straight back to operator delete. Memory held this way is
// bounded by kPerThread * sizeof(T) per thread.

#ifndef CUSTODY_CORE_OBJECT_CACHE_H_
#define CUSTODY_CORE_OBJECT_CACHE_H_

#include <cstddef>
#include <new>

#include "core/asan.h"

namespace custody {

template <class T, int kPerThread = 64>
class ThreadObjectCache {
  static_assert(sizeof(T) >= sizeof(void*), "a free block stores the next link in its first bytes");

 public:
  static void* allocate() {
    if (!torn_down_ && list_.head != nullptr) {
      void* mem = list_.head;
      list_.head = *static_cast<void**>(mem);
      --list_.count;
      CUSTODY_UNPOISON(mem, sizeof(T));
      return mem;
    }
    return ::operator new(sizeof(T), std::align_val_t(alignof(T)));
  }

  static void deallocate(void* mem) noexcept {
    if (!torn_down_ && list_.count < kPerThread) {
      *static_cast<void**>(mem) = list_.head;
      list_.head = mem;
      ++list_.count;
      // The link stays readable; the rest is poisoned under ASan (core/asan.h).
      CUSTODY_POISON(static_cast<char*>(mem) + sizeof(void*), sizeof(T) - sizeof(void*));
      return;
    }
    ::operator delete(mem, sizeof(T), std::align_val_t(alignof(T)));
  }

 private:
  struct List {
    void* head = nullptr;  // singly linked through each free block's first bytes
    int count = 0;
    ~List() {
      torn_down_ = true;
      while (head != nullptr) {
        void* next = *static_cast<void**>(head);
        CUSTODY_UNPOISON(head, sizeof(T));
        ::operator delete(head, sizeof(T), std::align_val_t(alignof(T)));
        head = next;
      }
    }
  };
  static inline thread_local bool torn_down_ = false;  // trivially destructible: readable to the end
  static inline thread_local List list_;
};

}  // namespace custody

#endif  // CUSTODY_CORE_OBJECT_CACHE_H_
