// Copyright 2026 The custody Authors.
//
// examples/idioms — the README's "each policy's idiom, side by side", compiled
// and checked: one step, `loss = (x·w).relu().mean()`, keeping `loss` and
// dropping the temporaries, under each of the five policies. If a README
// snippet changes, change it here too.
//
//   ./bazelw test //examples/idioms:idioms_test

#include <string>
#include <vector>

#include "backends/onednn/onednn.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "policies/dispose/dispose.h"
#include "policies/gc/gc.h"
#include "policies/manual/manual.h"
#include "policies/scope/scope.h"
#include "policies/tensor_ptr/tensor_ptr.h"

namespace {

using custody::Onednn;
template <class P>
using Tensor = custody::BasicTensor<P, Onednn>;

int64_t live() { return Onednn::stats().snapshot().live_tensors; }

TEST(Idioms, Scope) {
  using T = Tensor<custody::scope::Policy>;
  const int64_t live0 = live();
  {
    auto d = custody::scope::new_dispose_scope();
    T x = T::ones({2, 3});
    T w = T::ones({3, 4});
    T loss = custody::scope::with_rc_scope_tensor([&] {
      return x.matmul(w).relu().mean();  // matmul, relu die here; mean moves out
    });
    EXPECT_EQ(loss.item<float>(), 3.0f);
    EXPECT_EQ(live(), live0 + 3) << "x, w and loss";
  }
  EXPECT_EQ(live(), live0) << "the scope's end gave everything back";
}

TEST(Idioms, TensorPtr) {
  using T = Tensor<custody::tensor_ptr::Policy>;
  const int64_t live0 = live();
  {
    T x = T::ones({2, 3});
    T w = T::ones({3, 4});
    T loss = x.matmul(w).relu().mean();  // temporaries freed as their handles die
    T copy = loss;
    EXPECT_EQ(loss.use_count(), 2);
    EXPECT_EQ(live(), live0 + 3);
  }
  EXPECT_EQ(live(), live0);
}

TEST(Idioms, Dispose) {
  using T = Tensor<custody::dispose::Policy>;
  const int64_t live0 = live();
  T x = T::ones({2, 3});
  T w = T::ones({3, 4});
  T loss;
  {
    auto h = custody::dispose::disposing(x.matmul(w));  // `using var`: disposed at block end
    auto r = custody::dispose::disposing(h.relu());
    loss = r.mean();
  }
  EXPECT_EQ(loss.item<float>(), 3.0f);
  EXPECT_EQ(live(), live0 + 3);
  loss.dispose();
  x.dispose();
  w.dispose();
  EXPECT_EQ(live(), live0);
}

// Leaves 2n temporaries to the collector (its own frame, gone when it returns).
template <class T>
[[gnu::noinline]] void MakeGarbage(int n) {
  for (int i = 0; i < n; ++i) {
    T t = T::ones({4}).add(1.0f);
    (void)t.numel();
  }
}

TEST(Idioms, Gc) {
  using T = Tensor<custody::gc::Policy>;
  const uint64_t since = custody::gc::testing::next_serial();
  custody::gc::ScopedPressureTrigger trigger(256 << 20);  // collect every 256 MiB of tensors
  custody::gc::vector<T> kept;  // handles on the heap live in gc::vector
  const custody::gc::Stats before = custody::gc::stats();
  {
    T x = T::ones({2, 3});
    T w = T::ones({3, 4});
    T loss = x.matmul(w).relu().mean();  // temporaries: garbage for the collector
    kept.push_back(loss);
  }
  custody::gc::collect();  // GC.Collect + WaitForPendingFinalizers
  if (custody::gc::collector_enabled()) {  // not under ThreadSanitizer (Note [ThreadSanitizer])
    MakeGarbage<T>(64);  // 128 more temporaries, from a frame that is gone
    custody::gc::collect();
    const custody::gc::Stats after = custody::gc::stats();
    EXPECT_GT(after.collections, before.collections) << "collect() collected";
    // The scan is conservative: a stale stack word may keep one or two a while, not most.
    EXPECT_GE(after.finalized - before.finalized, 64) << "the collector gave the garbage back";
  }
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].item<float>(), 3.0f) << "a handle in gc::vector survives collection";
  kept[0].dispose();
  // The collector scans stacks conservatively and may still hold a stray alias
  // or two; dispose them so LeakSanitizer (--config=asan) judges only our code.
  custody::gc::testing::release_created_on_this_thread_since(since);
}

TEST(Idioms, Manual) {
  using T = Tensor<custody::manual::Policy>;
  const int64_t live0 = live();
  T x = T::ones({2, 3});
  T w = T::ones({3, 4});
  T y = x.matmul(w);  // +1
  T a = y.relu();     // +1
  T loss = a.mean();  // +1, returned: the caller frees it
  free(a);
  free(y);
  EXPECT_THROW(free(y), custody::LifetimeError) << "a free past zero";
  EXPECT_EQ(loss.item<float>(), 3.0f);
  free(loss);
  free(x);
  free(w);
  EXPECT_EQ(live(), live0);
  EXPECT_EQ(custody::manual::leak_report_string().find("[2, 3]"), std::string::npos);
}

}  // namespace
