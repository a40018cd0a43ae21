// Copyright 2026 The custody Authors.
//
// tests/conformance/oracle_onednn.h — custody's own oneDNN CPU backend as the
// numerical oracle, for test binaries that must not link libtorch (the cuda
// backend's conformance binaries, carried to a GPU machine without Debian's
// libraries). The reference is then custody itself, on the backend whose
// numerics the libtorch oracle checks in every CPU matrix binary; that the two
// oracles agree is //tests/conformance:oracle_onednn_test.
//
// Same ops, arguments, result dtypes and error convention as oracle() and
// oracle_nn() (oracle.h): every input becomes a
// BasicTensor<tensor_ptr::Policy, Onednn> of its dtype, the op runs through
// custody's own ops (which follow torch's promotion rules), and a custody::Error
// comes back as std::runtime_error naming the op. "mlp_grads" computes the
// gradients by hand (forward, mean softmax cross-entropy, backward) in the
// inputs' dtype, in the order torch's autograd does.
//
// Differences from libtorch, by design: float16/bfloat16 are storage-only in
// custody, so ops on them other than "to" are rejected (torch computes them).
//
// //tests/conformance:oracle_onednn defines oracle()/oracle_nn() as these
// (oracle_onednn_main.cc); :oracle_onednn_impl has only these, so a binary can
// link it next to the libtorch oracle and compare them.

#ifndef CUSTODY_TESTS_CONFORMANCE_ORACLE_ONEDNN_H_
#define CUSTODY_TESTS_CONFORMANCE_ORACLE_ONEDNN_H_

#include <string>
#include <vector>

#include "tests/conformance/oracle.h"

namespace custody::testing {

// oracle(op, inputs, args) on custody's oneDNN backend.
HostTensor onednn_oracle(const std::string& op, const std::vector<HostTensor>& inputs,
                         const OracleArgs& args = {});

// oracle_grad(op, inputs, grad_output, args) by custody's autograd on its oneDNN backend.
std::vector<HostTensor> onednn_oracle_grad(const std::string& op, const std::vector<HostTensor>& inputs,
                                           const HostTensor& grad_output, const OracleArgs& args = {});

// oracle_nn(op, inputs, args) on custody's oneDNN backend.
std::vector<HostTensor> onednn_oracle_nn(const std::string& op,
                                         const std::vector<HostTensor>& inputs,
                                         const OracleArgs& args = {});

}  // namespace custody::testing

#endif  // CUSTODY_TESTS_CONFORMANCE_ORACLE_ONEDNN_H_
