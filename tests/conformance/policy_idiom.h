// Copyright 2026 The custody Authors.
//
// tests/conformance/policy_idiom.h — `PolicyIdiom<Policy>`, a policy's per-test
// idiom, declared here and defined by each policy in its own
// `policies/<name>/testing.h` (a testonly library every test of that policy
// depends on, the conformance matrix included). There is no default: a test
// that forgets the policy's testing.h does not compile, instead of silently
// running without the policy's idiom.
//
//   template <>
//   struct PolicyIdiom<my::Policy> {
//     struct Guard { ... };      // RAII around every test body (a dispose scope, a cleanup)
//     static void settle() {}    // after Guard: let the policy give back what it holds (a collection)
//   };

#ifndef CUSTODY_TESTS_CONFORMANCE_POLICY_IDIOM_H_
#define CUSTODY_TESTS_CONFORMANCE_POLICY_IDIOM_H_

namespace custody::testing {

template <class Policy>
struct PolicyIdiom;

}  // namespace custody::testing

#endif  // CUSTODY_TESTS_CONFORMANCE_POLICY_IDIOM_H_
