// Copyright 2026 The custody Authors.
//
// tests/conformance/oracle_onednn_main.cc — oracle() and oracle_nn() of
// oracle.h as custody's oneDNN backend (oracle_onednn.h), for binaries that
// link //tests/conformance:oracle_onednn instead of the libtorch oracle.

#include "tests/conformance/oracle.h"
#include "tests/conformance/oracle_onednn.h"

namespace custody::testing {

HostTensor oracle(const std::string& op, const std::vector<HostTensor>& inputs,
                  const OracleArgs& args) {
  return onednn_oracle(op, inputs, args);
}

std::vector<HostTensor> oracle_grad(const std::string& op, const std::vector<HostTensor>& inputs,
                                    const HostTensor& grad_output, const OracleArgs& args) {
  return onednn_oracle_grad(op, inputs, grad_output, args);
}

std::vector<HostTensor> oracle_nn(const std::string& op, const std::vector<HostTensor>& inputs,
                                  const OracleArgs& args) {
  return onednn_oracle_nn(op, inputs, args);
}

}  // namespace custody::testing
