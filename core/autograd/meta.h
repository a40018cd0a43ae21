// Copyright 2026 The custody Authors.
//
// core/autograd/meta.h — what autograd keeps on a tensor and in a graph,
// independent of any policy or backend: grad mode, the graph's nodes and
// edges, and `AutogradMeta`, the record a TensorImpl carries once it requires
// grad (docs/autograd.md §2).
//
// Note [The graph holds core references]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A node holds what it saved as core references (`ImplRef`), never as a
// policy's handle: a reference the graph owns, in no dispose scope, no ledger
// and no collector's heap. So under every policy a saved tensor outlives the
// user's handles to it (dispose: the user may dispose the input; scope: the
// scope may end), and the graph gives it back itself, right after the node's
// backward runs (unless retain_graph) or when the node dies. What a policy
// decides is when the handles to a graph's *outputs* go — the graph lives
// exactly as long as some output's TensorImpl does (its meta holds the node
// that made it) — and how the gradients it hands out are owned: `grad()`
// adopts a fresh reference as a handle of the caller's policy (a shared
// TensorPtr, a new dispose alias, an entry of the current scope, a +1 of
// manual's ledger, a gc alias). Each policy's header says, in its Note on
// autograd, what that means for its users.
//
// Note [The graph never holds a tensor that has meta]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// backward(create_graph=true) stores in a leaf a gradient whose graph reaches
// the leaf again: w -> w.grad -> its node -> (an edge to w, or w saved for
// backward) -> w. Were those references strong, no reference count would
// free the cycle once the user lets w go (pytorch/pytorch #4661, #82528;
// TorchSharp's `t.grad = t`), under any policy, and a collector would not see
// it either (the references are not in its heap). So nothing in a graph holds
// a TensorImpl that carries meta: an edge to a leaf holds the leaf's
// `GradAccumulator`, which does not keep the leaf alive (a gradient for a leaf
// already gone is dropped: nobody can read it), and a node saves an input
// that has meta as a view without meta over the same Storage (the version
// check still sees in-place changes), with the input's edge to reconnect it
// when create_graph reads it. Nodes only reach nodes made before them, and
// views without meta reach nothing, so a graph has no cycle and the last
// handle to a leaf frees it, its gradient and that gradient's graph, under
// every policy.
//
// Note [Saved outputs]
// ~~~~~~~~~~~~~~~~~~~~
// A node that saves its own output (exp, tanh, softmax) would form a cycle
// output -> meta -> node -> output. As PyTorch's SavedVariable does for
// outputs, it saves a view of the output's data without meta (a new
// TensorImpl over the same Storage, so the version check still sees in-place
// changes), and reconnects a fresh view to itself when create_graph reads it.

#ifndef CUSTODY_CORE_AUTOGRAD_META_H_
#define CUSTODY_CORE_AUTOGRAD_META_H_

#include <atomic>
#include <cstdint>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "core/refcount.h"
#include "core/tensor_impl.h"

namespace custody {

namespace autograd::internal {
inline thread_local bool tl_grad_enabled = true;
}  // namespace autograd::internal

// Whether ops on this thread record a graph (PyTorch's GradMode).
inline bool is_grad_enabled() { return autograd::internal::tl_grad_enabled; }
inline void set_grad_enabled(bool on) { autograd::internal::tl_grad_enabled = on; }

// RAII: grad mode set to `enabled` on this thread for the guard's life, then
// restored (at::AutoGradMode).
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : previous_(is_grad_enabled()) { set_grad_enabled(enabled); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;
  ~AutoGradMode() { set_grad_enabled(previous_); }

 private:
  bool previous_;
};

// RAII: no graph is recorded on this thread while it lives (at::NoGradGuard):
// ops on tensors that require grad give plain results, and in-place updates
// of parameters are allowed.
class NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() : AutoGradMode(false) {}
};

namespace autograd::internal {

class Node;

// What an edge to a leaf holds: a reference to the leaf that does not keep it
// alive (Note [The graph never holds a tensor that has meta]). Made by
// requires_grad_(true), owned by the leaf's meta and by every edge to the
// leaf; the leaf's destruction forgets it.
class GradAccumulator final : public RefCounted {
 public:
  explicit GradAccumulator(const TensorImpl* leaf) : leaf_(leaf) {}
  static void Destroy(GradAccumulator* a) { delete a; }

  // The leaf, as a new reference; null once it is gone or going.
  ImplRef lock() const {
    absl::MutexLock l(&mu_);
    if (leaf_ == nullptr || !leaf_->try_retain()) return nullptr;
    return ImplRef(kAdopt, const_cast<TensorImpl*>(leaf_));
  }
  // The leaf's address, to compare with tensors the caller holds (autograd::grad's inputs).
  const TensorImpl* address() const {
    absl::MutexLock l(&mu_);
    return leaf_;
  }
  // Called as `leaf` is destroyed (TensorImpl::reset_autograd_meta).
  void forget(const TensorImpl* leaf) {
    absl::MutexLock l(&mu_);
    if (leaf_ == leaf) leaf_ = nullptr;
  }

 private:
  mutable absl::Mutex mu_;
  const TensorImpl* leaf_ ABSL_GUARDED_BY(mu_);
};

// Where the gradient of one forward input goes: the node that made it, or the
// leaf it accumulates into, or nowhere (the input does not require grad).
struct Edge {
  Ref<Node> fn;
  Ref<GradAccumulator> leaf;
  bool valid() const { return fn || leaf; }
};

// One recorded op. Its backward takes the gradient of the op's output and
// returns one gradient per forward input (null where none flows).
class Node : public RefCounted {
 public:
  static void Destroy(Node* n) { delete n; }
  Node() { live_nodes_counter().fetch_add(1, std::memory_order_relaxed); }
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  virtual ~Node() { live_nodes_counter().fetch_sub(1, std::memory_order_relaxed); }
  static std::atomic<int64_t>& live_nodes_counter() {
    static std::atomic<int64_t> n{0};
    return n;
  }

  // The op's name ("mul", "matmul"), for errors and the report.
  virtual const char* name() const = 0;
  // Runs the op's backward. With `create_graph` (grad mode on), the formulas'
  // ops record the graph of the gradient itself.
  virtual std::vector<ImplRef> apply(const ImplRef& grad_output) = 0;
  // Gives back every saved tensor now (after backward without retain_graph).
  virtual void release_saved() = 0;

  std::vector<Edge> next;     // one per forward input
  uint64_t sequence = 0;      // creation order on its thread: later nodes run first
  // Set by the engine before apply(): this backward gives the saved tensors
  // back after the node runs (no retain_graph), so a formula's last read of
  // one may give it back at once (FnNode::last_use).
  bool give_back_at_last_use = false;
};

// What a TensorImpl carries once it requires grad: a leaf's flag and
// accumulated gradient, or the node that made a tracked output.
struct AutogradMeta {
  bool requires_grad = false;
  Ref<Node> grad_fn;  // null for a leaf
  ImplRef grad;       // a leaf's accumulated gradient (null before any backward)
  // A leaf's: where edges to it deliver. A leaf's view made by a saved input
  // under create_graph shares its leaf's (FnNode::saved).
  Ref<GradAccumulator> accumulator;
};

}  // namespace autograd::internal

namespace autograd {
// Graph nodes alive in this process, on every thread: what a graph nobody
// freed holds besides its saved tensors (the workloads' tests check that a
// run leaves none; the train workload's pathologies report it).
inline int64_t live_nodes() {
  return internal::Node::live_nodes_counter().load(std::memory_order_relaxed);
}
}  // namespace autograd

namespace autograd::internal {

inline bool requires_grad(const TensorImpl& t) {
  const AutogradMeta* m = t.autograd_meta();
  return m != nullptr && m->requires_grad;
}

// True when an op on these operands must record: one of them requires grad
// and grad mode is on. The meta pointers are read first: a plain tensor never
// reads the thread-local.
template <class... Impls>
inline bool wants_grad(const Impls&... in) {
  return ((in.autograd_meta() != nullptr) || ...) && (requires_grad(in) || ...) &&
         is_grad_enabled();
}

inline Edge edge_of(const TensorImpl& t) {
  AutogradMeta* m = t.autograd_meta();
  if (m == nullptr || !m->requires_grad) return {};
  if (m->grad_fn) return Edge{m->grad_fn, nullptr};
  // requires_grad_(true) made it; a leaf flagged some other way gets one here.
  if (!m->accumulator) m->accumulator = Ref<GradAccumulator>(kAdopt, new GradAccumulator(&t));
  return Edge{nullptr, m->accumulator};
}

// A new TensorImpl over `t`'s Storage with `t`'s sizes, strides and offset,
// and no meta (detach(), Note [Saved outputs]).
ImplRef shallow_view(const TensorImpl& t);

// A sequence number for a new node: creation order over every thread.
inline uint64_t next_sequence() {
  static std::atomic<uint64_t> n{0};
  return n.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace autograd::internal
}  // namespace custody

#endif  // CUSTODY_CORE_AUTOGRAD_META_H_
