// Boehm GC: the C API (GC_MALLOC, finalizers, explicit collection) and gc_cpp.h's gc_cleanup, using
// only libgc (see //third_party:libgc on GC_INCLUDE_NEW).
#include <gc/gc.h>
#include <gc/gc_cpp.h>

#include "gtest/gtest.h"

namespace {

int finalized = 0;

void CountFinalizer(void* /*obj*/, void* /*client_data*/) { ++finalized; }

struct Node : public gc_cleanup {
  static inline int destroyed = 0;
  ~Node() override { ++destroyed; }
  int payload[4] = {};
};

// Allocations happen in a separate frame so no stale pointer to them stays in this one.
__attribute__((noinline)) void AllocateGarbage() {
  for (int i = 0; i < 64; ++i) {
    void* p = GC_MALLOC(128);
    ASSERT_NE(p, nullptr);
    GC_REGISTER_FINALIZER(p, CountFinalizer, nullptr, nullptr, nullptr);
    Node* n = new (UseGC) Node;
    n->payload[0] = i;
  }
}

// Clobbers the stack region the allocation frame used, so the conservative scan finds nothing there.
__attribute__((noinline)) void ClearStack() {
  volatile char buf[16384];
  for (auto& c : buf) c = 0;
}

TEST(LibgcSmoke, FinalizersRun) {
  GC_INIT();
  void* live = GC_MALLOC_ATOMIC(64);
  ASSERT_NE(live, nullptr);
  EXPECT_GE(GC_size(live), 64u);
  AllocateGarbage();
  ClearStack();
  for (int round = 0; round < 5 && (finalized == 0 || Node::destroyed == 0); ++round) {
    GC_gcollect();
    GC_invoke_finalizers();
  }
  // Conservative collection: not every object is guaranteed to be found dead, but some are.
  EXPECT_GT(finalized, 0);
  EXPECT_GT(Node::destroyed, 0);
  EXPECT_GE(GC_get_gc_no(), 1u);
  GC_reachable_here(live);
}

}  // namespace
