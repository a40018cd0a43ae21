// Copyright 2026 The custody Authors.
//
// Note [Kernels off the thread's stack] (core/foreign_stack.h): a collection
// that stops a registered thread while that thread runs with its stack pointer
// on a heap buffer (oneDNN's f32 JIT gemm, K > 252) must still scan the
// thread's real stack, and only it.
//
// The scenario is built to fail loudly without the hook: one reservation holds,
// from low to high addresses, a "foreign" stack, an inaccessible gap and the
// thread's own stack. A collector that takes the stack pointer it finds in the
// foreign stack as the low end of the thread's stack scans the gap and faults
// (the death test below shows it does, with the runner removed); with gc's
// runner the thread is not stopped and its stack is scanned from where it was
// when the kernel began, so a handle there keeps its tensor.

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include "backends/onednn/onednn.h"
#include "core/foreign_stack.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "policies/gc/gc.h"
#include "policies/gc/testing.h"

namespace custody {
namespace {

using GcTensor = BasicTensor<gc::Policy, Onednn>;
using Guard = PolicyIdiom<gc::Policy>::Guard;

constexpr size_t kForeignBytes = size_t{256} << 10;
constexpr size_t kGapBytes = size_t{1} << 20;
constexpr size_t kStackBytes = size_t{1} << 20;

// The foreign stack's side of the scenario: says it is there, waits for the
// collection, returns (uc_link brings the thread back to its own stack).
struct Foreign {
  std::atomic<bool> arrived{false};
  std::atomic<bool> collected{false};
};
Foreign* g_foreign = nullptr;

void on_foreign_stack() {
  g_foreign->arrived.store(true);
  while (!g_foreign->collected.load()) std::this_thread::yield();
}

struct Scenario {
  char* reservation = nullptr;
  ucontext_t back{}, foreign{};
  bool survived = false;     // the thread's handle still held its tensor afterwards
  bool went_foreign = false;

  Scenario() {
    void* p = mmap(nullptr, kForeignBytes + kGapBytes + kStackBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return;
    reservation = static_cast<char*>(p);
    mprotect(reservation + kForeignBytes, kGapBytes, PROT_NONE);
  }
  ~Scenario() {
    if (reservation != nullptr) munmap(reservation, kForeignBytes + kGapBytes + kStackBytes);
  }

  // On the thread (whose stack is the top of the reservation).
  void thread_body() {
    Guard guard;  // registers this thread; gives back what it made at the end
    GcTensor t = GcTensor::from_vector(std::vector<float>{1, 2, 3}, {3});  // its alias: on this stack only
    getcontext(&foreign);
    foreign.uc_stack.ss_sp = reservation;
    foreign.uc_stack.ss_size = kForeignBytes;
    foreign.uc_link = &back;
    makecontext(&foreign, &on_foreign_stack, 0);
    internal::run_off_stack([&] {
      went_foreign = true;
      swapcontext(&back, &foreign);
    });
    gc::run_finalizers();
    try {
      survived = t.to_vector<float>() == std::vector<float>{1, 2, 3};
    } catch (const LifetimeError&) {
      survived = false;  // finalized: the collection did not see this stack
    }
  }

  // On the caller: starts the thread, collects while it is on the foreign stack.
  void run() {
    Foreign f;
    g_foreign = &f;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, reservation + kForeignBytes + kGapBytes, kStackBytes);
    pthread_t thread;
    ASSERT_EQ(pthread_create(
                  &thread, &attr,
                  [](void* self) -> void* {
                    static_cast<Scenario*>(self)->thread_body();
                    return nullptr;
                  },
                  this),
              0);
    pthread_attr_destroy(&attr);
    while (!f.arrived.load()) std::this_thread::yield();
    gc::collect();  // stops every registered thread it may stop, scans their stacks
    gc::collect();
    f.collected.store(true);
    pthread_join(thread, nullptr);
    g_foreign = nullptr;
  }
};

TEST(GcOffStack, ACollectionScansTheRealStackOfAThreadWhoseKernelLeftIt) {
  if (!gc::collector_enabled()) GTEST_SKIP() << "gc's collector is off in this build (tsan)";
  Guard guard;
  Scenario s;
  ASSERT_NE(s.reservation, nullptr);
  s.run();
  EXPECT_TRUE(s.went_foreign);
  EXPECT_TRUE(s.survived) << "a handle on the thread's own stack lost its tensor to the collection";
}

// How the scan into the gap ends the process: SIGSEGV, or under AddressSanitizer
// (which reports the SEGV and exits) exit status 1.
bool died_of_the_scan(int status) {
#if defined(__SANITIZE_ADDRESS__)
  if (WIFEXITED(status)) return WEXITSTATUS(status) == 1;
#endif
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
}

// The same scenario without gc's runner: the collector stops the thread on the
// foreign stack, scans from there into the gap, and the process dies. This is
// what the test above would see without the hook (and what the gc server saw).
TEST(GcOffStackDeathTest, WithoutTheRunnerTheCollectorScansFromTheForeignStack) {
  if (!gc::collector_enabled()) GTEST_SKIP() << "gc's collector is off in this build (tsan)";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        internal::set_off_stack_runner(nullptr);
        Scenario s;
        s.run();
      },
      died_of_the_scan, "");
}

// The onednn backend runs its matmul (the primitive that may use the heap
// workspace) through the runner when K is long, and nothing else.
std::atomic<int> g_runs{0};
internal::OffStackRunner g_gc_runner = nullptr;
void counting_runner(void (*fn)(void*), void* ctx) {
  g_runs.fetch_add(1);
  g_gc_runner(fn, ctx);
}

TEST(GcOffStack, OnednnRunsItsMatmulThroughTheRunner) {
  Guard guard;
  GcTensor a = GcTensor::ones({16, 512});  // K = 512: past the kernel's on-stack capacity
  GcTensor b = GcTensor::ones({512, 10});
  g_gc_runner = internal::g_off_stack_runner.load();
  ASSERT_NE(g_gc_runner, nullptr) << "gc installs its runner when it initialises";
  internal::set_off_stack_runner(&counting_runner);
  GcTensor c = a.matmul(b);
  const int after_matmul = g_runs.load();
  GcTensor d = a.add(a);
  const int after_add = g_runs.load();
  // K = 64: the kernel keeps its packed copy on this thread's stack, and the
  // runner's getcontext (a syscall) would cost more than the product.
  GcTensor s = GcTensor::ones({64, 64});
  GcTensor e = s.matmul(s);
  const int after_short_matmul = g_runs.load();
  internal::set_off_stack_runner(g_gc_runner);
  EXPECT_EQ(after_matmul, 1);
  EXPECT_EQ(after_add, 1) << "an elementwise primitive needs no runner";
  EXPECT_EQ(after_short_matmul, 1) << "a matmul with a short inner dim needs no runner";
  EXPECT_EQ(e.to_vector<float>(), std::vector<float>(64 * 64, 64.0f));
  EXPECT_EQ(c.to_vector<float>(), std::vector<float>(160, 512.0f));
}

}  // namespace
}  // namespace custody
