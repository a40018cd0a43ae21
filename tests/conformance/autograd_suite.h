// Copyright 2026 The custody Authors.
//
// Autograd under every policy and backend (core/autograd, docs/autograd.md):
// gradients match libtorch's autograd on the same inputs and finite
// differences in float64; a graph holds exactly what it saved and gives it
// back as backward passes each node (unless retain_graph) or when its outputs
// go; the errors PyTorch users know (backward twice, an in-place change of a
// saved tensor, requires_grad on an integer tensor) are typed and name the op;
// NoGradGuard records nothing; backward runs on another thread than the
// forward.

#ifndef CUSTODY_TESTS_CONFORMANCE_AUTOGRAD_SUITE_H_
#define CUSTODY_TESTS_CONFORMANCE_AUTOGRAD_SUITE_H_

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/nn/modules.h"
#include "core/nn/var_store.h"
#include "core/policy_idiom.h"
#include "core/temporary.h"
#include "testing/harness.h"
#include "tests/conformance/oracle.h"

namespace custody::testing {

namespace autograd_suite {

// Deterministic values in [lo, hi), distinct enough that max/min have no ties.
inline std::vector<double> values(int64_t n, double lo, double hi, uint64_t seed) {
  std::vector<double> v(static_cast<size_t>(n));
  uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (auto& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = lo + (hi - lo) * static_cast<double>(s >> 11) / static_cast<double>(1ull << 53);
  }
  return v;
}

inline HostTensor host(ScalarType dtype, std::vector<int64_t> sizes, double lo, double hi,
                       uint64_t seed) {
  HostTensor h{dtype, std::move(sizes), {}};
  h.values = values(h.numel(), lo, hi, seed);
  if (dtype == ScalarType::Float) {
    for (double& x : h.values) x = static_cast<float>(x);
  }
  return h;
}

// A tensor of T holding `h`'s values.
template <class T>
T tensor_of(const HostTensor& h) {
  const IntSpan sizes(h.sizes.data(), h.sizes.size());
  switch (h.dtype) {
    case ScalarType::Bool: {
      std::vector<bool> v(h.values.begin(), h.values.end());
      return T::from_vector(v, sizes);
    }
    case ScalarType::Long: {
      std::vector<int64_t> v(h.values.begin(), h.values.end());
      return T::from_vector(v, sizes);
    }
    case ScalarType::Double:
      return T::from_vector(h.values, sizes);
    default: {
      std::vector<float> v(h.values.begin(), h.values.end());
      return T::from_vector(v, sizes);
    }
  }
}

// One op of the oracle's list on tensors of T, through T's public ops (what
// a user calls), so that what it records is what a user's code records.
template <class T>
T run(const std::string& op, const std::vector<T>& in, const OracleArgs& args) {
  if (args.scalar) {
    const double s = *args.scalar;
    const T& a = in.at(0);
    if (op == "add") return a.add(s);
    if (op == "sub") return args.scalar_first ? s - a : a.sub(s);
    if (op == "mul") return a.mul(s);
    if (op == "div") return args.scalar_first ? s / a : a.div(s);
    if (op == "pow") return a.pow(s);
    if (op == "maximum") return a.maximum(s);
    if (op == "minimum") return a.minimum(s);
  }
  if (op == "add") return in.at(0).add(in.at(1));
  if (op == "sub") return in.at(0).sub(in.at(1));
  if (op == "mul") return in.at(0).mul(in.at(1));
  if (op == "div") return in.at(0).div(in.at(1));
  if (op == "pow") return in.at(0).pow(in.at(1));
  if (op == "maximum") return in.at(0).maximum(in.at(1));
  if (op == "minimum") return in.at(0).minimum(in.at(1));
  if (op == "neg") return in.at(0).neg();
  if (op == "abs") return in.at(0).abs();
  if (op == "exp") return in.at(0).exp();
  if (op == "log") return in.at(0).log();
  if (op == "sqrt") return in.at(0).sqrt();
  if (op == "rsqrt") return in.at(0).rsqrt();
  if (op == "tanh") return in.at(0).tanh();
  if (op == "sigmoid") return in.at(0).sigmoid();
  if (op == "relu") return in.at(0).relu();
  if (op == "gelu") return in.at(0).gelu();
  if (op == "silu") return in.at(0).silu();
  if (op == "sin") return in.at(0).sin();
  if (op == "cos") return in.at(0).cos();
  const IntSpan dims(args.dims.data(), args.dims.size());
  if (op == "sum") return in.at(0).sum(dims, args.keepdim);
  if (op == "mean") return in.at(0).mean(dims, args.keepdim);
  if (op == "max") return in.at(0).max(dims, args.keepdim);
  if (op == "min") return in.at(0).min(dims, args.keepdim);
  if (op == "softmax") return in.at(0).softmax(args.dim);
  if (op == "log_softmax") return in.at(0).log_softmax(args.dim);
  if (op == "matmul") return in.at(0).matmul(in.at(1));
  if (op == "index_select") return in.at(0).index_select(args.dim, in.at(1));
  if (op == "embedding") return custody::embedding(in.at(0), in.at(1));
  if (op == "cat") return custody::cat(in, args.dim);
  if (op == "where") return custody::where(in.at(0), in.at(1), in.at(2));
  if (op == "to") return in.at(0).to(args.dtype);
  throw std::runtime_error("autograd suite: no op " + op);
}

struct Case {
  std::string op;
  std::vector<HostTensor> inputs;
  OracleArgs args;
  std::string label;
};

inline OracleArgs scalar_args(double s, bool first = false) {
  OracleArgs a;
  a.scalar = s;
  a.scalar_first = first;
  return a;
}
inline OracleArgs dims_args(std::vector<int64_t> dims, bool keepdim) {
  OracleArgs a;
  a.dims = std::move(dims);
  a.keepdim = keepdim;
  return a;
}
inline OracleArgs dim_args(int64_t dim) {
  OracleArgs a;
  a.dim = dim;
  return a;
}

// Every differentiable op of op set v1 with a backward, with broadcasting,
// scalar forms, 1-D and batched matmul.
inline std::vector<Case> cases() {
  const ScalarType f = ScalarType::Float;
  const auto any = [&](std::vector<int64_t> s, uint64_t seed) { return host(f, std::move(s), -1, 1, seed); };
  const auto pos = [&](std::vector<int64_t> s, uint64_t seed) { return host(f, std::move(s), 0.5, 1.5, seed); };
  std::vector<Case> c;
  c.push_back({"add", {any({2, 3}, 1), any({3}, 2)}, {}, "broadcast"});
  c.push_back({"sub", {any({2, 3}, 3), any({2, 1}, 4)}, {}, "broadcast"});
  c.push_back({"mul", {any({2, 3}, 5), any({2, 3}, 6)}, {}, ""});
  c.push_back({"mul", {any({2, 3}, 7), any({1, 3}, 8)}, {}, "broadcast"});
  c.push_back({"div", {any({2, 3}, 9), pos({1, 3}, 10)}, {}, "broadcast"});
  c.push_back({"pow", {pos({2, 3}, 11), any({2, 3}, 12)}, {}, "tensor exponent"});
  c.push_back({"maximum", {any({2, 3}, 13), any({2, 3}, 14)}, {}, ""});
  c.push_back({"minimum", {any({2, 3}, 15), any({3}, 16)}, {}, "broadcast"});
  c.push_back({"add", {any({2, 3}, 17)}, scalar_args(0.5), "scalar"});
  c.push_back({"sub", {any({2, 3}, 18)}, scalar_args(0.5, true), "scalar first"});
  c.push_back({"mul", {any({2, 3}, 19)}, scalar_args(-1.5), "scalar"});
  c.push_back({"div", {any({2, 3}, 20)}, scalar_args(4.0), "scalar"});
  c.push_back({"div", {pos({2, 3}, 21)}, scalar_args(2.0, true), "scalar first"});
  c.push_back({"pow", {pos({2, 3}, 22)}, scalar_args(3.0), "scalar exponent"});
  c.push_back({"maximum", {any({2, 3}, 23)}, scalar_args(0.1), "scalar"});
  for (const char* op : {"neg", "abs", "exp", "tanh", "sigmoid", "relu", "gelu", "silu", "sin", "cos"}) {
    c.push_back({op, {any({2, 3}, 24)}, {}, ""});
  }
  c.push_back({"gelu", {HostTensor{f, {5}, {0.0, -6.0, 6.0, 1e-3, -2.5}}}, {}, "at 0 and far out"});
  for (const char* op : {"log", "sqrt", "rsqrt"}) c.push_back({op, {pos({2, 3}, 25)}, {}, ""});
  c.push_back({"sum", {any({2, 3, 4}, 26)}, dims_args({}, false), "all dims"});
  c.push_back({"sum", {any({2, 3, 4}, 27)}, dims_args({1}, true), "keepdim"});
  c.push_back({"sum", {any({2, 3, 4}, 28)}, dims_args({0, 2}, false), "two dims"});
  c.push_back({"mean", {any({2, 3, 4}, 29)}, dims_args({-1}, false), ""});
  c.push_back({"mean", {any({2, 3}, 30)}, dims_args({}, false), "all dims"});
  c.push_back({"max", {any({2, 3, 4}, 31)}, dims_args({1}, false), ""});
  c.push_back({"min", {any({2, 3}, 32)}, dims_args({}, false), "all dims"});
  c.push_back({"softmax", {any({2, 5}, 33)}, dim_args(1), ""});
  c.push_back({"softmax", {any({3, 4}, 34)}, dim_args(0), "dim 0"});
  c.push_back({"log_softmax", {any({2, 5}, 35)}, dim_args(-1), ""});
  c.push_back({"matmul", {any({2, 3}, 36), any({3, 4}, 37)}, {}, "2-D"});
  c.push_back({"matmul", {any({2, 2, 3}, 38), any({3, 4}, 39)}, {}, "batched x 2-D"});
  c.push_back({"matmul", {any({3, 1, 2, 3}, 40), any({2, 3, 2}, 41)}, {}, "broadcast batches"});
  c.push_back({"matmul", {any({3}, 42), any({3, 4}, 43)}, {}, "1-D x 2-D"});
  c.push_back({"matmul", {any({2, 3}, 44), any({3}, 45)}, {}, "2-D x 1-D"});
  c.push_back({"matmul", {any({3}, 46), any({3}, 47)}, {}, "1-D x 1-D"});
  HostTensor index{ScalarType::Long, {3}, {2, 0, 2}};
  c.push_back({"index_select", {any({4, 3}, 48), index}, dim_args(0), "dim 0, repeated"});
  c.push_back({"index_select", {any({2, 4, 3}, 49), index}, dim_args(1), "dim 1"});
  HostTensor ids{ScalarType::Long, {2, 2}, {4, 1, 1, 0}};
  c.push_back({"embedding", {any({5, 3}, 50), ids}, {}, ""});
  c.push_back({"cat", {any({2, 3}, 51), any({1, 3}, 52), any({3, 3}, 53)}, dim_args(0), ""});
  c.push_back({"cat", {any({2, 3}, 54), any({2, 1}, 55)}, dim_args(1), "dim 1"});
  HostTensor cond{ScalarType::Bool, {2, 3}, {1, 0, 0, 1, 1, 0}};
  c.push_back({"where", {cond, any({2, 3}, 56), any({3}, 57)}, {}, "broadcast"});
  OracleArgs to_double;
  to_double.dtype = ScalarType::Double;
  c.push_back({"to", {any({2, 3}, 58)}, to_double, "float64"});
  return c;
}

}  // namespace autograd_suite

template <class T>
class AutogradTest : public ConformanceTest<T> {
 protected:
  using Idiom = PolicyIdiom<typename T::policy_type>;
  static int64_t live() { return ConformanceTest<T>::stats().live_tensors; }
};
TYPED_TEST_SUITE_P(AutogradTest);

TYPED_TEST_P(AutogradTest, OpGradientsMatchLibtorch) {
  using T = TypeParam;
  for (const autograd_suite::Case& c : autograd_suite::cases()) {
    SCOPED_TRACE(c.op + " " + c.label);
    HandleVector<T> in;
    for (const HostTensor& h : c.inputs) {
      in.push_back(autograd_suite::tensor_of<T>(h));
      if (is_floating_point(h.dtype)) in.back().requires_grad_();
    }
    {
      Temporary<T> y = autograd_suite::run(c.op, std::vector<T>(in.begin(), in.end()), c.args);
      EXPECT_TRUE(y->requires_grad());
      EXPECT_FALSE(y->is_leaf());
      const HostTensor gy = autograd_suite::host(y->scalar_type(), sizes_vec(y->sizes()), -1, 1, 99);
      Temporary<T> g = autograd_suite::tensor_of<T>(gy);
      y->backward(*g);
      const std::vector<HostTensor> ref = oracle_grad(c.op, c.inputs, gy, c.args);
      for (size_t i = 0; i < in.size(); ++i) {
        SCOPED_TRACE("input " + std::to_string(i));
        T grad = in[i].grad();
        if (ref[i].values.empty()) {
          EXPECT_FALSE(grad.defined());
          continue;
        }
        ASSERT_TRUE(grad.defined());
        Temporary<T> got = std::move(grad);
        EXPECT_TRUE(Close(host_of(*got), ref[i], 1e-4, 1e-5));
      }
    }
    for (T& t : in) custody::release(t);
  }
}

// d/dx and d/dw of sum(tanh(x @ w) * (sigmoid(x) + gelu(x)).sum(1, keepdim)) by central
// differences in float64, element by element.
TYPED_TEST_P(AutogradTest, GradientsMatchFiniteDifferencesInFloat64) {
  using T = TypeParam;
  const ScalarType d = ScalarType::Double;
  const HostTensor hx = autograd_suite::host(d, {3, 4}, -1, 1, 1);
  const HostTensor hw = autograd_suite::host(d, {4, 2}, -1, 1, 2);
  const auto f = [&](const HostTensor& xv, const HostTensor& wv, bool track, Temporary<T>* gx,
                     Temporary<T>* gw) {
    Temporary<T> x = autograd_suite::tensor_of<T>(xv);
    Temporary<T> w = autograd_suite::tensor_of<T>(wv);
    if (track) {
      x->requires_grad_();
      w->requires_grad_();
    }
    Temporary<T> xw = x->matmul(*w);
    Temporary<T> th = xw->tanh();
    Temporary<T> sig = x->sigmoid();
    Temporary<T> ge = x->gelu();
    Temporary<T> sg = sig->add(*ge);
    Temporary<T> rs = sg->sum(1, /*keepdim=*/true);
    Temporary<T> p = th->mul(*rs);
    Temporary<T> s = p->sum();
    if (track) {
      s->backward();
      gx->reset(x->grad());
      gw->reset(w->grad());
    }
    return s->template item<double>();
  };
  Temporary<T> gx = T::scalar(0.0);
  Temporary<T> gw = T::scalar(0.0);
  f(hx, hw, true, &gx, &gw);
  const std::vector<double> ax = values_of(*gx), aw = values_of(*gw);
  const double eps = 1e-6;
  for (int which = 0; which < 2; ++which) {
    const HostTensor& base = which == 0 ? hx : hw;
    const std::vector<double>& analytic = which == 0 ? ax : aw;
    for (size_t i = 0; i < base.values.size(); ++i) {
      HostTensor up = base, down = base;
      up.values[i] += eps;
      down.values[i] -= eps;
      const double fu = which == 0 ? f(up, hw, false, nullptr, nullptr) : f(hx, up, false, nullptr, nullptr);
      const double fd = which == 0 ? f(down, hw, false, nullptr, nullptr) : f(hx, down, false, nullptr, nullptr);
      EXPECT_NEAR(analytic[i], (fu - fd) / (2 * eps), 1e-6) << (which == 0 ? "x" : "w") << "[" << i << "]";
    }
  }
}

TYPED_TEST_P(AutogradTest, NoGradGuardRecordsNothing) {
  using T = TypeParam;
  Temporary<T> x = T::ones({3});
  x->requires_grad_();
  {
    NoGradGuard no_grad;
    EXPECT_FALSE(is_grad_enabled());
    Temporary<T> y = x->mul(2.0);
    EXPECT_FALSE(y->requires_grad());
    EXPECT_TRUE(y->is_leaf());
    Temporary<T> z = x->add_(1.0);  // a parameter update: allowed without grad mode
  }
  EXPECT_TRUE(is_grad_enabled());
  Temporary<T> y = x->mul(2.0);
  EXPECT_TRUE(y->requires_grad());
  EXPECT_STREQ(y->grad_fn_name(), "mul");
  EXPECT_STREQ(x->grad_fn_name(), "");
  EXPECT_EQ(values_of(*x), std::vector<double>({2, 2, 2}));
}

// The saved output of exp is the one tensor the graph keeps of its own: given
// back as backward passes the node, kept with retain_graph until the graph goes.
TYPED_TEST_P(AutogradTest, SavedTensorsAreGivenBackAsBackwardPasses) {
  using T = TypeParam;
  this->expect_released_everything();
  for (bool retain : {false, true}) {
    SCOPED_TRACE(retain ? "retain_graph" : "no retain_graph");
    Temporary<T> x = T::from_vector(std::vector<float>{0.5f, 1.f, 2.f});
    x->requires_grad_();
    const int64_t before = TestFixture::live();
    {
      Temporary<T> y = x->exp();
      Temporary<T> s = y->sum();
      EXPECT_EQ(TestFixture::live(), before + 3) << "y, the saved view of y, s";
      s->backward(T(), retain);
      EXPECT_EQ(TestFixture::live(), before + (retain ? 4 : 3)) << "x.grad, and the saved view if retained";
      Temporary<T> g = x->grad();
      const std::vector<double> ex = {std::exp(0.5), std::exp(1.0), std::exp(2.0)};
      const std::vector<double> got = values_of(*g);
      for (size_t i = 0; i < ex.size(); ++i) EXPECT_NEAR(got[i], ex[i], 1e-5);
    }
    EXPECT_EQ(TestFixture::live(), before + 1) << "the graph went with its outputs; x.grad stays";
    x->reset_grad();
    EXPECT_EQ(TestFixture::live(), before);
  }
}

TYPED_TEST_P(AutogradTest, BackwardTwiceNeedsRetainGraph) {
  using T = TypeParam;
  Temporary<T> x = T::from_vector(std::vector<float>{1, 2});
  x->requires_grad_();
  Temporary<T> y = x->mul(*x);
  Temporary<T> s = y->sum();
  s->backward();
  CUSTODY_EXPECT_THROWS(LifetimeError, s->backward(), "mul", "already given back", "retain_graph=true");

  Temporary<T> y2 = x->mul(*x);
  Temporary<T> s2 = y2->sum();
  x->reset_grad();
  s2->backward(T(), /*retain_graph=*/true);
  s2->backward();
  Temporary<T> g = x->grad();
  EXPECT_EQ(values_of(*g), std::vector<double>({4, 8})) << "two backwards accumulate 2 * 2x";
}

TYPED_TEST_P(AutogradTest, InPlaceChangeOfASavedTensorIsRefused) {
  using T = TypeParam;
  Temporary<T> x = T::from_vector(std::vector<float>{1, 2});
  x->requires_grad_();
  Temporary<T> c = T::from_vector(std::vector<float>{3, 4});
  Temporary<T> y = x->mul(*c);
  Temporary<T> s = y->sum();
  { Temporary<T> changed = c->add_(1.0); }
  CUSTODY_EXPECT_THROWS(InvalidArgument, s->backward(), "mul", "modified by an inplace operation",
                        "version 1; expected version 0", "[2]");
  // A detached tensor shares the data, and so the version.
  Temporary<T> y2 = x->mul(*x);
  Temporary<T> s2 = y2->sum();
  Temporary<T> d = x->detach();
  EXPECT_FALSE(d->requires_grad());
  { Temporary<T> changed = d->mul_(2.0); }
  CUSTODY_EXPECT_THROWS(InvalidArgument, s2->backward(), "modified by an inplace operation");
}

TYPED_TEST_P(AutogradTest, ErrorsAreTypedAndNameTheOp) {
  using T = TypeParam;
  Temporary<T> i = T::from_vector(std::vector<int64_t>{1, 2});
  CUSTODY_EXPECT_THROWS(DTypeError, i->requires_grad_(), "requires_grad_", "floating point", "int64");
  Temporary<T> x = T::from_vector(std::vector<float>{1, 2});
  x->requires_grad_();
  Temporary<T> y = x->mul(3.0);
  CUSTODY_EXPECT_THROWS(ShapeError, y->backward(), "backward", "scalar outputs", "[2]");
  Temporary<T> wrong = T::ones({3});
  CUSTODY_EXPECT_THROWS(ShapeError, y->backward(*wrong), "backward", "[3]", "[2]");
  CUSTODY_EXPECT_THROWS(InvalidArgument, x->add_(1.0), "add_", "in-place", "NoGradGuard");
  CUSTODY_EXPECT_THROWS(InvalidArgument, y->requires_grad_(false), "leaf", "mul");
  Temporary<T> plain = T::ones({1});
  CUSTODY_EXPECT_THROWS(InvalidArgument, plain->backward(), "does not require grad");
  EXPECT_FALSE(x->grad().defined()) << "no backward ran";
}

TYPED_TEST_P(AutogradTest, GraphGoesWithItsOutputs) {
  using T = TypeParam;
  this->expect_released_everything();
  Temporary<T> x = T::randn({4, 3});
  x->requires_grad_();
  Temporary<T> w = T::randn({3, 2});
  const int64_t before = TestFixture::live();
  {
    Temporary<T> h = x->matmul(*w);
    Temporary<T> a = h->tanh();
    Temporary<T> p = a->softmax(1);
    Temporary<T> s = p->sum();
    EXPECT_GT(TestFixture::live(), before + 4) << "outputs and saved outputs";
  }
  EXPECT_EQ(TestFixture::live(), before) << "nothing outlives the outputs";
  EXPECT_FALSE(x->grad().defined());
}

// dispose/scope/manual: giving back the user's handle to a saved tensor does
// not break backward; the graph holds its own reference.
TYPED_TEST_P(AutogradTest, SavedTensorOutlivesTheUsersHandle) {
  using T = TypeParam;
  Temporary<T> x = T::from_vector(std::vector<float>{1, 2, 3});
  x->requires_grad_();
  T c = T::from_vector(std::vector<float>{4, 5, 6});
  Temporary<T> y = x->mul(c);
  Temporary<T> s = y->sum();
  custody::release(c);
  s->backward();
  Temporary<T> g = x->grad();
  EXPECT_EQ(values_of(*g), std::vector<double>({4, 5, 6}));
}

TYPED_TEST_P(AutogradTest, BackwardOnAnotherThread) {
  using T = TypeParam;
  Temporary<T> x = T::from_vector(std::vector<float>{1, 2, 3});
  x->requires_grad_();
  Temporary<T> y = x->mul(*x);
  Temporary<T> s = y->sum();
  std::thread t([&] {
    [[maybe_unused]] typename TestFixture::Idiom::ThreadRegistration registration;
    [[maybe_unused]] typename TestFixture::Idiom::Region region;
    s->backward();
  });
  t.join();
  Temporary<T> g = x->grad();
  EXPECT_EQ(values_of(*g), std::vector<double>({2, 4, 6}));
}

TYPED_TEST_P(AutogradTest, GradReturnsGradientsAndLeavesLeavesAlone) {
  using T = TypeParam;
  Temporary<T> x = T::from_vector(std::vector<float>{1, 2, 3});
  x->requires_grad_();
  Temporary<T> z = T::from_vector(std::vector<float>{1, 1, 1});
  z->requires_grad_();
  Temporary<T> y = x->mul(*x);
  Temporary<T> s = y->sum();
  {
    HandleVector<T> g = autograd::grad(std::vector<T>{*s}, std::vector<T>{*x}, {}, /*retain_graph=*/true);
    ASSERT_EQ(g.size(), 1u);
    EXPECT_EQ(values_of(g[0]), std::vector<double>({2, 4, 6}));
    for (T& t : g) custody::release(t);
  }
  EXPECT_FALSE(x->grad().defined()) << "grad() does not accumulate into leaves";
  CUSTODY_EXPECT_THROWS(InvalidArgument,
                        autograd::grad(std::vector<T>{*s}, std::vector<T>{*x, *z}, {}, true),
                        "input 1", "allow_unused");
  HandleVector<T> g = autograd::grad(std::vector<T>{*s}, std::vector<T>{*x, *z}, {}, true, false,
                                     /*allow_unused=*/true);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_TRUE(g[0].defined());
  EXPECT_FALSE(g[1].defined());
  custody::release(g[0]);
}

// create_graph through autograd::grad: d/dx sum(x^3) = 3x^2, recorded, so its
// own backward gives 6x.
TYPED_TEST_P(AutogradTest, CreateGraphGivesSecondDerivatives) {
  using T = TypeParam;
  this->expect_released_everything();
  Temporary<T> x = T::from_vector(std::vector<float>{1, 2, 3});
  x->requires_grad_();
  {
    Temporary<T> x2 = x->mul(*x);
    Temporary<T> x3 = x2->mul(*x);
    Temporary<T> s = x3->sum();
    HandleVector<T> g = autograd::grad(std::vector<T>{*s}, std::vector<T>{*x}, {}, std::nullopt,
                                       /*create_graph=*/true);
    ASSERT_EQ(g.size(), 1u);
    EXPECT_TRUE(g[0].requires_grad());
    EXPECT_EQ(values_of(g[0]), std::vector<double>({3, 12, 27}));
    {
      Temporary<T> gs = g[0].sum();
      gs->backward();
    }
    custody::release(g[0]);
  }
  // What a collecting policy holds of the handles copied into the vectors above.
  TestFixture::settle_policy();
  Temporary<T> gg = x->grad();
  EXPECT_EQ(values_of(*gg), std::vector<double>({6, 12, 18}));
}

// backward(create_graph=true) stores in the leaf a gradient whose graph
// reaches the leaf again (it saved w, and its edges lead to w): PyTorch's
// reference cycle (pytorch/pytorch #4661). Here the graph holds neither
// strongly (Note [The graph never holds a tensor that has meta]), so the
// gradient penalty works and letting the leaf go frees the leaf, its gradient
// and the gradient's graph, under every policy.
TYPED_TEST_P(AutogradTest, CreateGraphOnALeafIsFreedWithTheLeaf) {
  using T = TypeParam;
  this->expect_released_everything();
  const int64_t before = TestFixture::live();
  const int64_t nodes = autograd::live_nodes();
  {
    Temporary<T> w = T::from_vector(std::vector<float>{1, 2, 3});
    w->requires_grad_();
    {
      Temporary<T> w3 = [&] {
        Temporary<T> w2 = w->mul(*w);
        return w2->mul(*w);
      }();
      Temporary<T> s = w3->sum();
      s->backward(T(), std::nullopt, /*create_graph=*/true);
    }
    Temporary<T> g = w->grad();  // 3 w^2, with a graph that saved w
    EXPECT_EQ(values_of(*g), std::vector<double>({3, 12, 27}));
    EXPECT_TRUE(g->requires_grad());
    EXPECT_GT(autograd::live_nodes(), nodes) << "the gradient's graph";
    {
      Temporary<T> g2 = g->mul(*g);
      Temporary<T> penalty = g2->sum();  // sum(9 w^4): d/dw = 36 w^3
      HandleVector<T> d = autograd::grad(std::vector<T>{*penalty}, std::vector<T>{*w});
      EXPECT_EQ(values_of(d[0]), std::vector<double>({36, 288, 972}));
      custody::release(d[0]);
    }
  }
  TestFixture::settle_policy();
  EXPECT_EQ(TestFixture::live(), before) << "the leaf, its gradient and the gradient's graph";
  EXPECT_EQ(autograd::live_nodes(), nodes);
}

TYPED_TEST_P(AutogradTest, VarStoreZeroGrad) {
  using T = TypeParam;
  nn::VarStore<T> vs;
  T w = vs.ones("w", std::vector<int64_t>{2});
  vs.requires_grad_();
  for (int step = 0; step < 2; ++step) {
    Temporary<T> y = w.mul(3.0);
    Temporary<T> s = y->sum();
    s->backward();
  }
  {
    Temporary<T> g = w.grad();
    EXPECT_EQ(values_of(*g), std::vector<double>({6, 6})) << "accumulated over two backwards";
  }
  vs.zero_grad(/*set_to_none=*/false);
  {
    Temporary<T> g = w.grad();
    EXPECT_EQ(values_of(*g), std::vector<double>({0, 0}));
  }
  vs.zero_grad();
  EXPECT_FALSE(w.grad().defined());
}

// The MLP of NnTest.MlpBackwardMatchesAutograd, differentiated by the tape.
TYPED_TEST_P(AutogradTest, MlpByAutogradMatchesLibtorch) {
  using T = TypeParam;
  manual_seed(10);
  nn::VarStore<T> vs;
  nn::Linear<T> fc1(vs, "fc1", 6, 5), fc2(vs, "fc2", 5, 3);
  vs.requires_grad_();
  Temporary<T> x = T::randn({4, 6});
  Temporary<T> y = T::from_vector(std::vector<float>{1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0}, {4, 3});
  const std::vector<HostTensor> ref =
      oracle_nn("mlp_grads", {host_of(*x), host_of(*y), host_of(fc1.weight()), host_of(fc1.bias()),
                              host_of(fc2.weight()), host_of(fc2.bias())});
  {
    Temporary<T> h = fc1.forward(*x);
    Temporary<T> a = h->relu();
    Temporary<T> logits = fc2.forward(*a);
    Temporary<T> lp = logits->log_softmax(1);
    Temporary<T> yl = y->mul(*lp);
    Temporary<T> total = yl->sum();
    Temporary<T> loss = total->div(-4.0);
    EXPECT_NEAR(loss->template item<float>(), ref[0].values[0], 1e-5);
    loss->backward();
  }
  const T params[] = {fc1.weight(), fc1.bias(), fc2.weight(), fc2.bias()};
  for (int i = 0; i < 4; ++i) {
    Temporary<T> g = params[i].grad();
    EXPECT_TRUE(Close(host_of(*g), ref[static_cast<size_t>(i) + 1], 1e-4, 1e-5)) << "parameter " << i;
  }
}

REGISTER_TYPED_TEST_SUITE_P(AutogradTest, OpGradientsMatchLibtorch, GradientsMatchFiniteDifferencesInFloat64,
                            NoGradGuardRecordsNothing, SavedTensorsAreGivenBackAsBackwardPasses,
                            BackwardTwiceNeedsRetainGraph, InPlaceChangeOfASavedTensorIsRefused,
                            ErrorsAreTypedAndNameTheOp, GraphGoesWithItsOutputs,
                            SavedTensorOutlivesTheUsersHandle, BackwardOnAnotherThread,
                            GradReturnsGradientsAndLeavesLeavesAlone, CreateGraphGivesSecondDerivatives,
                            CreateGraphOnALeafIsFreedWithTheLeaf, VarStoreZeroGrad, MlpByAutogradMatchesLibtorch);

}  // namespace custody::testing

#endif  // CUSTODY_TESTS_CONFORMANCE_AUTOGRAD_SUITE_H_
