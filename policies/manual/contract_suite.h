// Copyright 2026 The custody Authors.
//
// policies/manual/contract_suite.h — the `manual` policy's own contract
// (docs/design.md §5.6 and TH's golden rule of reference counting), typed on the handle
// `BasicTensor<manual::Policy, B>` and run for every backend B by
// //tests/conformance:instantiate.cc; and the test idiom the generic suites use
// under this policy.
//
// Tests name and free every reference they make (the golden rule); the
// fixture's G6 check (live tensors, storages and bytes back at baseline) runs
// after each one. Tests that turn site tracking on use sites::ScopedTracking.

#ifndef CUSTODY_POLICIES_MANUAL_CONTRACT_SUITE_H_
#define CUSTODY_POLICIES_MANUAL_CONTRACT_SUITE_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "core/sites.h"
#include "gtest/gtest.h"
#include "policies/manual/manual.h"
#include "policies/manual/testing.h"
#include "testing/harness.h"

namespace custody::testing {

namespace manual_contract {

using ::custody::testing::lifetime_message;

// Named frames for the site tests: each shows up in a captured stack.
template <class T>
[[gnu::noinline]] T MakeTensorAtThisSite() {
  T t = T::ones({3});
  asm volatile("" ::: "memory");  // keeps the call above out of tail position
  return t;
}
template <class T>
[[gnu::noinline]] void FreeAtThisSite(const T& t) {
  free(t);
  asm volatile("" ::: "memory");
}
template <class T>
[[gnu::noinline]] T RetainAtThisSite(const T& t) {
  T r = manual::retain(t);
  asm volatile("" ::: "memory");
  return r;
}

// The report line of reference `id`, if it is unfreed.
inline std::optional<manual::LeakedReference> find_unfreed(uint64_t id) {
  for (manual::LeakedReference& r : manual::leak_report()) {
    if (r.id == id) return r;
  }
  return std::nullopt;
}

// Golden-rule citizens used by the tests.

// Returns +1, so it is named new_*: frees its own temporary, returns the result.
template <class T>
T new_normalized(const T& x) {
  T total = x.sum();
  T out = x.div(total);
  free(total);
  return out;
}

// Frees its temporary on every exit, exceptions included.
template <class T>
T new_product_matmul(const T& a, const T& b) {
  T prod = a.mul(b);
  try {
    T out = prod.matmul(b);  // ShapeError unless b is square
    free(prod);
    return out;
  } catch (...) {
    free(prod);
    throw;
  }
}

// TH's newContiguous example, written out: retain when already in shape,
// so the end of the function frees unconditionally.
template <class T>
float kernel_total(const T& k) {
  T kernel;
  if (!k.is_contiguous()) {
    kernel = manual::new_contiguous(k);
  } else {
    manual::retain(k);
    kernel = k;
  }
  T s = kernel.sum();
  const float v = s.template item<float>();
  free(s);
  free(kernel);
  return v;
}

// Keeps a tensor past the call that handed it over: retains it itself.
template <class T>
struct Holder {
  T kept;
  void keep(const T& t) { kept = manual::retain(t); }
  void drop() { free(kept); }
};

}  // namespace manual_contract

template <class T>
class ManualContractTest : public ConformanceTest<T> {};
TYPED_TEST_SUITE_P(ManualContractTest);

#define CUSTODY_MANUAL_PRELUDE                      \
  using T = TypeParam;                              \
  using namespace ::custody::testing::manual_contract; \
  namespace mt = ::custody::manual::testing

// ---- handles are plain values ------------------------------------------------------

TYPED_TEST_P(ManualContractTest, HandlesArePlainValuesAndCopiesShareTheReference) {
  CUSTODY_MANUAL_PRELUDE;
  static_assert(std::is_trivially_copyable_v<T>, "a manual handle is a THTensor*-like value");
  static_assert(std::is_trivially_destructible_v<T>, "a manual handle's destructor does nothing");
  const StatsSnapshot before = TestFixture::stats();
  T a = T::ones({4});
  const int64_t live = manual::live_references();
  T b = a;
  T c;
  c = b;
  auto id_by_value = [](T x) { return x.reference_id(); };
  EXPECT_EQ(id_by_value(a), a.reference_id());
  EXPECT_EQ(b.reference_id(), a.reference_id());
  EXPECT_TRUE(manual::same_reference(a, c));
  EXPECT_EQ(mt::refcount(a), 1) << "copying a handle copies the pointer, not a count";
  EXPECT_EQ(manual::live_references(), live);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors + 1);
  free(c);  // any copy frees the one reference
  EXPECT_EQ(mt::refcount(a), 0);
  EXPECT_THROW((void)a.numel(), LifetimeError);
  EXPECT_THROW((void)b.numel(), LifetimeError);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
}

TYPED_TEST_P(ManualContractTest, AHandleGoingOutOfScopeFreesNothing) {
  CUSTODY_MANUAL_PRELUDE;
  const StatsSnapshot before = TestFixture::stats();
  T keep;
  {
    T a = T::zeros({64});
    keep = a;
  }
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors + 1);
  EXPECT_EQ(mt::refcount(keep), 1);
  free(keep);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
}

TYPED_TEST_P(ManualContractTest, DefaultHandleRefersToNoTensorAndFreeingItIsANoOp) {
  CUSTODY_MANUAL_PRELUDE;
  T d;
  EXPECT_EQ(d.reference_id(), 0u);
  EXPECT_EQ(mt::refcount(d), 0);
  const std::string m = lifetime_message([&] { (void)d.numel(); });
  EXPECT_NE(m.find("numel: this handle refers to no tensor"), std::string::npos) << m;
  const int64_t live = manual::live_references();
  free(d);               // THTensor_(free)(NULL)
  custody::release(d);
  EXPECT_EQ(manual::live_references(), live);
  EXPECT_THROW((void)manual::retain(d), LifetimeError);
}

// ---- op results are +1 references ----------------------------------------------------

TYPED_TEST_P(ManualContractTest, EveryOpResultIsAPlusOneReference) {
  CUSTODY_MANUAL_PRELUDE;
  T a = T::ones({2, 4});
  const int64_t live = manual::live_references();
  T sum = a.add(a);
  T view = a.view({8});
  T red = a.sum(1);
  T al = a.alias();
  T conv = a.to(ScalarType::Double);
  T op = a * 2.0;
  EXPECT_EQ(manual::live_references(), live + 6);
  for (const T* t : {&sum, &view, &red, &al, &conv, &op}) {
    EXPECT_EQ(mt::refcount(*t), 1);
    EXPECT_FALSE(manual::same_reference(*t, a));
  }
  EXPECT_EQ(mt::refcount(a), 1) << "inputs are untouched";
  for (const T* t : {&sum, &view, &red, &al, &conv, &op}) free(*t);
  EXPECT_EQ(manual::live_references(), live);
  free(a);
}

TYPED_TEST_P(ManualContractTest, FreeReturnsTheBytesExactly) {
  CUSTODY_MANUAL_PRELUDE;
  const StatsSnapshot before = TestFixture::stats();
  T a = T::empty({1000}, ScalarType::Double);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use + 8000);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors + 1);
  free(a);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(TestFixture::stats().live_storages, before.live_storages);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
}

TYPED_TEST_P(ManualContractTest, OperatorsReturnPlusOneReferences) {
  CUSTODY_MANUAL_PRELUDE;
  T a = T::from_vector(std::vector<float>{1, 2});
  T b = T::from_vector(std::vector<float>{3, 4});
  const int64_t live = manual::live_references();
  T s = a + b;
  T n = -a;
  T q = 1.0f - b;
  EXPECT_EQ(manual::live_references(), live + 3);
  EXPECT_EQ(values_of(s), std::vector<double>({4, 6}));
  EXPECT_EQ(values_of(n), std::vector<double>({-1, -2}));
  EXPECT_EQ(values_of(q), std::vector<double>({-2, -3}));
  for (const T* t : {&a, &b, &s, &n, &q}) free(*t);
}

// ---- retain / free ----------------------------------------------------------------------

TYPED_TEST_P(ManualContractTest, RetainAddsOneAndReturnsTheSameReference) {
  CUSTODY_MANUAL_PRELUDE;
  const StatsSnapshot before = TestFixture::stats();
  T a = T::full(std::vector<int64_t>{3}, 2.0f);
  T r = manual::retain(a);
  EXPECT_TRUE(manual::same_reference(r, a));
  EXPECT_EQ(r.reference_id(), a.reference_id());
  EXPECT_EQ(mt::refcount(a), 2);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors + 1) << "retain allocates nothing";
  free(r);
  EXPECT_EQ(mt::refcount(a), 1);
  EXPECT_EQ(values_of(a), std::vector<double>({2, 2, 2})) << "one free of two leaves it alive";
  free(a);
  EXPECT_EQ(mt::refcount(a), 0);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
}

TYPED_TEST_P(ManualContractTest, RetainFreePairsBalanceAtAnyDepth) {
  CUSTODY_MANUAL_PRELUDE;
  const StatsSnapshot before = TestFixture::stats();
  T a = T::ones({16});
  for (int i = 0; i < 50; ++i) manual::retain(a);
  EXPECT_EQ(mt::refcount(a), 51);
  for (int i = 0; i < 50; ++i) free(a);  // the same pointer, as TH code does
  EXPECT_EQ(mt::refcount(a), 1);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors + 1);
  free(a);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
}

TYPED_TEST_P(ManualContractTest, RetainOfAFreedReferenceCannotResurrectIt) {
  CUSTODY_MANUAL_PRELUDE;
  T a = T::ones({2});
  free(a);
  const std::string m = lifetime_message([&] { (void)manual::retain(a); });
  EXPECT_NE(m.find("retain: tensor reference #" + std::to_string(a.reference_id()) +
                   " is used after it was freed"),
            std::string::npos)
      << m;
  EXPECT_EQ(mt::refcount(a), 0);
}

// ---- new_contiguous (TH's example of the rule) --------------------------------------------

TYPED_TEST_P(ManualContractTest, NewContiguousOfAContiguousTensorIsItRetained) {
  CUSTODY_MANUAL_PRELUDE;
  T a = T::arange(0, 6, 1, ScalarType::Float);
  const StatsSnapshot before = TestFixture::stats();
  const int64_t live = manual::live_references();
  T k = manual::new_contiguous(a);
  EXPECT_TRUE(manual::same_reference(k, a));
  EXPECT_EQ(k.template const_data_ptr<float>(), a.template const_data_ptr<float>());
  EXPECT_EQ(mt::refcount(a), 2);
  EXPECT_EQ(manual::live_references(), live) << "no new reference entry, one more count";
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
  free(k);
  EXPECT_EQ(mt::refcount(a), 1);
  free(a);
}

TYPED_TEST_P(ManualContractTest, NewContiguousOfANonContiguousTensorIsAFreshCopy) {
  CUSTODY_MANUAL_PRELUDE;
  T flat = T::arange(0, 6, 1, ScalarType::Float);
  T m = flat.reshape({2, 3});
  T mt_ = m.t();
  ASSERT_FALSE(mt_.is_contiguous());
  const StatsSnapshot before = TestFixture::stats();
  T k = manual::new_contiguous(mt_);
  EXPECT_TRUE(k.is_contiguous());
  EXPECT_FALSE(manual::same_reference(k, mt_));
  EXPECT_NE(k.template const_data_ptr<float>(), mt_.template const_data_ptr<float>());
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use + 24);
  EXPECT_EQ(mt::refcount(k), 1);
  EXPECT_EQ(mt::refcount(mt_), 1) << "the input is neither retained nor freed";
  EXPECT_EQ(values_of(k), std::vector<double>({0, 3, 1, 4, 2, 5}));
  free(k);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
  free(mt_);
  free(m);
  free(flat);
}

TYPED_TEST_P(ManualContractTest, TheKernelIdiomFreesUnconditionallyOnBothBranches) {
  CUSTODY_MANUAL_PRELUDE;
  T flat = T::arange(0, 6, 1, ScalarType::Float);
  T m = flat.reshape({2, 3});
  T tr = m.t();
  const int64_t live = manual::live_references();
  const StatsSnapshot before = TestFixture::stats();
  EXPECT_EQ(kernel_total(m), 15.0f);   // contiguous: retain + free
  EXPECT_EQ(kernel_total(tr), 15.0f);  // strided: new_contiguous + free
  EXPECT_EQ(manual::live_references(), live);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(mt::refcount(m), 1);
  EXPECT_EQ(mt::refcount(tr), 1);
  free(tr);
  free(m);
  free(flat);
}

// ---- free past zero and use after free ----------------------------------------------

TYPED_TEST_P(ManualContractTest, FreePastZeroIsALifetimeErrorWithATrackingHint) {
  CUSTODY_MANUAL_PRELUDE;
  sites::ScopedTracking off(false);
  T a = T::ones({3});
  free(a);
  // A free past zero throws (a LifetimeError: kFailedPrecondition).
  CUSTODY_EXPECT_THROWS(LifetimeError, free(a),
                        "free: free past zero on tensor reference #" + std::to_string(a.reference_id()),
                        "float32 [3]", "CUSTODY_TRACK_SITES=1");
  EXPECT_EQ(mt::refcount(a), 0) << "a failed free changes nothing";
}

TYPED_TEST_P(ManualContractTest, FreePastZeroNamesTheCreationSiteAndTheEarlierFree) {
  CUSTODY_MANUAL_PRELUDE;
  sites::ScopedTracking on(true);
  T a = MakeTensorAtThisSite<T>();
  FreeAtThisSite(a);
  const std::string m = lifetime_message([&] { free(a); });
  const size_t created = m.find("created at");
  const size_t freed = m.find("freed earlier at");
  ASSERT_NE(created, std::string::npos) << m;
  ASSERT_NE(freed, std::string::npos) << m;
  ASSERT_LT(created, freed) << m;
  EXPECT_NE(m.substr(created, freed - created).find("MakeTensorAtThisSite"), std::string::npos)
      << "the creation site shows the creating function:\n" << m;
  EXPECT_NE(m.substr(freed).find("FreeAtThisSite"), std::string::npos)
      << "the earlier free's site shows the freeing function:\n" << m;
}

TYPED_TEST_P(ManualContractTest, ReleaseIsAFreeAndAReleasePastZeroThrows) {
  CUSTODY_MANUAL_PRELUDE;
  const StatsSnapshot before = TestFixture::stats();
  T a = T::ones({16});
  manual::retain(a);
  custody::release(a);  // G3 is a free under manual
  EXPECT_EQ(mt::refcount(a), 1);
  custody::release(a);
  EXPECT_EQ(mt::refcount(a), 0);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
  const std::string m = lifetime_message([&] { custody::release(a); });
  EXPECT_NE(m.find("release: free past zero"), std::string::npos) << m;
}

TYPED_TEST_P(ManualContractTest, UseAfterFreeIsALifetimeErrorNamingTheOp) {
  CUSTODY_MANUAL_PRELUDE;
  sites::ScopedTracking off(false);
  T a = T::zeros({2});
  free(a);
  const std::string m = lifetime_message([&] { (void)a.exp(); });
  EXPECT_EQ(m.rfind("exp: tensor reference #" + std::to_string(a.reference_id()) +
                        " is used after it was freed",
                    0),
            0u)
      << m;
  EXPECT_NE(m.find("float32 [2]"), std::string::npos) << m;
}

TYPED_TEST_P(ManualContractTest, UseAfterFreeShowsWhereItWasCreatedAndFreed) {
  CUSTODY_MANUAL_PRELUDE;
  sites::ScopedTracking on(true);
  T a = MakeTensorAtThisSite<T>();
  FreeAtThisSite(a);
  const std::string m = lifetime_message([&] { (void)a.sum(); });
  EXPECT_EQ(m.rfind("sum: ", 0), 0u) << m;
  const size_t created = m.find("created at");
  const size_t freed = m.find("freed at");
  ASSERT_NE(created, std::string::npos) << m;
  ASSERT_NE(freed, std::string::npos) << m;
  EXPECT_NE(m.find("MakeTensorAtThisSite"), std::string::npos) << m;
  EXPECT_NE(m.substr(freed).find("FreeAtThisSite"), std::string::npos) << m;
}

TYPED_TEST_P(ManualContractTest, EveryUseOfAFreedReferenceThrowsAndCreatesNothing) {
  CUSTODY_MANUAL_PRELUDE;
  T a = T::ones({2, 2});
  T b = T::full(std::vector<int64_t>{2, 2}, 3.0f);
  free(a);
  const int64_t live = manual::live_references();
  EXPECT_THROW((void)a.sizes(), LifetimeError);
  EXPECT_THROW((void)a.template item<float>(), LifetimeError);
  EXPECT_THROW((void)a.template to_vector<float>(), LifetimeError);
  EXPECT_THROW((void)a.to_string(), LifetimeError);
  EXPECT_THROW((void)a.alias(), LifetimeError);
  EXPECT_THROW((void)a.reshape({4}), LifetimeError);
  EXPECT_THROW((void)a.add_(1), LifetimeError);
  EXPECT_THROW((void)b.add(a), LifetimeError) << "a freed operand is refused too";
  EXPECT_THROW((void)b.copy_(a), LifetimeError);
  EXPECT_THROW((void)manual::new_contiguous(a), LifetimeError);
  EXPECT_EQ(manual::live_references(), live);
  EXPECT_EQ(values_of(b), std::vector<double>({3, 3, 3, 3})) << "the failed ops wrote nothing";
  free(b);
}

TYPED_TEST_P(ManualContractTest, CopiesOfAFreedHandleAreAllStale) {
  CUSTODY_MANUAL_PRELUDE;
  T a = T::ones({2});
  T before_free = a;
  free(a);
  T after_free = a;
  EXPECT_THROW((void)before_free.numel(), LifetimeError);
  EXPECT_THROW((void)after_free.numel(), LifetimeError);
  EXPECT_THROW(free(before_free), LifetimeError) << "freeing through another copy is past zero too";
}

TYPED_TEST_P(ManualContractTest, AStaleHandleIsRefusedEvenAfterItsSlotIsReused) {
  CUSTODY_MANUAL_PRELUDE;
  const StatsSnapshot before = TestFixture::stats();
  T a = T::ones({2});
  const std::string id = std::to_string(a.reference_id());
  free(a);
  // Make more references than the ledger has free slots: one of them takes a's.
  const size_t free_slots = mt::ledger_free_slots();
  std::vector<T> fresh;
  for (size_t i = 0; i <= free_slots; ++i) fresh.push_back(T::zeros({1}));
  const std::string use = lifetime_message([&] { (void)a.numel(); });
  EXPECT_NE(use.find("numel: tensor reference #" + id + " is used after it was freed"),
            std::string::npos)
      << use;
  EXPECT_NE(use.find("reused"), std::string::npos) << use;
  const std::string twice = lifetime_message([&] { free(a); });
  EXPECT_NE(twice.find("free: free past zero on tensor reference #" + id), std::string::npos) << twice;
  EXPECT_EQ(mt::refcount(a), 0);
  for (const T& t : fresh) {
    EXPECT_EQ(mt::refcount(t), 1) << "the stale free must not touch the slot's new tenant";
    free(t);
  }
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
}

TYPED_TEST_P(ManualContractTest, TheLedgerStaysFlatUnderCreateFreeChurn) {
  CUSTODY_MANUAL_PRELUDE;
  {  // two references live at once, as in the loop below
    T w1 = T::ones({1});
    T w2 = T::ones({1});
    free(w1);
    free(w2);
  }
  const size_t slots = mt::ledger_slots();
  const int64_t live = manual::live_references();
  for (int i = 0; i < 5000; ++i) {
    T t = T::ones({1});
    T u = t.add(1);
    free(u);
    free(t);
  }
  EXPECT_EQ(mt::ledger_slots(), slots) << "freed slots are reused: the ledger holds the peak, not the history";
  EXPECT_EQ(manual::live_references(), live);
}

// ---- the leak report -------------------------------------------------------------------

TYPED_TEST_P(ManualContractTest, LeakReportListsAnUnfreedReferenceUntilItIsFreed) {
  CUSTODY_MANUAL_PRELUDE;
  sites::ScopedTracking on(true);
  T t = T::zeros({2, 5}, ScalarType::Int);
  const auto entry = find_unfreed(t.reference_id());
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->dtype, "int32");
  EXPECT_EQ(entry->sizes, std::vector<int64_t>({2, 5}));
  EXPECT_EQ(entry->refcount, 1);
  EXPECT_NE(entry->site.find("ManualContractTest"), std::string::npos) << "the test's frame:\n"
                                                                        << entry->site;
  const std::string s = manual::leak_report_string();
  EXPECT_NE(s.find("unfreed reference #" + std::to_string(t.reference_id()) +
                   ": int32 [2, 5], refcount 1"),
            std::string::npos)
      << s;
  free(t);
  EXPECT_FALSE(find_unfreed(t.reference_id()).has_value());
  EXPECT_EQ(manual::leak_report_string().find("#" + std::to_string(t.reference_id()) + ":"),
            std::string::npos);
}

TYPED_TEST_P(ManualContractTest, LeakReportShowsOutstandingRetainsWithTheirSites) {
  CUSTODY_MANUAL_PRELUDE;
  sites::ScopedTracking on(true);
  T t = T::ones({4});
  T r = RetainAtThisSite(t);
  auto entry = find_unfreed(t.reference_id());
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->refcount, 2);
  ASSERT_EQ(entry->retained_at.size(), 1u);
  EXPECT_NE(entry->retained_at[0].find("RetainAtThisSite"), std::string::npos) << entry->retained_at[0];
  EXPECT_NE(manual::leak_report_string().find("retained at"), std::string::npos);
  free(r);
  entry = find_unfreed(t.reference_id());
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->refcount, 1);
  EXPECT_TRUE(entry->retained_at.empty()) << "the outstanding retain was freed";
  free(t);
}

TYPED_TEST_P(ManualContractTest, LeakReportStringHintsAtSiteTrackingWhenOff) {
  CUSTODY_MANUAL_PRELUDE;
  sites::ScopedTracking off(false);
  T t = T::zeros({7}, ScalarType::Long);
  const std::string s = manual::leak_report_string();
  EXPECT_NE(s.find("int64 [7], refcount 1"), std::string::npos) << s;
  EXPECT_NE(s.find("CUSTODY_TRACK_SITES=1"), std::string::npos) << s;
  free(t);
}

TYPED_TEST_P(ManualContractTest, AForgottenFreeOnAnEarlyExitShowsInTheLeakReport) {
  CUSTODY_MANUAL_PRELUDE;
  T x = T::ones({4});
  T forgotten;  // a copy of the handle, so the test can clean up after the bug
  auto buggy = [&](bool early) -> float {
    T tmp = x.mul(2);
    forgotten = tmp;
    if (early) return 0.0f;  // BUG: returns without free(tmp)
    T s = tmp.sum();
    const float v = s.template item<float>();
    free(s);
    free(tmp);
    return v;
  };
  const int64_t live = manual::live_references();
  EXPECT_EQ(buggy(false), 8.0f);
  EXPECT_EQ(manual::live_references(), live) << "the careful path is balanced";
  buggy(true);
  EXPECT_EQ(manual::live_references(), live + 1);
  const auto entry = find_unfreed(forgotten.reference_id());
  ASSERT_TRUE(entry.has_value()) << manual::leak_report_string();
  EXPECT_EQ(entry->sizes, std::vector<int64_t>({4}));
  free(forgotten);
  free(x);
}

TYPED_TEST_P(ManualContractTest, ChainedTemporariesAreUnfreedReferencesTheIdiomCollects) {
  // The golden rule's pitfall: each link of a chain is a +1 nobody named.
  CUSTODY_MANUAL_PRELUDE;
  const StatsSnapshot before = TestFixture::stats();
  const uint64_t since = mt::next_serial();
  const int64_t live = manual::live_references();
  T a = T::ones({4});
  T r = a.mul(2).add(1).exp().sum();
  EXPECT_EQ(manual::live_references(), live + 5) << "a, mul, add, exp and sum";
  int unnamed = 0;
  for (const manual::LeakedReference& u : manual::leak_report()) {
    if (u.id >= since && u.id != a.reference_id() && u.id != r.reference_id()) ++unnamed;
  }
  EXPECT_EQ(unnamed, 3);
  // What PolicyIdiom<manual::Policy>::Guard does at the end of every test body:
  mt::release_created_on_this_thread_since(since);
  EXPECT_EQ(manual::live_references(), live);
  EXPECT_EQ(mt::refcount(a), 0);
  EXPECT_EQ(mt::refcount(r), 0);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
}

// ---- tensors shared through references ------------------------------------------------

TYPED_TEST_P(ManualContractTest, InPlaceOpsReturnPlusOneReferencesToTheSameTensor) {
  CUSTODY_MANUAL_PRELUDE;
  const StatsSnapshot before = TestFixture::stats();
  T a = T::zeros({3});
  const int64_t live = manual::live_references();
  T r = a.add_(2);
  T f = a.fill_(5);
  EXPECT_EQ(manual::live_references(), live + 2);
  EXPECT_EQ(&r.impl(), &a.impl());
  EXPECT_EQ(&f.impl(), &a.impl());
  EXPECT_FALSE(manual::same_reference(r, a)) << "a fresh +1 reference, freed on its own";
  EXPECT_EQ(mt::refcount(a), 1);
  EXPECT_EQ(mt::refcount(r), 1);
  free(r);
  free(f);
  EXPECT_EQ(values_of(a), std::vector<double>({5, 5, 5})) << "freeing the results leaves the input";
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors + 1);
  free(a);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
}

TYPED_TEST_P(ManualContractTest, AliasIsASeparateReferenceSoFreeingTheWrongHandleIsCaught) {
  CUSTODY_MANUAL_PRELUDE;
  T a = T::full(std::vector<int64_t>{2}, 4.0f);
  T b = a.alias();
  EXPECT_EQ(&a.impl(), &b.impl());
  free(a);
  EXPECT_EQ(values_of(b), std::vector<double>({4, 4})) << "b's reference keeps the tensor";
  EXPECT_THROW(free(a), LifetimeError) << "two frees of a (instead of a and b) are past zero for a";
  EXPECT_EQ(mt::refcount(b), 1);
  free(b);
}

TYPED_TEST_P(ManualContractTest, ViewsKeepTheStorageAliveAfterTheBaseIsFreed) {
  CUSTODY_MANUAL_PRELUDE;
  const StatsSnapshot before = TestFixture::stats();
  T base = T::arange(0, 6, 1, ScalarType::Float);
  T view = base.narrow(0, 2, 3);
  EXPECT_TRUE(view.is_same_storage(base));
  free(base);
  EXPECT_THROW((void)base.numel(), LifetimeError);
  EXPECT_EQ(values_of(view), std::vector<double>({2, 3, 4}));
  EXPECT_EQ(TestFixture::stats().live_storages, before.live_storages + 1);
  free(view);
  EXPECT_EQ(TestFixture::stats().live_storages, before.live_storages);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
}

TYPED_TEST_P(ManualContractTest, FromBlobDeleterRunsOnceWhenTheLastReferenceIsFreed) {
  CUSTODY_MANUAL_PRELUDE;
  int deleted = 0;
  BackendBuffer<typename T::backend_type> data({1, 2, 3, 4});
  T blob = T::from_blob(data.data(), std::vector<int64_t>{4}, ScalarType::Float,
                        [&deleted](void*) { ++deleted; });
  T view = blob.narrow(0, 1, 2);
  manual::retain(view);
  free(blob);
  free(view);
  EXPECT_EQ(deleted, 0) << "view still has one count";
  EXPECT_EQ(values_of(view), std::vector<double>({2, 3}));
  free(view);
  EXPECT_EQ(deleted, 1);
  EXPECT_THROW(free(view), LifetimeError);
  EXPECT_EQ(deleted, 1) << "a free past zero frees nothing";
}

// ---- the golden rule in functions ----------------------------------------------------

TYPED_TEST_P(ManualContractTest, ANewStarFunctionReturnsPlusOneAndTheCallerFrees) {
  CUSTODY_MANUAL_PRELUDE;
  const StatsSnapshot before = TestFixture::stats();
  T x = T::from_vector(std::vector<float>{1, 1, 2});
  const int64_t live = manual::live_references();
  T y = new_normalized(x);
  EXPECT_EQ(manual::live_references(), live + 1) << "only the returned +1 is left; the callee freed its sum";
  EXPECT_EQ(mt::refcount(y), 1);
  EXPECT_EQ(values_of(y), std::vector<double>({0.25, 0.25, 0.5}));
  free(y);
  free(x);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
}

TYPED_TEST_P(ManualContractTest, AFunctionFreesOnEveryExitIncludingExceptions) {
  CUSTODY_MANUAL_PRELUDE;
  T sq = T::ones({2, 2});
  T wide = T::ones({2, 3});
  const int64_t live = manual::live_references();
  const StatsSnapshot before = TestFixture::stats();
  EXPECT_THROW((void)new_product_matmul(wide, wide), ShapeError) << "propagates unchanged";
  EXPECT_EQ(manual::live_references(), live);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
  T ok = new_product_matmul(sq, sq);
  EXPECT_EQ(values_of(ok), std::vector<double>({2, 2, 2, 2}));
  EXPECT_EQ(manual::live_references(), live + 1);
  free(ok);
  free(wide);
  free(sq);
}

TYPED_TEST_P(ManualContractTest, AFailingOpCreatesNoReferenceAndChangesNoCount) {
  CUSTODY_MANUAL_PRELUDE;
  T a = T::ones({2, 3});
  T gone = T::ones({2, 3});
  free(gone);
  const int64_t live = manual::live_references();
  const StatsSnapshot before = TestFixture::stats();
  for (int i = 0; i < 5; ++i) {
    EXPECT_THROW((void)a.matmul(a), ShapeError);
    EXPECT_THROW((void)a.view({7}), ShapeError);
    EXPECT_THROW((void)a.add(gone), LifetimeError);
    EXPECT_THROW((void)T::empty({int64_t{1} << 50}), OutOfMemoryError);
  }
  EXPECT_EQ(manual::live_references(), live);
  EXPECT_EQ(mt::refcount(a), 1);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
  free(a);
}

TYPED_TEST_P(ManualContractTest, PassingAHandleDoesNotPassTheReference) {
  CUSTODY_MANUAL_PRELUDE;
  const StatsSnapshot before = TestFixture::stats();
  Holder<T> holder;
  T t = T::full(std::vector<int64_t>{2}, 9.0f);
  holder.keep(t);  // the callee keeps it, so it retained it itself
  EXPECT_EQ(mt::refcount(t), 2);
  free(t);         // the caller still frees its own
  EXPECT_EQ(values_of(holder.kept), std::vector<double>({9, 9}));
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors + 1);
  holder.drop();
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
}

TYPED_TEST_P(ManualContractTest, HandingOverWithoutRetainMovesTheReference) {
  // TH's one exception to the golden rule: after a move, the old owner must NOT free.
  CUSTODY_MANUAL_PRELUDE;
  std::vector<T> owner;
  T a = T::ones({3});
  owner.push_back(a);  // moved: the owner frees it from now on
  EXPECT_EQ(mt::refcount(a), 1);
  free(owner.back());
  owner.pop_back();
  EXPECT_THROW(free(a), LifetimeError) << "freeing after the move is a free past zero";
}

// ---- threads -------------------------------------------------------------------------------

TYPED_TEST_P(ManualContractTest, AHandlePassedToAnotherThreadIsFreedThere) {
  CUSTODY_MANUAL_PRELUDE;
  const StatsSnapshot before = TestFixture::stats();
  T a = T::ones({32});
  std::thread th([a] {
    EXPECT_EQ(values_of(a), std::vector<double>(32, 1.0));
    free(a);
  });
  th.join();
  EXPECT_EQ(mt::refcount(a), 0) << "the thread's copy named the same reference";
  EXPECT_THROW((void)a.numel(), LifetimeError);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
}

TYPED_TEST_P(ManualContractTest, AReferenceMadeOnAWorkerIsFreedByTheCaller) {
  CUSTODY_MANUAL_PRELUDE;
  const StatsSnapshot before = TestFixture::stats();
  T made;
  std::thread th([&made] { made = T::arange(0, 4, 1, ScalarType::Float); });
  th.join();
  EXPECT_EQ(mt::refcount(made), 1);
  EXPECT_EQ(values_of(made), std::vector<double>({0, 1, 2, 3}));
  free(made);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
}

TYPED_TEST_P(ManualContractTest, TheTestIdiomFreesOnlyTheCallingThreadsReferences) {
  CUSTODY_MANUAL_PRELUDE;
  const uint64_t since = mt::next_serial();
  T mine = T::ones({2});
  T theirs;
  std::thread th([&theirs] { theirs = T::ones({3}); });
  th.join();
  mt::release_created_on_this_thread_since(since);
  EXPECT_EQ(mt::refcount(mine), 0);
  EXPECT_EQ(mt::refcount(theirs), 1) << "another thread's reference is its own business";
  free(theirs);
}

TYPED_TEST_P(ManualContractTest, ConcurrentRetainsAndFreesKeepTheCountExact) {
  CUSTODY_MANUAL_PRELUDE;
  T a = T::ones({8});
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&a, &bad] {
      for (int k = 0; k < 1000; ++k) {
        T r = manual::retain(a);
        if (r.numel() != 8) bad++;
        free(r);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(mt::refcount(a), 1);
  free(a);
}

TYPED_TEST_P(ManualContractTest, ConcurrentCreateAndFreeOnManyThreadsBalances) {
  CUSTODY_MANUAL_PRELUDE;
  const int64_t live = manual::live_references();
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([i, &bad] {
      for (int k = 0; k < 300; ++k) {
        T x = T::full(std::vector<int64_t>{4}, static_cast<float>(i));
        T y = x.mul(2.0f);
        T s = y.sum();
        if (s.template item<float>() != 8.0f * i) bad++;
        free(s);
        free(y);
        free(x);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(manual::live_references(), live);
}

TYPED_TEST_P(ManualContractTest, RacingFreesOfOneReferenceAreCountedExactly) {
  CUSTODY_MANUAL_PRELUDE;
  const StatsSnapshot before = TestFixture::stats();
  for (int round = 0; round < 20; ++round) {
    T a = T::ones({4});
    for (int i = 0; i < 2; ++i) manual::retain(a);  // three counts, four frees below
    std::atomic<bool> go{false};
    std::atomic<int> errors{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) {
      threads.emplace_back([a, &go, &errors] {
        while (!go.load()) {
        }
        try {
          free(a);
        } catch (const LifetimeError&) {
          ++errors;
        }
      });
    }
    go = true;
    for (auto& t : threads) t.join();
    EXPECT_EQ(errors.load(), 1) << "four frees of three counts: exactly one is past zero";
    EXPECT_EQ(mt::refcount(a), 0);
    EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors) << "round " << round;
  }
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
}

TYPED_TEST_P(ManualContractTest, ReferencesOfAnExitedThreadStayUsable) {
  CUSTODY_MANUAL_PRELUDE;
  const StatsSnapshot before = TestFixture::stats();
  const int64_t live = manual::live_references();
  std::vector<T> made;
  {
    sites::ScopedTracking on(true);
    // More than a chunk's worth, made on a thread that then exits.
    std::thread([&made] {
      for (int i = 0; i < 100; ++i) {
        made.push_back(T::full(std::vector<int64_t>{1}, static_cast<float>(i)));
      }
    }).join();
    EXPECT_EQ(manual::live_references(), live + 100);
    for (int i = 0; i < 100; i += 9) EXPECT_EQ(values_of(made[i]), std::vector<double>({1.0 * i}));
    for (const T& t : made) free(t);  // back to the registry of a thread that is gone
    const std::string m = lifetime_message([&] { free(made[7]); });
    const std::string id = std::to_string(made[7].reference_id());
    EXPECT_NE(m.find("free past zero on tensor reference #" + id), std::string::npos) << m;
    EXPECT_NE(m.find("freed earlier at"), std::string::npos) << "sites outlive the thread:\n" << m;
  }
  EXPECT_EQ(manual::live_references(), live);
  // A new thread takes over an orphaned registry; the old handles stay refused.
  std::thread([] {
    T t = T::ones({1});
    free(t);
  }).join();
  for (const T& t : made) EXPECT_THROW((void)t.numel(), LifetimeError);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
}

// ---- autograd (Note [Autograd under manual], policies/manual/manual.h) -------------

TYPED_TEST_P(ManualContractTest, FreeingEveryOutputFreesTheGraph) {
  using T = TypeParam;
  auto live = [] { return ConformanceTest<T>::stats().live_tensors; };
  T x = T::from_vector(std::vector<float>{1, 2, 3});
  x.requires_grad_();
  const int64_t live0 = live();
  T c = T::from_vector(std::vector<float>{4, 5, 6});
  T y = x.mul(c);
  T loss = y.sum();
  free(c);
  free(y);
  EXPECT_EQ(live(), live0 + 2) << "the loss, and c: a +1 of the graph's own";
  loss.backward();
  T g = x.grad();
  EXPECT_EQ(g.template to_vector<float>(), std::vector<float>({4, 5, 6}));
  free(g);
  free(loss);
  EXPECT_EQ(live(), live0 + 1) << "the graph went with the loss; x.grad stays";
  T e = x.exp();
  T s = e.sum();
  EXPECT_EQ(live(), live0 + 4) << "e, its saved data, s";
  free(e);
  free(s);
  EXPECT_EQ(live(), live0 + 1) << "the golden rule frees the graph without a backward";
  free(x);
  EXPECT_EQ(live(), live0 - 1) << "x and its gradient";
}

REGISTER_TYPED_TEST_SUITE_P(ManualContractTest,
                            HandlesArePlainValuesAndCopiesShareTheReference,
                            AHandleGoingOutOfScopeFreesNothing,
                            DefaultHandleRefersToNoTensorAndFreeingItIsANoOp,
                            EveryOpResultIsAPlusOneReference,
                            FreeReturnsTheBytesExactly,
                            OperatorsReturnPlusOneReferences,
                            RetainAddsOneAndReturnsTheSameReference,
                            RetainFreePairsBalanceAtAnyDepth,
                            RetainOfAFreedReferenceCannotResurrectIt,
                            NewContiguousOfAContiguousTensorIsItRetained,
                            NewContiguousOfANonContiguousTensorIsAFreshCopy,
                            TheKernelIdiomFreesUnconditionallyOnBothBranches,
                            FreePastZeroIsALifetimeErrorWithATrackingHint,
                            FreePastZeroNamesTheCreationSiteAndTheEarlierFree,
                            ReleaseIsAFreeAndAReleasePastZeroThrows,
                            UseAfterFreeIsALifetimeErrorNamingTheOp,
                            UseAfterFreeShowsWhereItWasCreatedAndFreed,
                            EveryUseOfAFreedReferenceThrowsAndCreatesNothing,
                            CopiesOfAFreedHandleAreAllStale,
                            AStaleHandleIsRefusedEvenAfterItsSlotIsReused,
                            TheLedgerStaysFlatUnderCreateFreeChurn,
                            LeakReportListsAnUnfreedReferenceUntilItIsFreed,
                            LeakReportShowsOutstandingRetainsWithTheirSites,
                            LeakReportStringHintsAtSiteTrackingWhenOff,
                            AForgottenFreeOnAnEarlyExitShowsInTheLeakReport,
                            ChainedTemporariesAreUnfreedReferencesTheIdiomCollects,
                            InPlaceOpsReturnPlusOneReferencesToTheSameTensor,
                            AliasIsASeparateReferenceSoFreeingTheWrongHandleIsCaught,
                            ViewsKeepTheStorageAliveAfterTheBaseIsFreed,
                            FromBlobDeleterRunsOnceWhenTheLastReferenceIsFreed,
                            ANewStarFunctionReturnsPlusOneAndTheCallerFrees,
                            AFunctionFreesOnEveryExitIncludingExceptions,
                            AFailingOpCreatesNoReferenceAndChangesNoCount,
                            PassingAHandleDoesNotPassTheReference,
                            HandingOverWithoutRetainMovesTheReference,
                            AHandlePassedToAnotherThreadIsFreedThere,
                            AReferenceMadeOnAWorkerIsFreedByTheCaller,
                            TheTestIdiomFreesOnlyTheCallingThreadsReferences,
                            ConcurrentRetainsAndFreesKeepTheCountExact,
                            ConcurrentCreateAndFreeOnManyThreadsBalances,
                            RacingFreesOfOneReferenceAreCountedExactly,
                            ReferencesOfAnExitedThreadStayUsable,
    FreeingEveryOutputFreesTheGraph);

#undef CUSTODY_MANUAL_PRELUDE

}  // namespace custody::testing

#endif  // CUSTODY_POLICIES_MANUAL_CONTRACT_SUITE_H_
