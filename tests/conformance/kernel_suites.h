// Copyright 2026 The custody Authors.
//
// tests/conformance/kernel_suites.h — the kernel axis of the conformance suite:
// what a backend computes (creation, numerics against the oracle, the unsigned
// dtypes, the bad and edge inputs of the catalogue). A property of the backend alone, so the matrix runs these once per
// backend (kernels_<backend>), under one policy, not once per policy
// (tools/build_defs/matrix.bzl; docs/design.md §8).

#ifndef CUSTODY_TESTS_CONFORMANCE_KERNEL_SUITES_H_
#define CUSTODY_TESTS_CONFORMANCE_KERNEL_SUITES_H_

#include "tests/conformance/catalogue_suite.h"
#include "tests/conformance/creation_suite.h"
#include "tests/conformance/numerics_suite.h"
#include "tests/conformance/unsigned_suite.h"

// Inside namespace custody::testing, where the suites are.
#define CUSTODY_INSTANTIATE_KERNEL_SUITES(Types)                    \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, CreationTest, Types); \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, NumericsTest, Types); \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, UnsignedTest, Types);  \
  INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, CatalogueTest, Types)

#endif  // CUSTODY_TESTS_CONFORMANCE_KERNEL_SUITES_H_
