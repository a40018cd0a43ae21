// Copyright 2026 The custody Authors.
//
// tests/conformance/oracle_onednn.cc — the oracle of oracle.h on custody's own
// oneDNN CPU backend (see oracle_onednn.h). No torch header, no libtorch: every
// op is custody's, on BasicTensor<tensor_ptr::Policy, Onednn>.

#include "tests/conformance/oracle_onednn.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include "backends/onednn/onednn.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/scalar.h"
#include "core/tensor.h"
#include "policies/tensor_ptr/tensor_ptr.h"
#include "tests/conformance/oracle_dispatch.h"

namespace custody::testing {
namespace {

using Ref = BasicTensor<tensor_ptr::Policy, Onednn>;
using RefOps = internal::Ops<Onednn>;
using Grad = autograd::internal::Functions<Ref>;

// A custody tensor holding `h`'s values (contiguous, row-major, of h.dtype).
Ref to_tensor(const HostTensor& h) {
  if (static_cast<int64_t>(h.values.size()) != h.numel()) {
    std::ostringstream os;
    os << "oracle: HostTensor has " << h.values.size() << " values for shape of " << h.numel()
       << " elements";
    throw std::runtime_error(os.str());
  }
  const IntSpan sizes(h.sizes.data(), h.sizes.size());
  switch (h.dtype) {
    case ScalarType::Bool: {
      std::vector<bool> v(h.values.size());
      for (size_t i = 0; i < v.size(); ++i) v[i] = h.values[i] != 0;
      return Ref::from_vector(v, sizes);
    }
    // Through float, as torch's double -> half conversion goes (c10::Half takes a float).
    case ScalarType::Half: {
      std::vector<Half> v;
      v.reserve(h.values.size());
      for (double x : h.values) v.push_back(Half(static_cast<float>(x)));
      return Ref::from_vector(v, sizes);
    }
    case ScalarType::BFloat16: {
      std::vector<BFloat16> v;
      v.reserve(h.values.size());
      for (double x : h.values) v.push_back(BFloat16(static_cast<float>(x)));
      return Ref::from_vector(v, sizes);
    }
    default:
      return visit_compute_dtype(h.dtype, [&](auto tag) -> Ref {
        using E = typename decltype(tag)::type;
        if constexpr (std::is_same_v<E, bool>) {
          throw std::runtime_error("oracle: not reached");
        } else {
          std::vector<E> v;
          v.reserve(h.values.size());
          for (double x : h.values) {
            // Integral values are exact in double; through int64 so that a value
            // outside the dtype's range wraps as an integer conversion does.
            if constexpr (std::is_integral_v<E>) {
              v.push_back(static_cast<E>(static_cast<int64_t>(x)));
            } else {
              v.push_back(static_cast<E>(x));
            }
          }
          return Ref::from_vector(v, sizes);
        }
      });
  }
}

// args.scalar as a custody Scalar of the kind the flags name (torch's Scalar kinds).
Scalar scalar_of(const OracleArgs& a) {
  if (!a.scalar) throw std::runtime_error("oracle: op needs args.scalar");
  if (a.scalar_is_bool) return Scalar(*a.scalar != 0.0);
  if (a.scalar_is_integral) return Scalar(static_cast<int64_t>(*a.scalar));
  return Scalar(*a.scalar);
}

const std::map<std::string, BinaryOp>& binaries() {
  static const auto* m = new std::map<std::string, BinaryOp>{
      {"add", BinaryOp::kAdd},         {"sub", BinaryOp::kSub},         {"mul", BinaryOp::kMul},
      {"div", BinaryOp::kDiv},         {"maximum", BinaryOp::kMaximum}, {"minimum", BinaryOp::kMinimum},
      {"pow", BinaryOp::kPow},         {"eq", BinaryOp::kEq},           {"ne", BinaryOp::kNe},
      {"lt", BinaryOp::kLt},           {"le", BinaryOp::kLe},           {"gt", BinaryOp::kGt},
      {"ge", BinaryOp::kGe},
  };
  return *m;
}

using Unary = std::function<Ref(const Ref&)>;

const std::map<std::string, Unary>& unaries() {
  static const auto* m = new std::map<std::string, Unary>{
      {"neg", [](const Ref& a) { return a.neg(); }},
      {"abs", [](const Ref& a) { return a.abs(); }},
      {"exp", [](const Ref& a) { return a.exp(); }},
      {"log", [](const Ref& a) { return a.log(); }},
      {"sqrt", [](const Ref& a) { return a.sqrt(); }},
      {"rsqrt", [](const Ref& a) { return a.rsqrt(); }},
      {"tanh", [](const Ref& a) { return a.tanh(); }},
      {"sigmoid", [](const Ref& a) { return a.sigmoid(); }},
      {"relu", [](const Ref& a) { return a.relu(); }},
      {"gelu", [](const Ref& a) { return a.gelu(); }},  // exact (erf) form, as torch's default
      {"silu", [](const Ref& a) { return a.silu(); }},
      {"sin", [](const Ref& a) { return a.sin(); }},
      {"cos", [](const Ref& a) { return a.cos(); }},
  };
  return *m;
}

// What dispatch() (oracle_dispatch.h) runs each op with: custody's op layer on onednn.
struct OnednnEngine {
  using Tensor = Ref;
  static Ref to_tensor(const HostTensor& h) { return testing::to_tensor(h); }
  static bool is_binary(const std::string& op) { return binaries().count(op) != 0; }
  // The op layer directly, recording for oracle_grad as the tensor's own ops do.
  static Ref binary(const std::string& op, const Ref& a, const Ref& b) {
    const BinaryOp code = binaries().at(op);
    Ref out = Ref::adopt(RefOps::binary(code, a.impl(), b.impl()));
    if (autograd::internal::wants_grad(a.impl(), b.impl())) Grad::binary(code, a.impl(), b.impl(), out.impl());
    return out;
  }
  // The op layer's tensor-scalar form, which has every op scalar-first too
  // (what `s - t` and `s / t` call): torch's promotion with a wrapped number,
  // and pow(tensor, scalar)'s check of integral exponents.
  static Ref binary_scalar(const std::string& op, const Ref& a, const OracleArgs& args) {
    const BinaryOp code = binaries().at(op);
    const Scalar s = scalar_of(args);
    Ref out = Ref::adopt(RefOps::binary(code, a.impl(), s, args.scalar_first));
    if (autograd::internal::wants_grad(a.impl())) {
      Grad::binary_scalar(code, a.impl(), s, args.scalar_first, out.impl());
    }
    return out;
  }
  template <class Other>
  static Ref in_place(const std::string& op, const Ref& self, const Other& other) {
    if (op == "add_") self.add_(other);
    if (op == "sub_") self.sub_(other);
    if (op == "mul_") self.mul_(other);
    if (op == "div_") self.div_(other);
    return self;
  }
  static Ref in_place_scalar(const std::string& op, const Ref& self, const OracleArgs& args) {
    return in_place(op, self, scalar_of(args));
  }
  static bool is_unary(const std::string& op) { return unaries().count(op) != 0; }
  static Ref unary(const std::string& op, const Ref& a) { return unaries().at(op)(a); }
  // custody's max(dims) is torch's amax (values only, as max(x, dim)); empty dims with
  // keepdim keep every dim as 1, as the libtorch oracle reshapes it.
  static Ref reduce(const std::string& op, const Ref& x, const OracleArgs& args) {
    const ReduceOp code = op == "sum"    ? ReduceOp::kSum
                          : op == "mean" ? ReduceOp::kMean
                          : op == "max"  ? ReduceOp::kMax
                                         : ReduceOp::kMin;
    const IntSpan dims(args.dims.data(), args.dims.size());
    Ref out = Ref::adopt(RefOps::reduce(code, x.impl(), dims, args.keepdim));
    if (autograd::internal::wants_grad(x.impl())) Grad::reduce(code, x.impl(), dims, args.keepdim, out.impl());
    return out;
  }
  static Ref arg_reduce(bool max, const Ref& x, std::optional<int64_t> dim, bool keepdim) {
    return max ? x.argmax(dim, keepdim) : x.argmin(dim, keepdim);
  }
  static Ref softmax(const Ref& x, int64_t dim, bool log) {
    return log ? x.log_softmax(dim) : x.softmax(dim);
  }
  static Ref matmul(const Ref& a, const Ref& b) { return a.matmul(b); }
  static Ref index_select(const Ref& x, int64_t dim, const Ref& index) { return x.index_select(dim, index); }
  static Ref embedding(const Ref& w, const Ref& i) { return custody::embedding(w, i); }
  static Ref cat(const std::vector<Ref>& in, int64_t dim) { return custody::cat(in, dim); }
  static Ref where(const Ref& c, const Ref& a, const Ref& b) { return custody::where(c, a, b); }
  static Ref to(const Ref& x, ScalarType dtype) { return x.to(dtype); }
};

// y = x @ weight.t() (+ bias).
Ref linear(const Ref& x, const Ref& weight, const std::optional<Ref>& bias) {
  Ref y = x.matmul(weight.t());
  if (bias) y = y.add(*bias);
  return y;
}

// The mean softmax cross-entropy of linear(relu(linear(x, w1, b1)), w2, b2)
// against y, and its gradients, in the order torch's autograd computes them for
// oracle.cc's expression -(y * log_softmax(logits, 1)).sum() / N.
std::vector<Ref> mlp_grads(const Ref& x, const Ref& y, const Ref& w1, const Ref& b1, const Ref& w2,
                           const Ref& b2) {
  const int64_t n = x.size(0);
  // Forward.
  const Ref h = linear(x, w1, b1).relu();
  const Ref logits = linear(h, w2, b2);
  const Ref ls = logits.log_softmax(1);
  const Ref loss = y.mul(ls).sum().neg().div(n);
  // Backward. d loss / d (sum) = -(1 / N), computed in the loss's dtype
  // (div's backward, then neg's); mul's: times y; log_softmax's:
  // g - exp(ls) * g.sum(1, keepdim).
  const Ref g_sum = loss.ones_like().div(n).neg();
  const Ref g_ls = y.mul(g_sum);
  const Ref g_logits = g_ls.sub(ls.exp().mul(g_ls.sum(1, /*keepdim=*/true)));
  // logits = h @ w2.t() + b2: the bias's gradient sums the batch; mm's
  // gradients are grad @ w2 (for h) and (h.t() @ grad).t() (for w2 through t()).
  const Ref db2 = g_logits.sum(0);
  const Ref dw2 = h.t().matmul(g_logits).t();
  const Ref dh = g_logits.matmul(w2);
  // relu's backward (threshold_backward on its result): the gradient where h > 0, else 0.
  const Ref dpre = custody::where(h.gt(0), dh, Ref::zeros(IntSpan(), dh.scalar_type()));
  const Ref db1 = dpre.sum(0);
  const Ref dw1 = x.t().matmul(dpre).t();
  return {loss, dw1, db1, dw2, db2};
}

}  // namespace

HostTensor onednn_oracle(const std::string& op, const std::vector<HostTensor>& inputs,
                         const OracleArgs& args) {
  try {
    return host_of(dispatch<OnednnEngine>(op, inputs, args));
  } catch (const Error& e) {
    throw std::runtime_error("oracle(" + op + "): custody (onednn) raised: " + e.what());
  }
}

std::vector<HostTensor> onednn_oracle_grad(const std::string& op, const std::vector<HostTensor>& inputs,
                                           const HostTensor& grad_output, const OracleArgs& args) {
  try {
    std::vector<Ref> in;
    for (const HostTensor& h : inputs) {
      Ref t = to_tensor(h);
      if (is_floating_point(t.scalar_type())) t.requires_grad_();
      in.push_back(t);
    }
    const Ref y = dispatch_tensors<OnednnEngine>(op, in, args);
    y.backward(to_tensor(grad_output));
    std::vector<HostTensor> out;
    for (size_t i = 0; i < in.size(); ++i) {
      const Ref g = in[i].grad();
      if (g.defined()) {
        out.push_back(host_of(g));
      } else {
        out.push_back(HostTensor{inputs[i].dtype, inputs[i].sizes, {}});
      }
    }
    return out;
  } catch (const Error& e) {
    throw std::runtime_error("oracle_grad(" + op + "): custody (onednn) raised: " + e.what());
  }
}

std::vector<HostTensor> onednn_oracle_nn(const std::string& op,
                                         const std::vector<HostTensor>& inputs,
                                         const OracleArgs& args) {
  try {
    if (op == "linear") {
      if (inputs.size() != 2 && inputs.size() != 3) throw std::runtime_error("oracle_nn(linear): 2 or 3 inputs");
      std::optional<Ref> bias;
      if (inputs.size() == 3) bias = to_tensor(inputs[2]);
      return {host_of(linear(to_tensor(inputs[0]), to_tensor(inputs[1]), bias))};
    }
    if (op == "rms_norm") {
      need_inputs(op, inputs, 2);
      const Ref x = to_tensor(inputs[0]);
      const Ref ms = x.mul(x).mean(-1, /*keepdim=*/true);
      return {host_of(x.mul(ms.add(args.scalar.value_or(1e-5)).rsqrt()).mul(to_tensor(inputs[1])))};
    }
    if (op == "cross_entropy") {
      // loss = -(y * log_softmax(logits, 1)).sum() / N; its gradient, as autograd
      // computes it through div, neg, sum, mul and log_softmax (see mlp_grads).
      need_inputs(op, inputs, 2);
      const Ref logits = to_tensor(inputs[0]), y = to_tensor(inputs[1]);
      const int64_t n = logits.size(0);
      const Ref ls = logits.log_softmax(1);
      const Ref loss = y.mul(ls).sum().neg().div(n);
      const Ref g_ls = y.mul(loss.ones_like().div(n).neg());
      const Ref g_logits = g_ls.sub(ls.exp().mul(g_ls.sum(1, /*keepdim=*/true)));
      return {host_of(loss), host_of(g_logits)};
    }
    if (op == "mlp_grads") {
      need_inputs(op, inputs, 6);
      std::vector<Ref> t;
      for (const HostTensor& h : inputs) t.push_back(to_tensor(h));
      std::vector<HostTensor> out;
      for (const Ref& r : mlp_grads(t[0], t[1], t[2], t[3], t[4], t[5])) out.push_back(host_of(r));
      return out;
    }
    throw std::runtime_error("oracle_nn: unknown op " + op);
  } catch (const Error& e) {
    throw std::runtime_error("oracle_nn(" + op + "): custody (onednn) raised: " + e.what());
  }
}

}  // namespace custody::testing
