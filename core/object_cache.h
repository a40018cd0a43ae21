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
    List& l = list_;
    if (l.head != nullptr) {
      void* mem = l.head;
      l.head = *static_cast<void**>(mem);
      --l.count;
      CUSTODY_UNPOISON(mem, sizeof(T));
      return mem;
    }
    return new_block();
  }

  static void deallocate(void* mem) noexcept {
    List& l = list_;
    if (l.count < kPerThread) {
      if (!l.drain_registered) [[unlikely]] {
        if (!register_drain()) return delete_block(mem);
      }
      *static_cast<void**>(mem) = l.head;
      l.head = mem;
      ++l.count;
      // The link stays readable; the rest is poisoned under ASan (core/asan.h).
      CUSTODY_POISON(static_cast<char*>(mem) + sizeof(void*), sizeof(T) - sizeof(void*));
      return;
    }
    delete_block(mem);
  }

 private:
  // Past the cache: operator new/delete, the aligned forms only when T needs
  // more than malloc's alignment (libstdc++'s aligned new is memalign, several
  // times dearer than malloc; a gc collection frees ~10^5 blocks at once, which
  // the next ops take back from here).
  static constexpr bool kOverAligned = alignof(T) > __STDCPP_DEFAULT_NEW_ALIGNMENT__;
  static void* new_block() {
    if constexpr (kOverAligned) {
      return ::operator new(sizeof(T), std::align_val_t(alignof(T)));
    } else {
      return ::operator new(sizeof(T));
    }
  }
  static void delete_block(void* mem) noexcept {
    if constexpr (kOverAligned) {
      ::operator delete(mem, sizeof(T), std::align_val_t(alignof(T)));
    } else {
      ::operator delete(mem, sizeof(T));
    }
  }

  // Trivially constructible and destructible, so reading it needs no TLS
  // initialization guard; the list is freed at thread exit by a Drain, made
  // (with its guard) only on the first deallocate that keeps a block.
  struct List {
    void* head;  // singly linked through each free block's first bytes
    int count;
    bool drain_registered;
    bool torn_down;  // the thread is exiting: keep nothing more
  };
  struct Drain {
    ~Drain() {
      List& l = list_;
      l.torn_down = true;
      l.count = kPerThread;  // deallocate frees from now on
      while (l.head != nullptr) {
        void* next = *static_cast<void**>(l.head);
        CUSTODY_UNPOISON(l.head, sizeof(T));
        delete_block(l.head);
        l.head = next;
      }
    }
  };
  // Arranges for this thread's list to be freed at exit; false once the
  // thread's thread_local destructors have begun (nothing may be kept then).
  static bool register_drain() noexcept {
    if (list_.torn_down) return false;
    static thread_local Drain drain;
    (void)drain;
    list_.drain_registered = true;
    return true;
  }
  static inline constinit thread_local List list_{};
};

}  // namespace custody

#endif  // CUSTODY_CORE_OBJECT_CACHE_H_
