// Copyright 2026 The custody Authors.
//
// tests/conformance/oracle_dispatch.h — `dispatch<Engine>(op, inputs, args)`:
// the oracle's op names (oracle.h), how many inputs each takes and which
// OracleArgs it reads, written once for both oracles; the Engine computes:
// libtorch in oracle.cc, custody's onednn backend in oracle_onednn.cc.
//
//   struct Engine {
//     using Tensor = ...;
//     static Tensor to_tensor(const HostTensor&);
//     static bool is_binary(const std::string& op);   // add, sub, ..., ge
//     static Tensor binary(const std::string& op, const Tensor& a, const Tensor& b);
//     static Tensor binary_scalar(const std::string& op, const Tensor& a, const OracleArgs& args);
//     static Tensor in_place(const std::string& op, const Tensor& self, const Tensor& other);
//     static Tensor in_place_scalar(const std::string& op, const Tensor& self, const OracleArgs& args);
//     static bool is_unary(const std::string& op);    // neg, abs, ..., cos
//     static Tensor unary(const std::string& op, const Tensor& a);
//     static Tensor reduce(const std::string& op, const Tensor& x, const OracleArgs& args);  // sum mean max min
//     static Tensor arg_reduce(bool max, const Tensor& x, std::optional<int64_t> dim, bool keepdim);
//     static Tensor softmax(const Tensor& x, int64_t dim, bool log);
//     static Tensor matmul(const Tensor& a, const Tensor& b);
//     static Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
//     static Tensor embedding(const Tensor& weight, const Tensor& indices);
//     static Tensor cat(const std::vector<Tensor>& in, int64_t dim);
//     static Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
//     static Tensor to(const Tensor& x, ScalarType dtype);
//   };

#ifndef CUSTODY_TESTS_CONFORMANCE_ORACLE_DISPATCH_H_
#define CUSTODY_TESTS_CONFORMANCE_ORACLE_DISPATCH_H_

#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/conformance/oracle.h"

namespace custody::testing {

inline void need_count(const std::string& op, size_t have, size_t n) {
  if (have != n) {
    std::ostringstream os;
    os << "oracle(" << op << "): expected " << n << " inputs, got " << have;
    throw std::runtime_error(os.str());
  }
}
inline void need_inputs(const std::string& op, const std::vector<HostTensor>& in, size_t n) {
  need_count(op, in.size(), n);
}

// Runs `op` on tensors already made (oracle_grad marks them as requiring grad first).
template <class E>
typename E::Tensor dispatch_tensors(const std::string& op, const std::vector<typename E::Tensor>& in,
                                    const OracleArgs& args) {
  const auto need = [&](size_t n) { need_count(op, in.size(), n); };

  if (E::is_binary(op)) {
    if (args.scalar) {  // tensor-scalar, or scalar-tensor with args.scalar_first
      need(1);
      return E::binary_scalar(op, in[0], args);
    }
    need(2);
    return E::binary(op, in[0], in[1]);
  }
  if (op == "add_" || op == "sub_" || op == "mul_" || op == "div_") {
    if (args.scalar) {
      need(1);
      return E::in_place_scalar(op, in[0], args);
    }
    need(2);
    return E::in_place(op, in[0], in[1]);
  }
  if (E::is_unary(op)) {
    need(1);
    return E::unary(op, in[0]);
  }
  if (op == "sum" || op == "mean" || op == "max" || op == "min") {
    // Empty dims: the full reduction (torch's sum(x), max(x), ...), with keepdim
    // every dim kept as 1. Several dims of max/min: torch's amax/amin (values only).
    need(1);
    return E::reduce(op, in[0], args);
  }
  if (op == "argmax" || op == "argmin") {
    need(1);
    std::optional<int64_t> dim;
    if (!args.dims.empty()) dim = args.dims[0];  // empty: over the flattened tensor
    return E::arg_reduce(op == "argmax", in[0], dim, args.keepdim);
  }
  if (op == "softmax" || op == "log_softmax") {
    need(1);
    return E::softmax(in[0], args.dim, /*log=*/op == "log_softmax");
  }
  if (op == "matmul") {
    need(2);
    return E::matmul(in[0], in[1]);
  }
  if (op == "index_select") {
    need(2);
    return E::index_select(in[0], args.dim, in[1]);
  }
  if (op == "embedding") {
    need(2);
    return E::embedding(in[0], in[1]);
  }
  if (op == "cat") return E::cat(in, args.dim);
  if (op == "where") {
    need(3);
    return E::where(in[0], in[1], in[2]);
  }
  if (op == "to") {
    need(1);
    return E::to(in[0], args.dtype);
  }
  throw std::runtime_error("oracle: unknown op '" + op + "'");
}

template <class E>
typename E::Tensor dispatch(const std::string& op, const std::vector<HostTensor>& inputs,
                            const OracleArgs& args) {
  std::vector<typename E::Tensor> in;
  in.reserve(inputs.size());
  for (const HostTensor& h : inputs) in.push_back(E::to_tensor(h));
  return dispatch_tensors<E>(op, in, args);
}

}  // namespace custody::testing

#endif  // CUSTODY_TESTS_CONFORMANCE_ORACLE_DISPATCH_H_
