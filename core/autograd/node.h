// Copyright 2026 The custody Authors.
//
// core/autograd/node.h — `FnNode<T>`, a recorded op whose backward formula is
// written with the tracked ops of T = BasicTensor<Policy, Backend>, and
// `Grads<T>`, where a formula puts the gradient of each forward input.
// Included at the end of core/tensor.h.
//
//   // mul's backward: d(a*b)/da = g*b, d(a*b)/db = g*a
//   static void mul(FnNode<T>& n, const T& g, Grads<T>& out) {
//     if (n.needs(0)) out.set(0, g.mul(*n.saved(1)));
//     if (n.needs(1)) out.set(1, g.mul(*n.saved(0)));
//   }
//
// `Grads::set` casts a gradient to its input's dtype and sums it down to the
// input's shape (the broadcast's backward), so formulas never do either.

#ifndef CUSTODY_CORE_AUTOGRAD_NODE_H_
#define CUSTODY_CORE_AUTOGRAD_NODE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/autograd/meta.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/shape.h"
#include "core/stats.h"
#include "core/temporary.h"

namespace custody::autograd::internal {

template <class T>
class FnNode;

// `g` summed over the dims it was broadcast along to reach `g`'s shape from
// `sizes` (leading dims, and dims of size 1 in `sizes`), reshaped to `sizes`.
template <class T>
T sum_to(const T& g, IntSpan sizes) {
  const int64_t lead = g.dim() - static_cast<int64_t>(sizes.size());
  Dims dims;
  for (int64_t d = 0; d < g.dim(); ++d) {
    if (d < lead || (sizes[static_cast<size_t>(d - lead)] == 1 && g.size(d) != 1)) dims.push_back(d);
  }
  if (dims.empty()) return g.reshape(sizes);
  Temporary<T> s = g.sum(IntSpan(dims.data(), dims.size()), /*keepdim=*/true);
  return s->reshape(sizes);
}

template <class T>
class Grads {
 public:
  explicit Grads(const FnNode<T>& node) : node_(node), out_(node.next.size()) {}

  // The gradient of forward input `i`; given back at once if nothing needs it.
  void set(size_t i, T g);
  std::vector<ImplRef> take() { return std::move(out_); }

 private:
  const FnNode<T>& node_;
  std::vector<ImplRef> out_;
};

template <class T>
class FnNode final : public Node {
 public:
  using Formula = void (*)(FnNode& node, const T& grad, Grads<T>& out);

  struct Input {
    Dims sizes;
    ScalarType dtype;
  };

  FnNode(const char* name, Formula formula) : name_(name), formula_(formula) {
    sequence = next_sequence();
  }

  const char* name() const override { return name_; }

  std::vector<ImplRef> apply(const ImplRef& grad_output) override {
    Temporary<T> g = T::adopt(grad_output);
    Grads<T> out(*this);
    formula_(*this, *g, out);
    return out.take();
  }

  ~FnNode() override {
    const HeldBy held("the autograd node", nullptr, nullptr, name_);  // Note [Held by], core/stats.h
    saved_.clear();
  }

  void release_saved() override {
    const HeldBy held("the autograd node", nullptr, nullptr, name_);
    saved_.clear();
    released_ = true;
  }

  // ---- recording ----
  void add_input(const TensorImpl& t) {
    next.push_back(edge_of(t));
    inputs.push_back(Input{Dims(t.sizes().begin(), t.sizes().end()), t.scalar_type()});
  }
  // Saves `t` (an input) in `slot` for backward, with its version now. An
  // input in a graph is saved as a view without meta, with its edge (Note
  // [The graph never holds a tensor that has meta], core/autograd/meta.h).
  void save(size_t slot, const TensorImpl& t) {
    if (t.autograd_meta() == nullptr) {
      put(slot, custody::internal::retain(t), /*output=*/false);
    } else {
      put(slot, shallow_view(t), /*output=*/false, edge_of(t));
    }
  }
  // Saves the op's output (Note [Saved outputs]).
  void save_output(size_t slot, const TensorImpl& out) {
    put(slot, shallow_view(out), /*output=*/true);
  }

  // ---- backward ----
  bool needs(size_t i) const { return i < next.size() && next[i].valid(); }
  // The tensor saved in `slot`, as a handle of T given back at the end of the
  // caller's statement block. A LifetimeError once the node gave its saved
  // tensors back, InvalidArgument when the tensor changed in place since.
  Temporary<T> saved(size_t slot) {
    if (released_) [[unlikely]] throw_released();
    const Saved& s = saved_.at(slot);
    if (!s.impl) [[unlikely]] throw_released();  // given back by last_use in a backward that then threw
    const TensorImpl& t = *s.impl;
    if (t.storage()->version() != s.version) [[unlikely]] throw_modified(slot, t, s.version);
    if (is_grad_enabled() && (s.output || s.input.valid())) {
      // create_graph: the output, connected to this node again; an input,
      // connected to where its gradient went (its node, or its leaf's accumulator).
      ImplRef v = shallow_view(t);
      AutogradMeta& m = v->ensure_autograd_meta();
      m.requires_grad = true;
      if (s.output) {
        m.grad_fn = Ref<Node>::Retain(this);
      } else {
        m.grad_fn = s.input.fn;
        m.accumulator = s.input.leaf;
      }
      return Temporary<T>(T::adopt(std::move(v)));
    }
    return Temporary<T>(T::adopt(s.impl));
  }

  // As saved(slot), for the formula's last read of the slot: when this
  // backward gives the saved tensors back after the node runs, the node's
  // reference goes now, so the tensor is freed when the returned handle goes
  // rather than when the node returns (peak memory during backward).
  Temporary<T> last_use(size_t slot) {
    T t = saved(slot).take();
    Saved& s = saved_[slot];
    if (give_back_at_last_use && !(s.output && is_grad_enabled())) s.impl.reset();
    return Temporary<T>(std::move(t));
  }

  std::vector<Input> inputs;  // one per forward input
  // The op's arguments a formula needs.
  Dims dims;
  int64_t i0 = 0, i1 = 0;
  double scalar = 0;
  bool flag = false;
  int code = 0;

 private:
  struct Saved {
    ImplRef impl;
    uint64_t version = 0;
    bool output = false;
    Edge input;  // an input in a graph: where its gradient goes
  };

  void put(size_t slot, ImplRef r, bool output, Edge input = {}) {
    if (saved_.size() <= slot) saved_.resize(slot + 1);
    const uint64_t v = r->storage()->version();
    r->storage()->note_saved(name_);
    saved_[slot] = Saved{std::move(r), v, output, std::move(input)};
  }

  [[noreturn, gnu::cold]] void throw_released() const {
    throw LifetimeError(absl::StrFormat(
        "backward through %s: the tensors it saved for backward were already given back, after "
        "the first backward through this graph; pass retain_graph=true to the first backward to "
        "backward a graph twice",
        name_));
  }
  [[noreturn, gnu::cold]] void throw_modified(size_t slot, const TensorImpl& t, uint64_t expected) const {
    throw InvalidArgument(absl::StrFormat(
        "backward through %s: one of the variables needed for gradient computation has been "
        "modified by an inplace operation: the %s saved by %s (%s %s) is at version %d; expected "
        "version %d",
        name_, saved_[slot].output ? "output" : "input", name_, dtype_name(t.scalar_type()),
        shape_str(t.sizes()), t.storage()->version(), expected));
  }

  const char* name_;
  Formula formula_;
  std::vector<Saved> saved_;
  bool released_ = false;
};

template <class T>
void Grads<T>::set(size_t i, T g) {
  Temporary<T> cur = std::move(g);
  if (!node_.needs(i)) return;
  const auto& in = node_.inputs[i];
  if (cur->scalar_type() != in.dtype) cur.reset(cur->to(in.dtype));
  if (!std::equal(cur->sizes().begin(), cur->sizes().end(), in.sizes.begin(), in.sizes.end())) {
    cur.reset(sum_to(*cur, IntSpan(in.sizes.data(), in.sizes.size())));
  }
  out_[i] = custody::internal::retain(cur->impl());
}

}  // namespace custody::autograd::internal

#endif  // CUSTODY_CORE_AUTOGRAD_NODE_H_
