// Copyright 2026 The custody Authors.
//
// tests/conformance/oracle.cc — the one translation unit that includes ATen:
// runs ops in libtorch 1.13 for the conformance suite (see oracle.h). Close and
// the printing of HostTensors are in oracle_common.cc (no torch); the oracle
// without libtorch, for binaries that must not link it, is oracle_onednn.cc.

#include "tests/conformance/oracle.h"

#include <ATen/ATen.h>

#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "tests/conformance/oracle_dispatch.h"

namespace custody::testing {
namespace {

at::ScalarType to_aten(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: return at::kByte;
    case ScalarType::Char: return at::kChar;
    case ScalarType::Short: return at::kShort;
    case ScalarType::Int: return at::kInt;
    case ScalarType::Long: return at::kLong;
    case ScalarType::Half: return at::kHalf;
    case ScalarType::Float: return at::kFloat;
    case ScalarType::Double: return at::kDouble;
    case ScalarType::Bool: return at::kBool;
    case ScalarType::BFloat16: return at::kBFloat16;
    default: break;  // uint16/32/64: not in libtorch 1.13
  }
  throw std::runtime_error(std::string("oracle: libtorch 1.13 has no ") +
                           std::string(dtype_name(t)));
}

ScalarType from_aten(at::ScalarType t) {
  switch (t) {
    case at::kByte: return ScalarType::Byte;
    case at::kChar: return ScalarType::Char;
    case at::kShort: return ScalarType::Short;
    case at::kInt: return ScalarType::Int;
    case at::kLong: return ScalarType::Long;
    case at::kHalf: return ScalarType::Half;
    case at::kFloat: return ScalarType::Float;
    case at::kDouble: return ScalarType::Double;
    case at::kBool: return ScalarType::Bool;
    case at::kBFloat16: return ScalarType::BFloat16;
    default: break;
  }
  throw std::runtime_error(std::string("oracle: torch returned unsupported dtype ") +
                           c10::toString(t));
}

at::Tensor to_tensor(const HostTensor& h) {
  if (static_cast<int64_t>(h.values.size()) != h.numel()) {
    std::ostringstream os;
    os << "oracle: HostTensor has " << h.values.size() << " values for shape of " << h.numel()
       << " elements";
    throw std::runtime_error(os.str());
  }
  at::Tensor d = at::empty(h.sizes, at::TensorOptions().dtype(at::kDouble));
  if (!h.values.empty()) std::memcpy(d.data_ptr<double>(), h.values.data(), h.values.size() * 8);
  // Values of integral dtypes are exact in double; the conversion to a narrower
  // float type rounds, but HostTensors made by host_of are already representable.
  return d.to(to_aten(h.dtype));
}

HostTensor from_tensor(const at::Tensor& t) {
  HostTensor h;
  h.dtype = from_aten(t.scalar_type());
  h.sizes.assign(t.sizes().begin(), t.sizes().end());
  at::Tensor d = t.to(at::kDouble).contiguous();
  h.values.resize(static_cast<size_t>(d.numel()));
  if (d.numel() > 0) std::memcpy(h.values.data(), d.data_ptr<double>(), h.values.size() * 8);
  return h;
}

at::Scalar scalar_of(const OracleArgs& a) {
  if (!a.scalar) throw std::runtime_error("oracle: op needs args.scalar");
  if (a.scalar_is_bool) return at::Scalar(*a.scalar != 0.0);
  if (a.scalar_is_integral) return at::Scalar(static_cast<int64_t>(*a.scalar));
  return at::Scalar(*a.scalar);
}

// A 0-dim tensor that type-promotes like a Python number (ATen's wrapped number).
at::Tensor wrapped(const at::Scalar& s) {
  at::Tensor t = c10::scalar_to_tensor(s);
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

using Binary = std::function<at::Tensor(const at::Tensor&, const at::Tensor&)>;

const std::map<std::string, Binary>& binaries() {
  static const auto* m = new std::map<std::string, Binary>{
      {"add", [](const at::Tensor& a, const at::Tensor& b) { return at::add(a, b); }},
      {"sub", [](const at::Tensor& a, const at::Tensor& b) { return at::sub(a, b); }},
      {"mul", [](const at::Tensor& a, const at::Tensor& b) { return at::mul(a, b); }},
      {"div", [](const at::Tensor& a, const at::Tensor& b) { return at::div(a, b); }},
      {"maximum", [](const at::Tensor& a, const at::Tensor& b) { return at::maximum(a, b); }},
      {"minimum", [](const at::Tensor& a, const at::Tensor& b) { return at::minimum(a, b); }},
      {"pow", [](const at::Tensor& a, const at::Tensor& b) { return at::pow(a, b); }},
      {"eq", [](const at::Tensor& a, const at::Tensor& b) { return at::eq(a, b); }},
      {"ne", [](const at::Tensor& a, const at::Tensor& b) { return at::ne(a, b); }},
      {"lt", [](const at::Tensor& a, const at::Tensor& b) { return at::lt(a, b); }},
      {"le", [](const at::Tensor& a, const at::Tensor& b) { return at::le(a, b); }},
      {"gt", [](const at::Tensor& a, const at::Tensor& b) { return at::gt(a, b); }},
      {"ge", [](const at::Tensor& a, const at::Tensor& b) { return at::ge(a, b); }},
  };
  return *m;
}

using Unary = std::function<at::Tensor(const at::Tensor&)>;

const std::map<std::string, Unary>& unaries() {
  static const auto* m = new std::map<std::string, Unary>{
      {"neg", [](const at::Tensor& a) { return at::neg(a); }},
      {"abs", [](const at::Tensor& a) { return at::abs(a); }},
      {"exp", [](const at::Tensor& a) { return at::exp(a); }},
      {"log", [](const at::Tensor& a) { return at::log(a); }},
      {"sqrt", [](const at::Tensor& a) { return at::sqrt(a); }},
      {"rsqrt", [](const at::Tensor& a) { return at::rsqrt(a); }},
      {"tanh", [](const at::Tensor& a) { return at::tanh(a); }},
      {"sigmoid", [](const at::Tensor& a) { return at::sigmoid(a); }},
      {"relu", [](const at::Tensor& a) { return at::relu(a); }},
      {"gelu", [](const at::Tensor& a) { return at::gelu(a); }},  // exact (erf) form
      {"silu", [](const at::Tensor& a) { return at::silu(a); }},
      {"sin", [](const at::Tensor& a) { return at::sin(a); }},
      {"cos", [](const at::Tensor& a) { return at::cos(a); }},
  };
  return *m;
}

// What dispatch() (oracle_dispatch.h) runs each op with: ATen.
struct Aten {
  using Tensor = at::Tensor;
  static at::Tensor to_tensor(const HostTensor& h) { return testing::to_tensor(h); }
  static bool is_binary(const std::string& op) { return binaries().count(op) != 0; }
  static at::Tensor binary(const std::string& op, const at::Tensor& a, const at::Tensor& b) {
    return binaries().at(op)(a, b);
  }
  static at::Tensor binary_scalar(const std::string& op, const at::Tensor& a, const OracleArgs& args) {
    if (op == "pow") {  // the Scalar overloads: pow(Tensor, Scalar) checks integer exponents
      return args.scalar_first ? at::pow(scalar_of(args), a) : at::pow(a, scalar_of(args));
    }
    const at::Tensor s = wrapped(scalar_of(args));
    return args.scalar_first ? binaries().at(op)(s, a) : binaries().at(op)(a, s);
  }
  static at::Tensor in_place(const std::string& op, at::Tensor self, const at::Tensor& other) {
    if (op == "add_") self.add_(other);
    if (op == "sub_") self.sub_(other);
    if (op == "mul_") self.mul_(other);
    if (op == "div_") self.div_(other);
    return self;
  }
  static at::Tensor in_place_scalar(const std::string& op, const at::Tensor& self, const OracleArgs& args) {
    return in_place(op, self, wrapped(scalar_of(args)));
  }
  static bool is_unary(const std::string& op) { return unaries().count(op) != 0; }
  static at::Tensor unary(const std::string& op, const at::Tensor& a) { return unaries().at(op)(a); }
  static at::Tensor reduce(const std::string& op, const at::Tensor& x, const OracleArgs& args) {
    if (args.dims.empty()) {
      at::Tensor r;
      if (op == "sum") r = at::sum(x);
      if (op == "mean") r = at::mean(x);
      if (op == "max") r = at::max(x);
      if (op == "min") r = at::min(x);
      if (args.keepdim) {
        std::vector<int64_t> ones(static_cast<size_t>(x.dim()), 1);
        r = r.reshape(ones);
      }
      return r;
    }
    if (op == "sum") return at::sum(x, args.dims, args.keepdim);
    if (op == "mean") return at::mean(x, args.dims, args.keepdim);
    if (args.dims.size() == 1) {  // torch.max(x, dim) returns (values, indices): values only
      return op == "max" ? std::get<0>(at::max(x, args.dims[0], args.keepdim))
                         : std::get<0>(at::min(x, args.dims[0], args.keepdim));
    }
    return op == "max" ? at::amax(x, args.dims, args.keepdim) : at::amin(x, args.dims, args.keepdim);
  }
  static at::Tensor arg_reduce(bool max, const at::Tensor& x, std::optional<int64_t> dim, bool keepdim) {
    const c10::optional<int64_t> d = dim ? c10::optional<int64_t>(*dim) : c10::nullopt;
    return max ? at::argmax(x, d, keepdim) : at::argmin(x, d, keepdim);
  }
  static at::Tensor softmax(const at::Tensor& x, int64_t dim, bool log) {
    return log ? at::log_softmax(x, dim) : at::softmax(x, dim);
  }
  static at::Tensor matmul(const at::Tensor& a, const at::Tensor& b) { return at::matmul(a, b); }
  static at::Tensor index_select(const at::Tensor& x, int64_t dim, const at::Tensor& index) {
    return at::index_select(x, dim, index);
  }
  static at::Tensor embedding(const at::Tensor& w, const at::Tensor& i) { return at::embedding(w, i); }
  static at::Tensor cat(const std::vector<at::Tensor>& in, int64_t dim) { return at::cat(in, dim); }
  static at::Tensor where(const at::Tensor& c, const at::Tensor& a, const at::Tensor& b) {
    return at::where(c, a, b);
  }
  static at::Tensor to(const at::Tensor& x, ScalarType dtype) { return x.to(to_aten(dtype)); }
};

}  // namespace

HostTensor oracle(const std::string& op, const std::vector<HostTensor>& inputs,
                  const OracleArgs& args) {
  try {
    return from_tensor(dispatch<Aten>(op, inputs, args));
  } catch (const c10::Error& e) {
    throw std::runtime_error("oracle(" + op + "): torch raised: " + e.what_without_backtrace());
  }
}

std::vector<HostTensor> oracle_grad(const std::string& op, const std::vector<HostTensor>& inputs,
                                    const HostTensor& grad_output, const OracleArgs& args) {
  try {
    std::vector<at::Tensor> in;
    for (const HostTensor& h : inputs) {
      at::Tensor t = to_tensor(h);
      if (t.is_floating_point()) t.set_requires_grad(true);
      in.push_back(t);
    }
    const at::Tensor y = dispatch_tensors<Aten>(op, in, args);
    y.backward(to_tensor(grad_output));
    std::vector<HostTensor> out;
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i].requires_grad() && in[i].grad().defined()) {
        out.push_back(from_tensor(in[i].grad()));
      } else {
        out.push_back(HostTensor{inputs[i].dtype, inputs[i].sizes, {}});
      }
    }
    return out;
  } catch (const c10::Error& e) {
    throw std::runtime_error("oracle_grad(" + op + "): torch raised: " + e.what_without_backtrace());
  }
}

std::vector<HostTensor> oracle_nn(const std::string& op, const std::vector<HostTensor>& inputs,
                                  const OracleArgs& args) {
  try {
    if (op == "linear") {
      if (inputs.size() != 2 && inputs.size() != 3) throw std::runtime_error("oracle_nn(linear): 2 or 3 inputs");
      at::Tensor y = at::matmul(to_tensor(inputs[0]), to_tensor(inputs[1]).t());
      if (inputs.size() == 3) y = y + to_tensor(inputs[2]);
      return {from_tensor(y)};
    }
    if (op == "rms_norm") {
      need_inputs(op, inputs, 2);
      const at::Tensor x = to_tensor(inputs[0]);
      const at::Tensor ms = (x * x).mean({-1}, /*keepdim=*/true);
      return {from_tensor(x * at::rsqrt(ms + args.scalar.value_or(1e-5)) * to_tensor(inputs[1]))};
    }
    if (op == "cross_entropy") {
      need_inputs(op, inputs, 2);
      const at::Tensor logits = to_tensor(inputs[0]).set_requires_grad(true);
      const at::Tensor y = to_tensor(inputs[1]);
      const at::Tensor loss = -(y * at::log_softmax(logits, 1)).sum() / logits.size(0);
      loss.backward();
      return {from_tensor(loss.detach()), from_tensor(logits.grad())};
    }
    if (op == "mlp_grads") {
      need_inputs(op, inputs, 6);
      const at::Tensor x = to_tensor(inputs[0]), y = to_tensor(inputs[1]);
      std::vector<at::Tensor> p;
      for (size_t i = 2; i < 6; ++i) p.push_back(to_tensor(inputs[i]).set_requires_grad(true));
      const at::Tensor h = at::relu(at::matmul(x, p[0].t()) + p[1]);
      const at::Tensor logits = at::matmul(h, p[2].t()) + p[3];
      const at::Tensor loss = -(y * at::log_softmax(logits, 1)).sum() / x.size(0);
      loss.backward();
      std::vector<HostTensor> out{from_tensor(loss.detach())};
      for (const at::Tensor& t : p) out.push_back(from_tensor(t.grad()));
      return out;
    }
    throw std::runtime_error("oracle_nn: unknown op " + op);
  } catch (const c10::Error& e) {
    throw std::runtime_error("oracle_nn(" + op + "): torch raised: " + e.what_without_backtrace());
  }
}

}  // namespace custody::testing
