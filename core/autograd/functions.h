// Copyright 2026 The custody Authors.
//
// core/autograd/functions.h — what each differentiable op records, and its
// backward formula, written once for every policy and backend with the
// tracked ops of T = BasicTensor<Policy, Backend>: run with grad mode on
// (create_graph), a formula records the graph of the gradient itself, so
// higher-order gradients need no code of their own. Included at the end of
// core/tensor.h; the ops of BasicTensor call `Functions<T>::<op>(...)` after
// computing their result, only when an operand requires grad and grad mode is
// on (autograd::internal::wants_grad).
//
// Each formula gives back every temporary it makes (Temporary<T>), and a
// node saves only what the gradients that will flow need (a mul whose second
// operand needs no gradient does not save its first).

#ifndef CUSTODY_CORE_AUTOGRAD_FUNCTIONS_H_
#define CUSTODY_CORE_AUTOGRAD_FUNCTIONS_H_

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/autograd/meta.h"
#include "core/autograd/node.h"
#include "core/backend.h"
#include "core/error.h"
#include "core/policy_traits.h"
#include "core/scalar.h"
#include "core/shape.h"
#include "core/temporary.h"

namespace custody::autograd::internal {

template <class T>
struct Functions {
  using N = FnNode<T>;
  using G = Grads<T>;

  // A node recording `out` = name(inputs), set as out's grad_fn; null when the
  // output carries no gradient (not a floating dtype) or is an input itself
  // (an op that returned its operand unchanged).
  static N* make(const char* name, typename N::Formula formula,
                 std::initializer_list<const TensorImpl*> inputs, const TensorImpl& out) {
    return make(name, formula, std::vector<const TensorImpl*>(inputs), out);
  }
  static N* make(const char* name, typename N::Formula formula,
                 const std::vector<const TensorImpl*>& inputs, const TensorImpl& out) {
    if (!is_floating_point(out.scalar_type())) return nullptr;
    for (const TensorImpl* in : inputs) {
      if (in == &out) return nullptr;
    }
    N* n = new N(name, formula);
    Ref<Node> node(kAdopt, n);
    n->next.reserve(inputs.size());
    n->inputs.reserve(inputs.size());
    for (const TensorImpl* in : inputs) n->add_input(*in);
    AutogradMeta& m = out.ensure_autograd_meta();
    m.requires_grad = true;
    m.grad_fn = std::move(node);
    return n;
  }

  static int64_t wrap(int64_t d, int64_t ndim, const char* op) {
    return ValueOrThrow(wrap_dim(d, ndim, op));
  }
  static Dims sizes_of(const N& n, size_t i) { return n.inputs[i].sizes; }

  // ---- elementwise -----------------------------------------------------------

  static void binary(BinaryOp code, const TensorImpl& a, const TensorImpl& b, const TensorImpl& out) {
    if (is_comparison(code)) return;
    N* n = make(op_name(code), binary_backward, {&a, &b}, out);
    if (n == nullptr) return;
    n->code = static_cast<int>(code);
    switch (code) {
      case BinaryOp::kAdd:
      case BinaryOp::kSub:
        break;
      case BinaryOp::kMul:
        if (n->needs(1)) n->save(0, a);
        if (n->needs(0)) n->save(1, b);
        break;
      case BinaryOp::kDiv:
        if (n->needs(1)) n->save(0, a);
        n->save(1, b);
        break;
      case BinaryOp::kPow:
        n->save(0, a);
        n->save(1, b);
        if (n->needs(1)) n->save_output(2, out);
        break;
      default:  // maximum, minimum
        n->save(0, a);
        n->save(1, b);
        break;
    }
  }

  static void binary_backward(N& n, const T& g, G& out) {
    switch (static_cast<BinaryOp>(n.code)) {
      case BinaryOp::kAdd:
        if (n.needs(0)) out.set(0, g.alias());
        if (n.needs(1)) out.set(1, g.alias());
        return;
      case BinaryOp::kSub:
        if (n.needs(0)) out.set(0, g.alias());
        if (n.needs(1)) out.set(1, g.neg());
        return;
      case BinaryOp::kMul:
        if (n.needs(0)) out.set(0, g.mul(*n.saved(1)));
        if (n.needs(1)) out.set(1, g.mul(*n.saved(0)));
        return;
      case BinaryOp::kDiv: {
        Temporary<T> b = n.saved(1);
        if (n.needs(0)) out.set(0, g.div(*b));
        if (n.needs(1)) {  // -g * a / b^2
          Temporary<T> a = n.saved(0);
          Temporary<T> ga = g.mul(*a);
          Temporary<T> bb = b->mul(*b);
          Temporary<T> q = ga->div(*bb);
          out.set(1, q->neg());
        }
        return;
      }
      case BinaryOp::kPow: {
        Temporary<T> a = n.saved(0);
        Temporary<T> b = n.saved(1);
        if (n.needs(0)) {  // g * b * a^(b-1)
          Temporary<T> bm1 = b->sub(1.0);
          Temporary<T> p = a->pow(*bm1);
          Temporary<T> d = p->mul(*b);
          out.set(0, g.mul(*d));
        }
        if (n.needs(1)) {  // g * a^b * log(a)
          Temporary<T> y = n.saved(2);
          Temporary<T> la = a->log();
          Temporary<T> d = y->mul(*la);
          out.set(1, g.mul(*d));
        }
        return;
      }
      default: {  // maximum, minimum: the larger (smaller) operand, half each on ties
        const bool is_max = static_cast<BinaryOp>(n.code) == BinaryOp::kMaximum;
        Temporary<T> a = n.saved(0);
        Temporary<T> b = n.saved(1);
        Temporary<T> wins = is_max ? a->gt(*b) : a->lt(*b);
        Temporary<T> ties = a->eq(*b);
        Temporary<T> wf = wins->to(g.scalar_type());
        Temporary<T> tf = ties->to(g.scalar_type());
        Temporary<T> half = tf->mul(0.5);
        Temporary<T> wa = wf->add(*half);
        if (n.needs(0)) out.set(0, g.mul(*wa));
        if (n.needs(1)) {
          Temporary<T> wb = 1.0 - *wa;
          out.set(1, g.mul(*wb));
        }
        return;
      }
    }
  }

  static void binary_scalar(BinaryOp code, const TensorImpl& a, const Scalar& s, bool scalar_first,
                            const TensorImpl& out) {
    if (is_comparison(code)) return;
    N* n = make(op_name(code), binary_scalar_backward, {&a}, out);
    if (n == nullptr) return;
    n->code = static_cast<int>(code);
    n->scalar = s.to_double();
    n->flag = scalar_first;
    switch (code) {
      case BinaryOp::kAdd:
      case BinaryOp::kSub:
      case BinaryOp::kMul:
        break;
      case BinaryOp::kDiv:
        if (scalar_first) n->save(0, a);
        break;
      case BinaryOp::kPow:
        if (scalar_first) {
          n->save_output(0, out);
        } else {
          n->save(0, a);
        }
        break;
      default:  // maximum, minimum
        n->save(0, a);
        break;
    }
  }

  static void binary_scalar_backward(N& n, const T& g, G& out) {
    const double s = n.scalar;
    switch (static_cast<BinaryOp>(n.code)) {
      case BinaryOp::kAdd:
        out.set(0, g.alias());
        return;
      case BinaryOp::kSub:
        out.set(0, n.flag ? g.neg() : g.alias());
        return;
      case BinaryOp::kMul:
        out.set(0, g.mul(s));
        return;
      case BinaryOp::kDiv:
        if (!n.flag) {
          out.set(0, g.div(s));
        } else {  // d(s/a) = -s * g / a^2
          Temporary<T> a = n.saved(0);
          Temporary<T> aa = a->mul(*a);
          Temporary<T> q = g.div(*aa);
          out.set(0, q->mul(-s));
        }
        return;
      case BinaryOp::kPow:
        if (!n.flag) {  // d(a^s) = g * s * a^(s-1)
          Temporary<T> a = n.saved(0);
          Temporary<T> p = a->pow(s - 1.0);
          Temporary<T> d = p->mul(s);
          out.set(0, g.mul(*d));
        } else {  // d(s^a) = g * s^a * log(s)
          Temporary<T> y = n.saved(0);
          Temporary<T> d = y->mul(std::log(s));
          out.set(0, g.mul(*d));
        }
        return;
      default: {
        const bool is_max = static_cast<BinaryOp>(n.code) == BinaryOp::kMaximum;
        Temporary<T> a = n.saved(0);
        Temporary<T> wins = is_max ? a->gt(s) : a->lt(s);
        Temporary<T> ties = a->eq(s);
        Temporary<T> wf = wins->to(g.scalar_type());
        Temporary<T> tf = ties->to(g.scalar_type());
        Temporary<T> half = tf->mul(0.5);
        Temporary<T> w = wf->add(*half);
        out.set(0, g.mul(*w));
        return;
      }
    }
  }

  static void unary(UnaryOp code, const TensorImpl& a, const TensorImpl& out) {
    N* n = make(op_name(code), unary_backward, {&a}, out);
    if (n == nullptr) return;
    n->code = static_cast<int>(code);
    switch (code) {
      case UnaryOp::kNeg:
        break;
      case UnaryOp::kExp:
      case UnaryOp::kSqrt:
      case UnaryOp::kRsqrt:
      case UnaryOp::kTanh:
      case UnaryOp::kSigmoid:
      case UnaryOp::kRelu:
        n->save_output(0, out);
        break;
      default:  // abs, log, gelu, silu, sin, cos
        n->save(0, a);
        break;
    }
  }

  static void unary_backward(N& n, const T& g, G& out) {
    const ScalarType dt = g.scalar_type();
    switch (static_cast<UnaryOp>(n.code)) {
      case UnaryOp::kNeg:
        out.set(0, g.neg());
        return;
      case UnaryOp::kAbs: {  // g * sign(a)
        Temporary<T> a = n.saved(0);
        Temporary<T> pos = a->gt(0.0);
        Temporary<T> neg = a->lt(0.0);
        Temporary<T> pf = pos->to(dt);
        Temporary<T> nf = neg->to(dt);
        Temporary<T> sign = pf->sub(*nf);
        out.set(0, g.mul(*sign));
        return;
      }
      case UnaryOp::kExp: {
        Temporary<T> y = n.saved(0);
        out.set(0, g.mul(*y));
        return;
      }
      case UnaryOp::kLog: {
        Temporary<T> a = n.saved(0);
        out.set(0, g.div(*a));
        return;
      }
      case UnaryOp::kSqrt: {  // g / (2 sqrt(a))
        Temporary<T> y = n.saved(0);
        Temporary<T> q = g.div(*y);
        out.set(0, q->mul(0.5));
        return;
      }
      case UnaryOp::kRsqrt: {  // -g * y^3 / 2
        Temporary<T> y = n.saved(0);
        Temporary<T> y2 = y->mul(*y);
        Temporary<T> y3 = y2->mul(*y);
        Temporary<T> d = y3->mul(-0.5);
        out.set(0, g.mul(*d));
        return;
      }
      case UnaryOp::kTanh: {  // g * (1 - y^2)
        Temporary<T> y = n.saved(0);
        Temporary<T> y2 = y->mul(*y);
        Temporary<T> d = 1.0 - *y2;
        out.set(0, g.mul(*d));
        return;
      }
      case UnaryOp::kSigmoid: {  // g * y * (1 - y)
        Temporary<T> y = n.saved(0);
        Temporary<T> c = 1.0 - *y;
        Temporary<T> d = y->mul(*c);
        out.set(0, g.mul(*d));
        return;
      }
      case UnaryOp::kRelu: {  // g where y > 0, else 0; y given back once the mask is made
        Temporary<T> mask = [&] {
          Temporary<T> y = n.last_use(0);
          return y->gt(0.0);
        }();
        Temporary<T> zero = T::scalar(0.0, dt);
        out.set(0, custody::where(*mask, g, *zero));
        return;
      }
      case UnaryOp::kSilu: {  // g * s * (1 + a * (1 - s)), s = sigmoid(a)
        Temporary<T> a = n.saved(0);
        Temporary<T> s = a->sigmoid();
        Temporary<T> c = 1.0 - *s;
        Temporary<T> ac = a->mul(*c);
        Temporary<T> e = ac->add(1.0);
        Temporary<T> d = s->mul(*e);
        out.set(0, g.mul(*d));
        return;
      }
      case UnaryOp::kSin: {
        Temporary<T> a = n.saved(0);
        Temporary<T> c = a->cos();
        out.set(0, g.mul(*c));
        return;
      }
      case UnaryOp::kCos: {
        Temporary<T> a = n.saved(0);
        Temporary<T> s = a->sin();
        Temporary<T> d = s->neg();
        out.set(0, g.mul(*d));
        return;
      }
      case UnaryOp::kGelu: {  // g * (Φ(a) + a φ(a)), Φ and φ the standard normal's cdf and density
        // Φ(a) = gelu(a) / a (1/2 at 0: op set v1 has no erf), divided by 1
        // where a is 0 so that a double backward sees no 0/0 in the branch not taken.
        Temporary<T> a = n.saved(0);
        Temporary<T> at_zero = a->eq(0.0);
        Temporary<T> one = T::scalar(1.0, dt);
        Temporary<T> half = T::scalar(0.5, dt);
        Temporary<T> safe = custody::where(*at_zero, *one, *a);
        Temporary<T> y = a->gelu();
        Temporary<T> q = y->div(*safe);
        Temporary<T> cdf = custody::where(*at_zero, *half, *q);
        Temporary<T> a2 = a->mul(*a);
        Temporary<T> e = a2->mul(-0.5);
        Temporary<T> ex = e->exp();
        Temporary<T> pdf = ex->mul(0.39894228040143267794);  // 1 / sqrt(2π)
        Temporary<T> apdf = a->mul(*pdf);
        Temporary<T> d = cdf->add(*apdf);
        out.set(0, g.mul(*d));
        return;
      }
    }
  }

  // ---- reductions --------------------------------------------------------------

  // The sizes of the input with every reduced dim kept as 1.
  static Dims kept_sizes(const N& n) {
    Dims s = n.inputs[0].sizes;
    for (int64_t d : n.dims) s[static_cast<size_t>(d)] = 1;
    return s;
  }

  static void reduce(ReduceOp code, const TensorImpl& a, IntSpan dims, bool keepdim,
                     const TensorImpl& out) {
    if (code == ReduceOp::kArgMax || code == ReduceOp::kArgMin) return;
    N* n = make(op_name(code), reduce_backward, {&a}, out);
    if (n == nullptr) return;
    n->code = static_cast<int>(code);
    n->flag = keepdim;
    if (dims.empty()) {
      for (int64_t d = 0; d < a.dim(); ++d) n->dims.push_back(d);
    } else {
      for (int64_t d : dims) n->dims.push_back(wrap(d, a.dim(), op_name(code)));
    }
    if (code == ReduceOp::kMax || code == ReduceOp::kMin) {
      n->save(0, a);
      n->save_output(1, out);
    }
  }

  static void reduce_backward(N& n, const T& g, G& out) {
    const Dims kept = kept_sizes(n);
    const Dims& in = n.inputs[0].sizes;
    Temporary<T> gk = g.reshape(IntSpan(kept.data(), kept.size()));
    switch (static_cast<ReduceOp>(n.code)) {
      case ReduceOp::kSum:
        out.set(0, gk->expand(IntSpan(in.data(), in.size())));
        return;
      case ReduceOp::kMean: {
        int64_t count = 1;
        for (int64_t d : n.dims) count *= in[static_cast<size_t>(d)];
        Temporary<T> e = gk->expand(IntSpan(in.data(), in.size()));
        out.set(0, e->div(static_cast<double>(count)));
        return;
      }
      default: {  // max, min: evenly among the elements equal to the result
        Temporary<T> a = n.saved(0);
        Temporary<T> y = n.saved(1);
        Temporary<T> yk = y->reshape(IntSpan(kept.data(), kept.size()));
        Temporary<T> hit = a->eq(*yk);
        Temporary<T> mask = hit->to(g.scalar_type());
        Temporary<T> count = mask->sum(IntSpan(n.dims.data(), n.dims.size()), /*keepdim=*/true);
        Temporary<T> share = gk->div(*count);
        out.set(0, mask->mul(*share));
        return;
      }
    }
  }

  static void softmax(const TensorImpl& a, int64_t dim, bool log, const TensorImpl& out) {
    N* n = make(log ? "log_softmax" : "softmax", softmax_backward, {&a}, out);
    if (n == nullptr) return;
    n->i0 = wrap(dim, a.dim(), log ? "log_softmax" : "softmax");
    n->flag = log;
    n->save_output(0, out);
  }

  static void softmax_backward(N& n, const T& g, G& out) {
    const int64_t dim = n.i0;
    if (n.flag) {  // g - exp(y) * sum(g)
      Temporary<T> p = [&] {
        Temporary<T> y = n.last_use(0);
        return y->exp();
      }();
      Temporary<T> s = g.sum(dim, /*keepdim=*/true);
      Temporary<T> ps = p->mul(*s);
      out.set(0, g.sub(*ps));
    } else {  // y * (g - sum(g * y))
      Temporary<T> y = n.last_use(0);
      Temporary<T> gy = g.mul(*y);
      Temporary<T> s = gy->sum(dim, /*keepdim=*/true);
      Temporary<T> d = g.sub(*s);
      out.set(0, y->mul(*d));
    }
  }

  // ---- matmul --------------------------------------------------------------------

  static void matmul(const TensorImpl& a, const TensorImpl& b, const TensorImpl& out) {
    N* n = make("matmul", matmul_backward, {&a, &b}, out);
    if (n == nullptr) return;
    if (n->needs(1)) n->save(0, a);
    if (n->needs(0)) n->save(1, b);
  }

  // With 1-D operands read as [1, k] and [k, 1] (their dims removed from the
  // result), dA = G @ B^T and dB = A^T @ G, summed over broadcast batch dims.
  static void matmul_backward(N& n, const T& g, G& out) {
    const bool a1 = n.inputs[0].sizes.size() == 1;
    const bool b1 = n.inputs[1].sizes.size() == 1;
    Dims gs(g.sizes().begin(), g.sizes().end());
    if (b1) gs.push_back(1);
    if (a1) gs.insert(gs.end() - 1, 1);
    Temporary<T> gm = g.reshape(IntSpan(gs.data(), gs.size()));
    if (n.needs(0)) {
      Temporary<T> b = n.last_use(1);
      Temporary<T> bm = b1 ? b->unsqueeze(1) : b->alias();
      Temporary<T> bt = bm->transpose(-2, -1);
      Temporary<T> r = gm->matmul(*bt);
      out.set(0, a1 ? r->squeeze(-2) : r->alias());
    }
    if (n.needs(1)) {
      Temporary<T> a = n.last_use(0);
      Temporary<T> am = a1 ? a->unsqueeze(0) : a->alias();
      Temporary<T> at = am->transpose(-2, -1);
      Temporary<T> r = at->matmul(*gm);
      out.set(1, b1 ? r->squeeze(-1) : r->alias());
    }
  }

  // ---- views, copies and conversions --------------------------------------------

  // reshape, view, flatten, squeeze, unsqueeze: the gradient in the input's shape.
  static void reshape(const char* op, const TensorImpl& a, const TensorImpl& out) {
    make(op, reshape_backward, {&a}, out);
  }
  static void reshape_backward(N& n, const T& g, G& out) {
    const Dims& in = n.inputs[0].sizes;
    out.set(0, g.reshape(IntSpan(in.data(), in.size())));
  }

  // clone, contiguous, to(dtype), expand: the gradient as it comes (Grads::set
  // casts it back to the input's dtype and sums a broadcast away).
  static void identity(const char* op, const TensorImpl& a, const TensorImpl& out) {
    make(op, identity_backward, {&a}, out);
  }
  static void identity_backward(N&, const T& g, G& out) { out.set(0, g.alias()); }

  static void transpose(const char* op, const TensorImpl& a, int64_t d0, int64_t d1,
                        const TensorImpl& out) {
    N* n = make(op, transpose_backward, {&a}, out);
    if (n == nullptr) return;
    n->i0 = d0;
    n->i1 = d1;
  }
  static void transpose_backward(N& n, const T& g, G& out) { out.set(0, g.transpose(n.i0, n.i1)); }

  static void permute(const TensorImpl& a, IntSpan dims, const TensorImpl& out) {
    N* n = make("permute", permute_backward, {&a}, out);
    if (n == nullptr) return;
    n->dims.assign(dims.size(), 0);
    for (size_t i = 0; i < dims.size(); ++i) {
      n->dims[static_cast<size_t>(wrap(dims[i], a.dim(), "permute"))] = static_cast<int64_t>(i);
    }
  }
  static void permute_backward(N& n, const T& g, G& out) {
    out.set(0, g.permute(IntSpan(n.dims.data(), n.dims.size())));
  }

  // narrow and select: the gradient placed in zeros of the input's shape.
  static void narrow(const char* op, const TensorImpl& a, int64_t dim, int64_t start, int64_t length,
                     bool squeezed, const TensorImpl& out) {
    N* n = make(op, narrow_backward, {&a}, out);
    if (n == nullptr) return;
    n->i0 = wrap(dim, a.dim(), op);
    const int64_t size = a.size(n->i0);
    n->i1 = start < 0 ? start + size : start;
    n->scalar = static_cast<double>(length);
    n->flag = squeezed;
  }
  static void narrow_backward(N& n, const T& g, G& out) {
    const int64_t dim = n.i0, start = n.i1, length = static_cast<int64_t>(n.scalar);
    const Dims& in = n.inputs[0].sizes;
    Temporary<T> gg = n.flag ? g.unsqueeze(dim) : g.alias();
    HandleVector<T> parts;
    const auto zeros = [&](int64_t len) {
      Dims s = in;
      s[static_cast<size_t>(dim)] = len;
      return T::zeros(IntSpan(s.data(), s.size()), g.scalar_type());
    };
    struct Release {
      HandleVector<T>& v;
      ~Release() {
        for (T& t : v) t.release();
      }
    } release{parts};
    if (start > 0) parts.push_back(zeros(start));
    parts.push_back(gg->alias());
    const int64_t after = in[static_cast<size_t>(dim)] - start - length;
    if (after > 0) parts.push_back(zeros(after));
    out.set(0, custody::cat(parts, dim));
  }

  static void cat(const std::vector<const TensorImpl*>& inputs, int64_t dim, const TensorImpl& out) {
    N* n = make("cat", cat_backward, inputs, out);
    if (n == nullptr) return;
    n->i0 = wrap(dim, out.dim(), "cat");
  }
  static void cat_backward(N& n, const T& g, G& out) {
    const int64_t dim = n.i0;
    int64_t offset = 0;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const Dims& s = n.inputs[i].sizes;
      if (static_cast<int64_t>(s.size()) != g.dim()) continue;  // a legacy empty [0] input
      const int64_t len = s[static_cast<size_t>(dim)];
      if (n.needs(i)) out.set(i, g.narrow(dim, offset, len));
      offset += len;
    }
  }

  static void where(const TensorImpl& cond, const TensorImpl& a, const TensorImpl& b,
                    const TensorImpl& out) {
    N* n = make("where", where_backward, {&a, &b}, out);
    if (n == nullptr) return;
    n->save(0, cond);
  }
  static void where_backward(N& n, const T& g, G& out) {
    Temporary<T> cond = n.saved(0);
    Temporary<T> zero = T::scalar(0.0, g.scalar_type());
    if (n.needs(0)) out.set(0, custody::where(*cond, g, *zero));
    if (n.needs(1)) out.set(1, custody::where(*cond, *zero, g));
  }

  // One-hot rows of `index` over `classes` columns, in `dtype`: [index.numel(), classes].
  static T one_hot(const T& index, int64_t classes, ScalarType dtype) {
    Temporary<T> flat = index.reshape({-1, 1});
    Temporary<T> range = T::arange(Scalar(classes), index.scalar_type());
    Temporary<T> hit = flat->eq(*range);
    return hit->to(dtype);
  }

  static void index_select(const TensorImpl& a, int64_t dim, const TensorImpl& index,
                           const TensorImpl& out) {
    N* n = make("index_select", index_select_backward, {&a, &index}, out);
    if (n == nullptr) return;
    n->i0 = wrap(dim, a.dim(), "index_select");
    n->save(0, index);
  }
  // The gradient rows summed into the rows they were selected from: one-hot(index)^T @ g,
  // along `dim` moved to the front.
  static void index_select_backward(N& n, const T& g, G& out) {
    if (!n.needs(0)) return;
    const int64_t dim = n.i0;
    Dims in = n.inputs[0].sizes;
    Temporary<T> index = n.saved(0);
    Temporary<T> oh = one_hot(*index, in[static_cast<size_t>(dim)], g.scalar_type());
    Temporary<T> oht = oh->t();
    Temporary<T> gt = g.transpose(0, dim);
    Temporary<T> gm = gt->reshape({gt->size(0), -1});
    Temporary<T> r = oht->matmul(*gm);
    std::swap(in[0], in[static_cast<size_t>(dim)]);
    Temporary<T> rs = r->reshape(IntSpan(in.data(), in.size()));
    out.set(0, rs->transpose(0, dim));
  }

  static void embedding(const TensorImpl& weight, const TensorImpl& indices, const TensorImpl& out) {
    N* n = make("embedding", embedding_backward, {&weight, &indices}, out);
    if (n == nullptr) return;
    n->save(0, indices);
  }
  static void embedding_backward(N& n, const T& g, G& out) {
    if (!n.needs(0)) return;
    const Dims& w = n.inputs[0].sizes;
    Temporary<T> indices = n.saved(0);
    Temporary<T> oh = one_hot(*indices, w[0], g.scalar_type());
    Temporary<T> oht = oh->t();
    Temporary<T> gm = g.reshape({-1, w[1]});
    out.set(0, oht->matmul(*gm));
  }
};

}  // namespace custody::autograd::internal

#endif  // CUSTODY_CORE_AUTOGRAD_FUNCTIONS_H_
