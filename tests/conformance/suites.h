// Copyright 2026 The custody Authors.
//
// tests/conformance/suites.h — every generic conformance suite, and the macro
// that instantiates them all for one combination (used by instantiate.cc).

#ifndef CUSTODY_TESTS_CONFORMANCE_SUITES_H_
#define CUSTODY_TESTS_CONFORMANCE_SUITES_H_

#include "tests/conformance/catalogue_suite.h"
#include "tests/conformance/creation_suite.h"
#include "tests/conformance/errors_suite.h"
#include "tests/conformance/lifetime_suite.h"
#include "tests/conformance/nn_suite.h"
#include "tests/conformance/numerics_suite.h"
#include "tests/conformance/threads_suite.h"
#include "tests/conformance/unsigned_suite.h"
#include "tests/conformance/views_suite.h"

#define CUSTODY_INSTANTIATE_GENERIC_SUITES(Types)                       \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, CreationTest, Types);     \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, ViewsTest, Types);        \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, NumericsTest, Types);     \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, LifetimeTest, Types);     \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, ErrorsTest, Types);       \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, ThreadsTest, Types);     \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, NnTest, Types);         \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, CatalogueTest, Types);   \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, UnsignedTest, Types)

#endif  // CUSTODY_TESTS_CONFORMANCE_SUITES_H_
