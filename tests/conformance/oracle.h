// Copyright 2026 The custody Authors.
//
// tests/conformance/oracle.h — libtorch as the independent numerical oracle of
// the conformance suite (docs/design.md §8: "numerics are checked against libtorch on
// the same inputs, for every op and dtype, with stated tolerances").
//
// Tensors cross the boundary as `HostTensor`s: a dtype, sizes and the values in
// row-major order as doubles (exact for every dtype custody computes in, for
// integers up to 2^53). This header includes no torch header: only oracle.cc
// does, so the typed suites never compile ATen.
//
// Two implementations of oracle() and oracle_nn(); each test binary links one
// (tools/build_defs/matrix.bzl picks it per backend), the suites and
// numerics_harness depend on this header alone (//tests/conformance:oracle_api):
//   :oracle         libtorch (oracle.cc), the default.
//   :oracle_onednn  custody's own oneDNN CPU backend (oracle_onednn.cc), for
//                   binaries that must not link libtorch (the cuda backend's);
//                   itself checked against libtorch by :oracle_onednn_test.
//
//   HostTensor a = host_of(x), b = host_of(y);          // x, y: any custody handle
//   EXPECT_TRUE(Close(host_of(x.add(y)), oracle("add", {a, b}), 1e-5, 1e-6));
//
// `oracle(op, inputs, args)` builds at::Tensors of the inputs' dtypes, runs the op
// under torch's own semantics (type promotion, result dtypes, broadcasting) and
// returns its result. Ops and their arguments:
//
//   binary    add sub mul div maximum minimum pow eq ne lt le gt ge
//             two inputs, or one input and `args.scalar` (a torch Scalar of the
//             kind named by scalar_is_integral / scalar_is_bool, so torch's
//             tensor-scalar promotion applies; `scalar_first` computes `s op t`).
//   in-place  add_ sub_ mul_ div_        as binary; returns the mutated input 0.
//   unary     neg abs exp log sqrt rsqrt tanh sigmoid relu gelu silu sin cos
//   reduce    sum mean max min           over `args.dims` (empty = all dims;
//             max/min over several dims is torch's amax/amin), `args.keepdim`.
//             argmax argmin              over args.dims[0], or flattened if empty.
//   softmax log_softmax                  along `args.dim`.
//   matmul                               two inputs.
//   index_select                         input 0 along `args.dim` by index input 1.
//   embedding                            weight (input 0), indices (input 1).
//   cat                                  all inputs along `args.dim`.
//   where                                cond, a, b.
//   to                                   input 0 converted to `args.dtype`.
//
// Errors raised by torch (by custody, under :oracle_onednn) come back as
// std::runtime_error naming the op.

#ifndef CUSTODY_TESTS_CONFORMANCE_ORACLE_H_
#define CUSTODY_TESTS_CONFORMANCE_ORACLE_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "core/dtype.h"
#include "gtest/gtest.h"

namespace custody::testing {

// A tensor's dtype, sizes and row-major values, independent of any backend.
struct HostTensor {
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> sizes;
  std::vector<double> values;

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
};

std::ostream& operator<<(std::ostream& os, const HostTensor& t);

// The logical values of any custody handle (views are read in row-major order
// of their own sizes; backend memory is read only through to_vector, so device
// backends work). float16/bfloat16 values are read through a float32 copy.
// (Same reading as harness.h's values_of, kept here so this header stands alone.)
template <class T>
HostTensor host_of(const T& t) {
  HostTensor h;
  h.dtype = t.scalar_type();
  for (int64_t s : t.sizes()) h.sizes.push_back(s);
  if (h.dtype == ScalarType::Bool) {
    const std::vector<bool> v = t.template to_vector<bool>();
    h.values.assign(v.begin(), v.end());
  } else if (is_storage_only(h.dtype)) {
    const std::vector<float> v = t.to(ScalarType::Float).template to_vector<float>();
    h.values.assign(v.begin(), v.end());
  } else {
    visit_compute_dtype(h.dtype, [&](auto tag) {
      using E = typename decltype(tag)::type;
      if constexpr (!std::is_same_v<E, bool>) {
        const std::vector<E> v = t.template to_vector<E>();
        h.values.assign(v.begin(), v.end());
      }
    });
  }
  return h;
}

struct OracleArgs {
  std::vector<int64_t> dims;  // reductions: dims to reduce (empty = all)
  bool keepdim = false;
  int64_t dim = 0;            // softmax, log_softmax, cat, index_select
  std::optional<double> scalar;  // tensor-scalar forms
  bool scalar_is_integral = false;
  bool scalar_is_bool = false;
  bool scalar_first = false;
  ScalarType dtype = ScalarType::Float;  // to
};

// Runs `op` in libtorch on `inputs`; throws std::runtime_error on torch errors.
HostTensor oracle(const std::string& op, const std::vector<HostTensor>& inputs,
                  const OracleArgs& args = {});

// Model pieces in libtorch, for the core/nn suite (float32 inputs):
//   "linear"     x, weight [out, in] (, bias)   -> {x @ weight.t() + bias}
//   "rms_norm"   x, weight, args.scalar = eps   -> {x * rsqrt(mean(x², -1) + eps) * weight}
//   "cross_entropy" logits [N, C], y (one-hot)  -> {loss, d loss / d logits}: the mean
//                softmax cross-entropy -(y * log_softmax(logits, 1)).sum() / N
//   "mlp_grads"  x, y (one-hot), w1, b1, w2, b2 -> {loss, dw1, db1, dw2, db2}: the mean
//                softmax cross-entropy of linear(relu(linear(x, w1, b1)), w2, b2)
//                against y and its gradients, by torch's autograd.
std::vector<HostTensor> oracle_nn(const std::string& op, const std::vector<HostTensor>& inputs,
                                  const OracleArgs& args = {});

// The gradient of sum(op(inputs) * grad_output) with respect to each input, by
// libtorch's autograd (the op and args as oracle()): one HostTensor per input,
// of the input's dtype and sizes, with no values for an input that is not of a
// floating dtype or that no gradient reached.
std::vector<HostTensor> oracle_grad(const std::string& op, const std::vector<HostTensor>& inputs,
                                    const HostTensor& grad_output, const OracleArgs& args = {});
// True when `ours` has ref's dtype and sizes and every value is within
// atol + rtol * |ref| (NaN matches NaN, an infinity matches the same infinity).
// The failure message lists the first mismatches with their row-major index.
::testing::AssertionResult Close(const HostTensor& ours, const HostTensor& ref, double rtol,
                                 double atol);

}  // namespace custody::testing

#endif  // CUSTODY_TESTS_CONFORMANCE_ORACLE_H_
