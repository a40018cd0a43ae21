// Copyright 2026 The custody Authors.
//
// tests/fuzz/autograd_fuzz.h — the graph fuzzer (issue 48 item 6): `run_graph_program(data, size)`
// decodes bytes into a program of graph operations over kSlots handle slots and runs it, step by
// step, under one policy of ALL_POLICIES on one host backend, and on a small reference model of the
// values, the graph and the gradients. After EVERY step the real system must agree with the model,
// else the process aborts with the reason (libFuzzer reports a crash; the replay test fails).
//
// Which policy and backend. An input of `size` bytes runs on backend size % NB of the NB host
// backends, under policy (size / NB) % NP of the NP policies of custody::lists::AllPolicies, so the
// replay test (inputs of every length 0..255) covers every pair, and a corpus file keeps its meaning.
// The program runs inside the policy idiom's Region (a dispose scope under scope); every handle it
// replaces or drops it gives back with custody::release, so each policy frees deterministically (a
// collecting one after its collect()).
//
// Byte encoding: one opcode byte, then the operand bytes its op reads (0 past the end); at most
// kMaxSteps steps. Every tensor is float64 [3, 3]; `s(x)` = x % kSlots.
//   op % kNumOps:
//   0 LEAF     d k     slot d = from_vector(values by k); requires_grad_(k odd)
//   1 BINOP    d a b k slot d = a add / sub / mul b (k % 3), grad mode on: records when an operand
//                      requires grad; mul saves the operand the other's gradient needs
//   2 UNARY    d a k   slot d = neg / mul(0.5) / t() (a view) / detach() (k % 4) of slot a
//   3 NOGRAD   d a b k slot d = a add / mul b (k % 2) under NoGradGuard: records nothing
//   4 RELEASE  a       custody::release(slot a)
//   5 BACKWARD a k     slot a .sum().backward(retain_graph = k odd)
//   6 RESET    a       slot a .reset_grad()
//   7 INPLACE  a k     slot a .mul_(2) / add_(1) (k & 2), under NoGradGuard when k is odd: bumps the
//                      version of a's storage (what a saved view of it sees); in grad mode on a tensor
//                      that requires grad, refused with InvalidArgument
// Operands name slots in any state: using a released handle is on purpose (a LifetimeError).
//
// The model. Slots point at model tensors (a storage, transposed or not, requires_grad, the node that
// made it); storages hold values and a version; nodes hold their op, inputs, what they saved (values
// and versions) and a state (live, given back, or unknown after a backward that threw part way).
// BACKWARD predicts its outcome: InvalidArgument when the root does not require grad; else a
// LifetimeError when a node whose formula reads a saved tensor was given back by an earlier backward,
// an InvalidArgument when such a tensor changed in place since it was saved (either, when both); on
// success the model's own reverse pass gives each leaf's gradient. After every step, for each slot:
// valid exactly when the model says (else LifetimeError), its values and requires_grad() as the
// model's, and a leaf's grad() as the model's accumulated gradient (unless a backward that threw
// left it unknown, until reset_grad()). Whenever no slot holds a tensor, and at the end, the
// backend's live tensors and bytes and autograd::live_nodes() must be back at their baseline: a
// graph nobody can reach is gone, with everything it saved.

#ifndef CUSTODY_TESTS_FUZZ_AUTOGRAD_FUZZ_H_
#define CUSTODY_TESTS_FUZZ_AUTOGRAD_FUZZ_H_

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/policy_idiom.h"
#include "core/stats.h"
#include "core/temporary.h"
#include "core/tensor.h"
#include "custody/lists/all_host_backends.h"
#include "custody/lists/all_policies.h"
#include "custody/lists/type_list.h"

namespace custody::fuzz::graph {

using Backends = custody::lists::AllHostBackends;
using Policies = custody::lists::AllPolicies;
inline constexpr size_t kBackends = Backends::size;
inline constexpr size_t kPolicies = Policies::size;
inline constexpr int kSlots = 8;
inline constexpr int kMaxSteps = 64;
inline constexpr int kNumOps = 8;
inline constexpr int kN = 9;  // elements of a [3, 3] tensor
using Values = std::array<double, kN>;

// Steps and programs of this process, by policy: printed at exit and every 1,000,000th step.
struct Counts {
  int64_t steps = 0;
  std::array<int64_t, kPolicies> steps_under{};
};
inline Counts& counts() {
  static Counts c;
  return c;
}
inline void print_counts() {
  std::string by;
  const auto names = custody::lists::names_of(Policies{});
  for (size_t p = 0; p < kPolicies; ++p) {
    by += (p == 0 ? "" : ", ") + std::string(names[p]) + ": " + std::to_string(counts().steps_under[p]);
  }
  std::fprintf(stderr, "autograd fuzz: %lld steps (%s)\n", static_cast<long long>(counts().steps), by.c_str());
}
struct PrintAtExit {
  ~PrintAtExit() { print_counts(); }
};

struct Reader {
  const uint8_t* p;
  size_t n;
  size_t i = 0;
  bool done() const { return i >= n; }
  uint8_t next() { return i < n ? p[i++] : 0; }
  int slot() { return next() % kSlots; }
};

enum class Op { kAdd, kSub, kMul, kNeg, kHalf, kTranspose, kSum };
enum class NodeState { kLive, kGivenBack, kUnknown };

struct MStorage {
  Values v{};  // row-major, as made
  uint64_t version = 0;
};
struct MTensor {
  int storage = -1;
  bool transposed = false;
  bool requires_grad = false;
  int node = -1;  // the node that made it; -1 for a leaf (or a tensor that does not require grad)
  // A leaf that requires grad: its accumulated gradient, as the model computes it.
  bool has_grad = false;
  bool grad_known = true;
  Values grad{};
};
struct MNode {
  Op op = Op::kAdd;
  int in[2] = {-1, -1};
  int n_in = 1;
  bool reads[2] = {false, false};  // mul: whether the formula reads saved input i
  uint64_t saved_version[2] = {0, 0};
  int saved_storage[2] = {-1, -1};
  Values saved[2] = {};
  NodeState state = NodeState::kLive;
};

inline Values transpose(const Values& v) {
  Values r{};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) r[static_cast<size_t>(i * 3 + j)] = v[static_cast<size_t>(j * 3 + i)];
  }
  return r;
}

struct Model {
  std::vector<MStorage> storages;
  std::vector<MTensor> tensors;
  std::vector<MNode> nodes;
  std::array<int, kSlots> slot;
  Model() { slot.fill(-1); }

  Values values(int t) const {
    const MTensor& m = tensors[static_cast<size_t>(t)];
    const Values& v = storages[static_cast<size_t>(m.storage)].v;
    return m.transposed ? transpose(v) : v;
  }
  bool is_leaf_with_grad(int t) const {
    const MTensor& m = tensors[static_cast<size_t>(t)];
    return m.requires_grad && m.node < 0;
  }
  int new_storage(const Values& v) {
    storages.push_back(MStorage{v, 0});
    return static_cast<int>(storages.size()) - 1;
  }
  int new_tensor(int storage, bool transposed, bool requires_grad, int node) {
    tensors.push_back(MTensor{storage, transposed, requires_grad, node});
    return static_cast<int>(tensors.size()) - 1;
  }
  // Records `op` over `in` (tensors) when grad mode is on and an input requires grad.
  int record(Op op, std::initializer_list<int> in, bool grad_mode) {
    bool rg = false;
    for (int t : in) rg = rg || tensors[static_cast<size_t>(t)].requires_grad;
    if (!grad_mode || !rg) return -1;
    MNode n;
    n.op = op;
    n.n_in = 0;
    for (int t : in) n.in[n.n_in++] = t;
    if (op == Op::kMul) {
      for (int i = 0; i < 2; ++i) {
        const int other = n.in[1 - i];
        n.reads[i] = tensors[static_cast<size_t>(other)].requires_grad;  // read to give `other` its gradient
        const int t = n.in[i];
        n.saved_storage[i] = tensors[static_cast<size_t>(t)].storage;
        n.saved_version[i] = storages[static_cast<size_t>(n.saved_storage[i])].version;
        n.saved[i] = values(t);
      }
    }
    nodes.push_back(n);
    return static_cast<int>(nodes.size()) - 1;
  }
  // Every node reachable from tensor `t`'s, in decreasing order (a reverse topological order: a
  // node's inputs were made before it).
  std::vector<int> reachable(int t) const {
    std::vector<bool> seen(nodes.size(), false);
    std::vector<int> stack;
    if (tensors[static_cast<size_t>(t)].node >= 0) stack.push_back(tensors[static_cast<size_t>(t)].node);
    while (!stack.empty()) {
      const int n = stack.back();
      stack.pop_back();
      if (seen[static_cast<size_t>(n)]) continue;
      seen[static_cast<size_t>(n)] = true;
      const MNode& m = nodes[static_cast<size_t>(n)];
      for (int i = 0; i < m.n_in; ++i) {
        const int node = tensors[static_cast<size_t>(m.in[i])].node;
        if (node >= 0) stack.push_back(node);
      }
    }
    std::vector<int> out;
    for (size_t n = nodes.size(); n-- > 0;) {
      if (seen[n]) out.push_back(static_cast<int>(n));
    }
    return out;
  }
};

template <class P, class B>
class Program {
  using T = BasicTensor<P, B>;
  using Idiom = PolicyIdiom<P>;

 public:
  explicit Program(size_t policy_index) : policy_index_(policy_index) {
    slots_.resize(kSlots);
  }

  void run(Reader& in) {
    Idiom::collect();
    const StatsSnapshot base = B::stats().snapshot();
    const int64_t base_nodes = autograd::live_nodes();
    {
      [[maybe_unused]] typename Idiom::Region region;
      for (step_ = 0; step_ < kMaxSteps && !in.done(); ++step_) {
        ++counts().steps;
        ++counts().steps_under[policy_index_];
        if (counts().steps % 1000000 == 0) print_counts();
        one_step(in);
        check_slots();
        bool any = false;
        for (int s = 0; s < kSlots; ++s) any = any || m_.slot[static_cast<size_t>(s)] >= 0;
        if (!any) check_baseline(base, base_nodes, "no slot holds a tensor");
      }
      for (int s = 0; s < kSlots; ++s) drop(s);
    }
    check_baseline(base, base_nodes, "the end of the program");
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    std::fprintf(stderr, "autograd fuzz: model mismatch at step %d under %s on %s: %s\n", step_, P::name, B::name,
                 why.c_str());
    std::fflush(stderr);
    std::abort();
  }

  bool valid(int s) const { return m_.slot[static_cast<size_t>(s)] >= 0; }
  const T& handle(int s) const { return slots_[static_cast<size_t>(s)]; }

  // Gives the handle in slot s back (if the model says it holds one).
  void drop(int s) {
    if (!valid(s)) return;
    custody::release(slots_[static_cast<size_t>(s)]);
    m_.slot[static_cast<size_t>(s)] = -1;
  }
  void put(int d, T t, int model_tensor) {
    drop(d);
    slots_[static_cast<size_t>(d)] = std::move(t);
    m_.slot[static_cast<size_t>(d)] = model_tensor;
  }

  // Runs `f`, which the model says must throw E when `expect_error`, else succeed.
  template <class E, class F>
  bool expect(bool expect_error, const char* what, F&& f) {
    try {
      f();
    } catch (const E& e) {
      if (!expect_error) fail(std::string(what) + ": unexpected " + e.what());
      return false;
    } catch (const std::exception& e) {
      fail(std::string(what) + ": an error of the wrong type: " + e.what());
    }
    if (expect_error) fail(std::string(what) + ": expected an error");
    return true;
  }

  void one_step(Reader& in) {
    switch (in.next() % kNumOps) {
      case 0: {  // LEAF
        const int d = in.slot();
        const uint8_t k = in.next();
        Values v{};
        std::vector<double> data(kN);
        for (int i = 0; i < kN; ++i) {
          v[static_cast<size_t>(i)] = data[static_cast<size_t>(i)] = ((k + 3 * i) % 7 - 3) * 0.5;
        }
        T t = T::from_vector(data, {3, 3});
        if (k & 1) t.requires_grad_();
        put(d, std::move(t), m_.new_tensor(m_.new_storage(v), false, (k & 1) != 0, -1));
        return;
      }
      case 1:  // BINOP
        binop(in, /*no_grad=*/false);
        return;
      case 2:  // UNARY
        unary(in);
        return;
      case 3:  // NOGRAD
        binop(in, /*no_grad=*/true);
        return;
      case 4:  // RELEASE
        drop(in.slot());
        return;
      case 5:  // BACKWARD
        backward(in);
        return;
      case 6: {  // RESET
        const int a = in.slot();
        expect<LifetimeError>(!valid(a), "reset_grad", [&] { handle(a).reset_grad(); });
        if (valid(a)) {
          MTensor& t = m_.tensors[static_cast<size_t>(m_.slot[static_cast<size_t>(a)])];
          t.has_grad = false;
          t.grad_known = true;
        }
        return;
      }
      default: {  // INPLACE
        const int a = in.slot();
        const uint8_t k = in.next();
        const bool no_grad = (k & 1) != 0, add = (k & 2) != 0;
        if (!valid(a)) {
          expect<LifetimeError>(true, "in-place op on a released handle", [&] { handle(a).mul_(2.0); });
          return;
        }
        const int t = m_.slot[static_cast<size_t>(a)];
        const bool refused = !no_grad && m_.tensors[static_cast<size_t>(t)].requires_grad;
        const bool done = expect<InvalidArgument>(refused, "in-place op", [&] {
          std::optional<NoGradGuard> guard;
          if (no_grad) guard.emplace();
          Temporary<T> r = add ? handle(a).add_(1.0) : handle(a).mul_(2.0);
        });
        if (done) {
          MStorage& st = m_.storages[static_cast<size_t>(m_.tensors[static_cast<size_t>(t)].storage)];
          for (double& x : st.v) x = add ? x + 1.0 : x * 2.0;
          ++st.version;
        }
        return;
      }
    }
  }

  void binop(Reader& in, bool no_grad) {
    const int d = in.slot(), a = in.slot(), b = in.slot();
    const uint8_t k = in.next();
    const Op op = no_grad ? (k % 2 == 0 ? Op::kAdd : Op::kMul)
                          : (k % 3 == 0 ? Op::kAdd : k % 3 == 1 ? Op::kSub : Op::kMul);
    std::optional<T> out;
    const bool ok = expect<LifetimeError>(!valid(a) || !valid(b), "binary op", [&] {
      std::optional<NoGradGuard> guard;
      if (no_grad) guard.emplace();
      const T& x = handle(a);
      const T& y = handle(b);
      out.emplace(op == Op::kAdd ? x.add(y) : op == Op::kSub ? x.sub(y) : x.mul(y));
    });
    if (!ok) return;
    const int ta = m_.slot[static_cast<size_t>(a)], tb = m_.slot[static_cast<size_t>(b)];
    const Values va = m_.values(ta), vb = m_.values(tb);
    Values v{};
    for (int i = 0; i < kN; ++i) {
      const size_t u = static_cast<size_t>(i);
      v[u] = op == Op::kAdd ? va[u] + vb[u] : op == Op::kSub ? va[u] - vb[u] : va[u] * vb[u];
    }
    const int node = m_.record(op, {ta, tb}, !no_grad);
    put(d, std::move(*out), m_.new_tensor(m_.new_storage(v), false, node >= 0, node));
  }

  void unary(Reader& in) {
    const int d = in.slot(), a = in.slot();
    const int kind = in.next() % 4;  // neg, mul(0.5), t(), detach()
    std::optional<T> out;
    const bool ok = expect<LifetimeError>(!valid(a), "unary op", [&] {
      const T& x = handle(a);
      out.emplace(kind == 0 ? x.neg() : kind == 1 ? x.mul(0.5) : kind == 2 ? x.t() : x.detach());
    });
    if (!ok) return;
    const int ta = m_.slot[static_cast<size_t>(a)];
    const MTensor src = m_.tensors[static_cast<size_t>(ta)];
    int t = -1;
    if (kind <= 1) {
      Values v = m_.values(ta);
      for (double& x : v) x = kind == 0 ? -x : x * 0.5;
      const int node = m_.record(kind == 0 ? Op::kNeg : Op::kHalf, {ta}, true);
      t = m_.new_tensor(m_.new_storage(v), false, node >= 0, node);
    } else if (kind == 2) {  // a view: the same storage, transposed
      const int node = m_.record(Op::kTranspose, {ta}, true);
      t = m_.new_tensor(src.storage, !src.transposed, node >= 0, node);
    } else {  // out of any graph, over the same storage
      t = m_.new_tensor(src.storage, src.transposed, false, -1);
    }
    put(d, std::move(*out), t);
  }

  // The model's outcome of sum(slot a).backward(retain): the error it must throw, or the gradients
  // it gives the leaves.
  void backward(Reader& in) {
    const int a = in.slot();
    const bool retain = (in.next() & 1) != 0;
    if (!valid(a)) {
      expect<LifetimeError>(true, "backward of a released handle", [&] { handle(a).sum().backward(); });
      return;
    }
    const int root = m_.slot[static_cast<size_t>(a)];
    const auto run = [&] {
      Temporary<T> s = handle(a).sum();
      s->backward({}, retain);
    };
    if (!m_.tensors[static_cast<size_t>(root)].requires_grad) {
      expect<InvalidArgument>(true, "backward of a tensor that does not require grad", run);
      return;
    }
    const std::vector<int> nodes = m_.reachable(root);
    bool released = false, modified = false, maybe = false;
    for (int n : nodes) {
      const MNode& node = m_.nodes[static_cast<size_t>(n)];
      for (int i = 0; i < node.n_in; ++i) {
        if (!node.reads[i]) continue;
        if (node.state == NodeState::kGivenBack) released = true;
        if (node.state == NodeState::kUnknown) maybe = true;
        if (m_.storages[static_cast<size_t>(node.saved_storage[i])].version != node.saved_version[i]) modified = true;
      }
    }
    std::vector<int> leaves;  // reachable leaves that require grad
    for (int n : nodes) {
      const MNode& node = m_.nodes[static_cast<size_t>(n)];
      for (int i = 0; i < node.n_in; ++i) {
        if (m_.is_leaf_with_grad(node.in[i])) leaves.push_back(node.in[i]);
      }
    }
    if (m_.is_leaf_with_grad(root)) leaves.push_back(root);
    const auto unknown_after_error = [&] {
      for (int t : leaves) m_.tensors[static_cast<size_t>(t)].grad_known = false;
      if (!retain) {
        for (int n : nodes) m_.nodes[static_cast<size_t>(n)].state = NodeState::kUnknown;
      }
    };
    if (released || modified) {
      try {
        run();
        fail("backward: expected an error (a saved tensor given back or changed in place)");
      } catch (const LifetimeError& e) {
        if (!released && !maybe) fail(std::string("backward: unexpected ") + e.what());
      } catch (const InvalidArgument& e) {
        if (!modified) fail(std::string("backward: unexpected ") + e.what());
      } catch (const std::exception& e) {
        fail(std::string("backward: an error of the wrong type: ") + e.what());
      }
      unknown_after_error();
      return;
    }
    if (maybe) {
      try {
        run();
      } catch (const LifetimeError&) {
        unknown_after_error();
        return;
      } catch (const std::exception& e) {
        fail(std::string("backward: an error of the wrong type: ") + e.what());
      }
    } else {
      expect<LifetimeError>(false, "backward", run);
    }
    // The model's reverse pass: a gradient per tensor, the root's all ones.
    std::vector<std::optional<Values>> g(m_.tensors.size());
    const auto add_to = [&](int t, const Values& v) {
      if (!m_.tensors[static_cast<size_t>(t)].requires_grad) return;
      std::optional<Values>& acc = g[static_cast<size_t>(t)];
      if (!acc) {
        acc = v;
      } else {
        for (int i = 0; i < kN; ++i) (*acc)[static_cast<size_t>(i)] += v[static_cast<size_t>(i)];
      }
    };
    Values ones{};
    ones.fill(1.0);
    add_to(root, ones);
    for (int t = static_cast<int>(m_.tensors.size()); t-- > 0;) {
      const int n = m_.tensors[static_cast<size_t>(t)].node;
      if (n < 0 || !g[static_cast<size_t>(t)]) continue;
      const MNode& node = m_.nodes[static_cast<size_t>(n)];
      const Values go = *g[static_cast<size_t>(t)];
      switch (node.op) {
        case Op::kAdd:
          add_to(node.in[0], go);
          add_to(node.in[1], go);
          break;
        case Op::kSub: {
          Values neg = go;
          for (double& x : neg) x = -x;
          add_to(node.in[0], go);
          add_to(node.in[1], neg);
          break;
        }
        case Op::kMul: {
          Values ga{}, gb{};
          for (int i = 0; i < kN; ++i) {
            const size_t u = static_cast<size_t>(i);
            ga[u] = go[u] * node.saved[1][u];
            gb[u] = go[u] * node.saved[0][u];
          }
          add_to(node.in[0], ga);
          add_to(node.in[1], gb);
          break;
        }
        case Op::kNeg: {
          Values neg = go;
          for (double& x : neg) x = -x;
          add_to(node.in[0], neg);
          break;
        }
        case Op::kHalf: {
          Values h = go;
          for (double& x : h) x *= 0.5;
          add_to(node.in[0], h);
          break;
        }
        case Op::kTranspose:
          add_to(node.in[0], transpose(go));
          break;
        case Op::kSum:
          break;
      }
    }
    for (size_t t = 0; t < m_.tensors.size(); ++t) {
      MTensor& mt = m_.tensors[t];
      if (!g[t] || !m_.is_leaf_with_grad(static_cast<int>(t))) continue;
      if (!mt.has_grad) {
        mt.grad = *g[t];
        mt.has_grad = true;
      } else {
        for (int i = 0; i < kN; ++i) mt.grad[static_cast<size_t>(i)] += (*g[t])[static_cast<size_t>(i)];
      }
    }
    if (!retain) {
      for (int n : nodes) m_.nodes[static_cast<size_t>(n)].state = NodeState::kGivenBack;
    }
  }

  static bool close(const std::vector<double>& got, const Values& want) {
    if (got.size() != want.size()) return false;
    for (size_t i = 0; i < got.size(); ++i) {
      if (!(std::abs(got[i] - want[i]) <= 1e-9 * (1 + std::abs(want[i])))) return false;
    }
    return true;
  }

  void check_slots() {
    for (int s = 0; s < kSlots; ++s) {
      const T& h = handle(s);
      if (!valid(s)) {
        try {
          (void)h.numel();
          fail("slot " + std::to_string(s) + ": a released handle is usable");
        } catch (const LifetimeError&) {
        }
        continue;
      }
      const int t = m_.slot[static_cast<size_t>(s)];
      const MTensor& mt = m_.tensors[static_cast<size_t>(t)];
      try {
        if (!close(h.template to_vector<double>(), m_.values(t))) fail("slot " + std::to_string(s) + ": values");
        if (h.requires_grad() != mt.requires_grad) fail("slot " + std::to_string(s) + ": requires_grad()");
        if (m_.is_leaf_with_grad(t) && mt.grad_known) {
          Temporary<T> g = h.grad();
          if (g->defined() != mt.has_grad) fail("slot " + std::to_string(s) + ": grad() defined");
          if (mt.has_grad && !close(g->template to_vector<double>(), mt.grad)) {
            fail("slot " + std::to_string(s) + ": grad() values");
          }
        }
      } catch (const std::exception& e) {
        fail("slot " + std::to_string(s) + ": " + e.what());
      }
    }
  }

  void check_baseline(const StatsSnapshot& base, int64_t base_nodes, const char* when) {
    Idiom::collect();
    const StatsSnapshot now = B::stats().snapshot();
    if (now.live_tensors != base.live_tensors || now.bytes_in_use != base.bytes_in_use ||
        autograd::live_nodes() != base_nodes) {
      fail(std::string(when) + ": live tensors " + std::to_string(now.live_tensors - base.live_tensors) +
           ", bytes " + std::to_string(now.bytes_in_use - base.bytes_in_use) + ", graph nodes " +
           std::to_string(autograd::live_nodes() - base_nodes) + " beyond the baseline");
    }
  }

  size_t policy_index_;
  HandleVector<T> slots_;
  Model m_;
  int step_ = 0;
};

inline void run_graph_program(const uint8_t* data, size_t size) {
  static PrintAtExit print_at_exit;
  const size_t backend = size % kBackends, policy = (size / kBackends) % kPolicies;
  size_t bi = 0;
  custody::lists::for_each_type(Backends{}, [&]<class B>() {
    if (bi++ != backend) return;
    size_t pi = 0;
    custody::lists::for_each_type(Policies{}, [&]<class P>() {
      if (pi++ != policy) return;
      Reader in{data, size};
      Program<P, B>(policy).run(in);
    });
  });
}

}  // namespace custody::fuzz::graph

#endif  // CUSTODY_TESTS_FUZZ_AUTOGRAD_FUZZ_H_
