// Copyright 2026 The custody Authors.
//
// policies/tensor_ptr/testing.h — the tensor_ptr policy's test idiom, `PolicyIdiom<tensor_ptr::Policy>`
// (core/policy_idiom.h): what surrounds every test body of this
// policy, in the conformance matrix and in any other test.

#ifndef CUSTODY_POLICIES_TENSOR_PTR_TESTING_H_
#define CUSTODY_POLICIES_TENSOR_PTR_TESTING_H_

#include "policies/tensor_ptr/tensor_ptr.h"
#include "core/policy_idiom.h"

namespace custody {

// Nothing around the body: handles give their references back as they go.
template <>
struct PolicyIdiom<tensor_ptr::Policy> : DefaultPolicyIdiom {};

}  // namespace custody

#endif  // CUSTODY_POLICIES_TENSOR_PTR_TESTING_H_
