// Copyright 2026 The custody Authors.
//
// core/autograd/engine.h — backward: one pass over the nodes reachable from
// the roots, in an order where every node runs after all the nodes that feed
// it a gradient (Kahn's algorithm; among ready nodes the latest made runs
// first, as PyTorch's engine orders by sequence number). Runs on the calling
// thread, which need not be the thread that ran the forward.
//
// After a node runs, and unless retain_graph, it gives its saved tensors back
// at once — a formula gives one back at its last read (FnNode::last_use) — so
// peak memory during backward follows what is still needed. An
// error thrown part way leaves nothing leaked (every gradient in flight is a
// core reference); the nodes that ran have given their saved tensors back, so
// a second backward through them is refused with a LifetimeError.

#ifndef CUSTODY_CORE_AUTOGRAD_ENGINE_H_
#define CUSTODY_CORE_AUTOGRAD_ENGINE_H_

#include <cstdint>
#include <queue>
#include <span>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "core/autograd/meta.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/policy_traits.h"
#include "core/stats.h"
#include "core/temporary.h"

namespace custody::autograd::internal {

struct Root {
  ImplRef tensor;
  ImplRef grad;
};

// Runs backward from `roots` (each with the gradient of its output) in T's
// policy and backend. Without `inputs`, accumulates into every leaf reached
// (Tensor::backward); with them, returns the gradient of each input instead
// and touches no leaf's grad (autograd::grad), null where none flowed.
template <class T>
std::vector<ImplRef> run_backward(std::vector<Root> roots, bool retain_graph, bool create_graph,
                                  std::span<const TensorImpl* const> inputs, const char* op) {
  [[maybe_unused]] typename PolicyTraits<typename T::policy_type>::Unscoped unscoped;
  AutoGradMode grad_mode(create_graph);
  const CategoryScope category(MemoryCategory::kGradient);
  const bool capture = !inputs.empty();

  const auto sum = [](const ImplRef& a, const ImplRef& b) {
    if (!a) return b;
    Temporary<T> x = T::adopt(a);
    Temporary<T> y = T::adopt(b);
    Temporary<T> s = x->add(*y);
    return custody::internal::retain(s->impl());
  };

  std::vector<ImplRef> captured(inputs.size());
  const auto input_index = [&](const TensorImpl* t) -> int64_t {
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i] == t) return static_cast<int64_t>(i);
    }
    return -1;
  };
  // Nodes whose incoming gradient is an input's gradient (a non-leaf input).
  absl::flat_hash_map<const Node*, int64_t> input_of_node;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const AutogradMeta* m = inputs[i]->autograd_meta();
    if (m == nullptr || !m->requires_grad) {
      throw InvalidArgument(absl::StrFormat(
          "%s: input %d (%s %s) does not require grad: nothing can flow to it", op, i,
          dtype_name(inputs[i]->scalar_type()), shape_str(inputs[i]->sizes())));
    }
    if (m->grad_fn) input_of_node.emplace(m->grad_fn.get(), static_cast<int64_t>(i));
  }

  const auto deliver_leaf = [&](const ImplRef& leaf, ImplRef g) {
    if (capture) {
      const int64_t i = input_index(leaf.get());
      if (i >= 0) captured[static_cast<size_t>(i)] = sum(captured[static_cast<size_t>(i)], g);
      return;
    }
    AutogradMeta& m = leaf->ensure_autograd_meta();
    if (!m.grad) {
      // Keep the gradient itself when nothing else refers to it or to its
      // memory; else a copy, so that accumulating in place never writes into
      // a tensor the user holds (a gradient passed to backward, or a view of it).
      if (g->use_count() == 1 && g->storage()->use_count() == 1 && g->is_contiguous()) {
        m.grad = std::move(g);
      } else {
        Temporary<T> x = T::adopt(std::move(g));
        Temporary<T> c = x->clone();
        m.grad = custody::internal::retain(c->impl());
      }
    } else if (create_graph || requires_grad(*m.grad)) {
      m.grad = sum(m.grad, g);
    } else {
      Temporary<T> acc = T::adopt(m.grad);
      Temporary<T> x = T::adopt(std::move(g));
      Temporary<T> r = acc->add_(*x);
    }
  };

  // Discovery: every node reachable from the roots, and how many edges feed it.
  absl::flat_hash_map<Node*, ImplRef> buffer;
  absl::flat_hash_map<Node*, int64_t> deps;
  std::vector<Node*> stack;
  for (size_t r = 0; r < roots.size(); ++r) {
    const TensorImpl& t = *roots[r].tensor;
    const AutogradMeta* m = t.autograd_meta();
    if (m == nullptr || !m->requires_grad) {
      throw InvalidArgument(absl::StrFormat(
          "%s: element %d of tensors (%s %s) does not require grad and does not have a grad_fn",
          op, r, dtype_name(t.scalar_type()), shape_str(t.sizes())));
    }
    if (!m->grad_fn) continue;
    Node* n = m->grad_fn.get();
    if (deps.emplace(n, 0).second) stack.push_back(n);
  }
  std::vector<Ref<Node>> keep;  // the graph stays alive while backward runs
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    keep.push_back(Ref<Node>::Retain(n));
    for (const Edge& e : n->next) {
      if (!e.fn) continue;
      auto [it, fresh] = deps.emplace(e.fn.get(), 0);
      ++it->second;
      if (fresh) stack.push_back(e.fn.get());
    }
  }
  // The roots' gradients.
  for (Root& r : roots) {
    const AutogradMeta* m = r.tensor->autograd_meta();
    if (m->grad_fn) {
      ImplRef& b = buffer[m->grad_fn.get()];
      b = sum(b, r.grad);
    } else {
      deliver_leaf(r.tensor, std::move(r.grad));
    }
  }

  // Kahn's order, latest node first among the ready ones.
  std::vector<Node*> order;
  order.reserve(deps.size());
  {
    absl::flat_hash_map<Node*, int64_t> left = deps;
    std::priority_queue<std::pair<uint64_t, Node*>> ready;
    for (const auto& [n, d] : left) {
      if (d == 0) ready.emplace(n->sequence, n);
    }
    while (!ready.empty()) {
      Node* n = ready.top().second;
      ready.pop();
      order.push_back(n);
      for (const Edge& e : n->next) {
        if (e.fn && --left[e.fn.get()] == 0) ready.emplace(e.fn->sequence, e.fn.get());
      }
    }
  }
  // With inputs: only the nodes from which an input can be reached run.
  absl::flat_hash_map<const Node*, bool> needed;
  if (capture) {
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const Node* n = *it;
      bool need = input_of_node.contains(n);
      for (const Edge& e : n->next) {
        if ((e.fn && needed[e.fn.get()]) || (e.leaf && input_index(e.leaf->address()) >= 0)) need = true;
      }
      needed[n] = need;
    }
  }

  for (Node* n : order) {
    auto found = buffer.find(n);
    if (found == buffer.end()) continue;  // no gradient reached it
    ImplRef g = std::move(found->second);
    buffer.erase(found);
    if (capture) {
      if (auto in = input_of_node.find(n); in != input_of_node.end()) {
        captured[static_cast<size_t>(in->second)] = sum(captured[static_cast<size_t>(in->second)], g);
      }
      if (!needed[n]) continue;
    }
    n->give_back_at_last_use = !retain_graph;
    std::vector<ImplRef> grads = n->apply(g);
    g.reset();
    if (!retain_graph) n->release_saved();
    for (size_t i = 0; i < grads.size() && i < n->next.size(); ++i) {
      if (!grads[i]) continue;
      const Edge& e = n->next[i];
      if (e.fn) {
        ImplRef& b = buffer[e.fn.get()];
        b = sum(b, grads[i]);
      } else if (e.leaf) {
        // A leaf already gone gets nothing: nobody can read its gradient.
        if (const ImplRef leaf = e.leaf->lock()) deliver_leaf(leaf, std::move(grads[i]));
      }
    }
  }
  return captured;
}

}  // namespace custody::autograd::internal

#endif  // CUSTODY_CORE_AUTOGRAD_ENGINE_H_
