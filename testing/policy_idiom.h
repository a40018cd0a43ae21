// Copyright 2026 The custody Authors.
//
// testing/policy_idiom.h — `PolicyIdiom<Policy>`, a policy's per-test
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

#ifndef CUSTODY_TESTING_POLICY_IDIOM_H_
#define CUSTODY_TESTING_POLICY_IDIOM_H_

#include <cstdint>

namespace custody::testing {

template <class Policy>
struct PolicyIdiom;

// The Guard of a policy that tracks who created what (dispose, gc, manual):
// gives back, at the end of the test, every reference this thread created
// during it, through the two functions each such policy's `testing` namespace
// offers under the same names.
template <uint64_t (*NextSerial)(), void (*ReleaseSince)(uint64_t)>
struct ReleaseCreatedSince {
  uint64_t since = NextSerial();
  ~ReleaseCreatedSince() { ReleaseSince(since); }
};

}  // namespace custody::testing

#endif  // CUSTODY_TESTING_POLICY_IDIOM_H_
