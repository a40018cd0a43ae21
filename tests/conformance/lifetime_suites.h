// Copyright 2026 The custody Authors.
//
// tests/conformance/lifetime_suites.h — the lifetime axis of the conformance
// suite: what a policy does with a backend's tensors (views sharing storage,
// the generic contract G1-G9, errors and lifetime misuse, threads, core/nn,
// the lifetime half of the catalogue, autograd). Run for every (policy, backend) combination
// (conformance_<policy>_<backend>, with the policy's own contract suite).

#ifndef CUSTODY_TESTS_CONFORMANCE_LIFETIME_SUITES_H_
#define CUSTODY_TESTS_CONFORMANCE_LIFETIME_SUITES_H_

#include "tests/conformance/autograd_suite.h"
#include "tests/conformance/errors_suite.h"
#include "tests/conformance/lifetime_catalogue_suite.h"
#include "tests/conformance/lifetime_suite.h"
#include "tests/conformance/nn_suite.h"
#include "tests/conformance/threads_suite.h"
#include "tests/conformance/views_suite.h"

// Inside namespace custody::testing, where the suites are.
#define CUSTODY_INSTANTIATE_LIFETIME_SUITES(Types)                  \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, ViewsTest, Types);    \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, LifetimeTest, Types); \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, ErrorsTest, Types);   \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, ThreadsTest, Types);  \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, NnTest, Types);       \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, LifetimeCatalogueTest, Types); \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, AutogradTest, Types)

#endif  // CUSTODY_TESTS_CONFORMANCE_LIFETIME_SUITES_H_
