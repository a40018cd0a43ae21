// Copyright 2026 The custody Authors.
//
// tests/fuzz/lifetime_fuzz.h — the lifetime fuzzer (issue 12 item 3): `run_program<Policy>(data, size)`
// decodes bytes into a program over a table of kSlots handle slots on one host backend and runs it,
// step by step, on the real policy and on a small reference model of who owns what. After EVERY step
// the real system must agree with the model, else the process aborts with the reason (libFuzzer
// reports a crash; the replay test fails).
//
// The backend. An input of `size` bytes runs on backend size % N of the N of
// custody::lists::AllHostBackends (ALL_HOST_BACKENDS, tools/build_defs/flags.bzl), so libFuzzer
// and the replay test (inputs of every length 0..255) run programs on every host backend, and the
// bytes decode to the same program on any of them (a corpus file keeps its meaning). At exit the
// process prints how many programs ran on each. With CUSTODY_FUZZ_LIST_BACKENDS=1 in the
// environment a fuzzer prints "lifetime fuzz backend: <name>" for each backend it runs on and exits
// 0 before anything else (//tests/lists:lists_test checks every host backend is there).
//
// Byte encoding. The input is a sequence of steps; each step is one opcode byte followed by the
// operand bytes its op reads (reading past the end gives 0, so every input is a valid program; at
// most kMaxSteps steps run). `s(x)` = x % kSlots is a slot index.
//   op % kNumOps:
//   0 CREATE   d k     slot d = a new tensor of shape kShapes[k % 6], zeros / ones / from_vector by k / 6 % 3
//   1 BINOP    d a b k slot d = slot a add (k even) / mul (k odd) slot b   (ShapeError when shapes do
//                      not broadcast, LifetimeError when an operand is dead)
//   2 VIEW     d a k   slot d = narrow(0, 0, 1) / t() / reshape({-1}) of slot a, by k % 3 (a new
//                      TensorImpl on a's storage; reshape of a non-contiguous tensor copies)
//   3 COPY     d a     slot d = slot a (the handle copied: tensor_ptr +1 use_count; the other
//                      policies share the alias / entry / ledger reference)
//   4 ALIAS    d a     slot d = slot a.alias() (a new reference to the same TensorImpl)
//   5 RELEASE  a       custody::release(slot a): reset / dispose / free (past zero: LifetimeError)
//   6 CLEAR    a       slot a = a default handle (drops this handle only; what that gives back is
//                      the policy's rule, below)
//   7 THREAD   a       hands a copy of slot a to a std::thread that uses it (numel, or expects
//                      LifetimeError) and releases it there, then joins (tensor_ptr: the handle is
//                      moved to the thread, which drops it)
//   8 EXTRA    x ...   the policy's own op (Rules<P>::extra): manual retain; scope open / close (any
//                      open scope, out of order too) / move_to_outer / detach / attach; gc collect;
//                      tensor_ptr std::move of a handle; dispose: is_disposed() of a slot checked
//                      against the model; none for counted
// Slot operands name slots in any state: using a dead or default handle is on purpose (misuse).
//
// The model. Slots point at model *references* (what the policy counts: a TensorPtr, a dispose or
// gc alias, a scope entry, a manual ledger entry with its count), references at model *tensors*
// (TensorImpls, counting the references on them), tensors at model *storages* (counting the tensors
// on them, with the bytes their allocation took). Per-policy rules say what dropping the last
// handle of a live reference does: tensor_ptr gives it back; scope gives back a detached entry and
// leaves a scoped one to its scope; dispose and manual leak it (the model keeps it live until the
// test idiom's cleanup at the end); gc disposes it first in its plain mode (the model never leaves
// garbage to the collector and checks a collect() changes nothing), and in its garbage mode
// (lifetime_gc_garbage_fuzz_test) leaves it to the collector: after every collection each such
// alias must have been finalized, but for a measured few the conservative scan still finds
// (tests/fuzz/lifetime_gc_fuzz_test.cc, Note [Garbage the scan keeps]).
// After every step: for each slot, valid exactly when the model says so (numel() equals the model
// shape's product, or throws LifetimeError — never anything else); for valid slots the TensorImpl's
// use_count equals the model's count of references, manual::testing::refcount the model's frees
// owed, tensor_ptr use_count(), scope is_in_dispose_scope(); for every pair of valid slots
// is_same_storage agrees with the model; the backend's stats() live_tensors, live_storages and
// bytes_in_use equal the baseline plus the model's live tensors, storages and their bytes (exact:
// every policy here frees deterministically). At the end every slot is cleared, the policy's idiom
// cleans up (scopes closed, PolicyIdiom Guard, settle()) and the counters must be back at the
// baseline.

#ifndef CUSTODY_TESTS_FUZZ_LIFETIME_FUZZ_H_
#define CUSTODY_TESTS_FUZZ_LIFETIME_FUZZ_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/stats.h"
#include "core/tensor.h"
#include "custody/lists/all_host_backends.h"
#include "custody/lists/type_list.h"

namespace custody::fuzz {

// The backends a program runs on: backend size % N of these N for an input of `size` bytes.
using Backends = custody::lists::AllHostBackends;
inline constexpr size_t kBackends = Backends::size;

// CUSTODY_FUZZ_LIST_BACKENDS=1: print the backends and exit, during static initialization (before
// libFuzzer's main or the replay main reads an input).
inline bool list_backends_if_asked() {
  const char* env = std::getenv("CUSTODY_FUZZ_LIST_BACKENDS");
  if (env == nullptr || std::string(env) != "1") return false;
  for (std::string_view name : custody::lists::names_of(Backends{})) {
    std::printf("lifetime fuzz backend: %.*s\n", static_cast<int>(name.size()), name.data());
  }
  std::fflush(stdout);
  std::exit(0);
}
// Internal linkage: initialized in the fuzzer's translation unit whether used or not.
[[maybe_unused]] static const bool kListedBackends = list_backends_if_asked();

inline constexpr int kSlots = 8;
inline constexpr int kMaxSteps = 64;
inline constexpr int kNumOps = 9;

[[noreturn]] inline void Fail(const std::string& why, int step) {
  std::fprintf(stderr, "lifetime fuzz: model mismatch at step %d: %s\n", step, why.c_str());
  std::fflush(stderr);
  std::abort();
}

// Step and program counts of this process, for reporting how much a run covered: printed to
// stderr at every 1,000,000th step and at exit ("lifetime fuzz: N steps in M programs (onednn: a,
// ...)", the programs on each backend).
struct Counts {
  int64_t steps = 0;
  int64_t programs = 0;
  std::array<int64_t, kBackends> programs_on{};  // by backend, in Backends' order
};
inline Counts& counts() {
  static Counts c;
  return c;
}
inline void print_counts() {
  std::string on;
  const auto names = custody::lists::names_of(Backends{});
  for (size_t b = 0; b < kBackends; ++b) {
    on += (b == 0 ? "" : ", ") + std::string(names[b]) + ": " + std::to_string(counts().programs_on[b]);
  }
  std::fprintf(stderr, "lifetime fuzz: %lld steps in %lld programs (%s)\n", static_cast<long long>(counts().steps),
               static_cast<long long>(counts().programs), on.c_str());
}
inline void count_step() {
  if (++counts().steps % 1000000 == 0) print_counts();
}

// Byte reader: 0 past the end.
struct Reader {
  const uint8_t* p;
  size_t n;
  size_t i = 0;
  bool done() const { return i >= n; }
  uint8_t next() { return i < n ? p[i++] : 0; }
  int slot() { return next() % kSlots; }
};

struct MStorage {
  int64_t bytes = 0;
  int tensors = 0;  // live model tensors on it
};
struct MTensor {
  int storage = -1;
  int64_t refs = 0;  // references (ImplRefs) on the TensorImpl
  int64_t pins = 0;  // what keeps it alive beyond them (scope: a lent entry another thread disposed)
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
};
struct MRef {
  int tensor = -1;
  bool live = false;
  int64_t count = 1;   // manual: frees owed
  int handles = 0;     // slots (and threads) holding a handle to it
  int scope = -1;      // scope policy: the id of the scope it is registered in, -1 detached
};

inline int64_t Numel(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// On another thread: whether `t` behaves as the model says, its numel (a live
// handle) or a LifetimeError (`numel` < 0: the model says it is not valid).
template <class T>
bool numel_as_modelled(const T& t, int64_t numel) {
  try {
    return t.numel() == numel;
  } catch (const LifetimeError&) {
    return numel < 0;
  }
}

inline std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& s) {
  std::vector<int64_t> st(s.size());
  int64_t n = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = n;
    n *= s[i];
  }
  return st;
}

// Contiguous as custody (ATen) defines it: dims of size 1 may have any stride.
inline bool IsContiguous(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

// Whether flattening to 1-D can be a view: the dims of size > 1 nest (each one's stride is the
// next one's stride times its size); then the flat stride is the innermost such stride.
inline std::optional<int64_t> FlatViewStride(const std::vector<int64_t>& sizes,
                                             const std::vector<int64_t>& strides) {
  std::optional<int64_t> inner;
  int64_t expected = 0;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (!inner) {
      inner = strides[i];
      expected = strides[i] * sizes[i];
      continue;
    }
    if (strides[i] != expected) return std::nullopt;
    expected *= sizes[i];
  }
  return inner.value_or(1);
}

inline std::optional<std::vector<int64_t>> Broadcast(const std::vector<int64_t>& a,
                                                     const std::vector<int64_t>& b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[i] = x == 1 ? y : x;
  }
  return out;
}

inline const std::vector<std::vector<int64_t>>& Shapes() {
  static const auto* shapes =
      new std::vector<std::vector<int64_t>>{{4}, {2, 3}, {3, 2}, {1}, {2, 1}, {3, 1, 2}};
  return *shapes;
}

// The reference model: references, tensors, storages.
struct Model {
  std::vector<MStorage> storages;
  std::vector<MTensor> tensors;
  std::vector<MRef> refs;
  int slot[kSlots];
  Model() {
    for (int& s : slot) s = -1;
  }

  int new_storage(int64_t bytes) {
    storages.push_back({bytes, 0});
    return static_cast<int>(storages.size()) - 1;
  }
  int new_tensor(int storage, std::vector<int64_t> sizes, std::vector<int64_t> strides) {
    storages[storage].tensors++;
    tensors.push_back({storage, 0, 0, std::move(sizes), std::move(strides)});
    return static_cast<int>(tensors.size()) - 1;
  }
  int new_ref(int tensor, int scope) {
    tensors[tensor].refs++;
    refs.push_back({tensor, true, 1, 0, scope});
    return static_cast<int>(refs.size()) - 1;
  }
  // The reference goes back to core.
  void release(int r) {
    MRef& ref = refs[r];
    if (!ref.live) return;
    ref.live = false;
    ref.count = 0;
    MTensor& t = tensors[ref.tensor];
    if (--t.refs == 0 && t.pins == 0) storages[t.storage].tensors--;
  }
  // A pin keeps a tensor alive past its last reference (taken while it has one).
  void pin(int tensor) { tensors[tensor].pins++; }
  void unpin(int tensor) {
    MTensor& t = tensors[tensor];
    if (--t.pins == 0 && t.refs == 0) storages[t.storage].tensors--;
  }
  bool valid(int s) const { return slot[s] >= 0 && refs[slot[s]].live; }
  const MTensor& tensor_of(int s) const { return tensors[refs[slot[s]].tensor]; }

  int64_t live_tensors() const {
    int64_t n = 0;
    for (const MTensor& t : tensors) n += t.refs + t.pins > 0;
    return n;
  }
  int64_t live_storages() const {
    int64_t n = 0;
    for (const MStorage& s : storages) n += s.tensors > 0;
    return n;
  }
  int64_t bytes() const {
    int64_t n = 0;
    for (const MStorage& s : storages) n += s.tensors > 0 ? s.bytes : 0;
    return n;
  }
};

// Per-policy rules and ops; specialised in the lifetime_<policy>_fuzz_test.cc files. Every
// function taking the harness is a template on it (`template <class H> ... (H& h, ...)`, H a
// Harness<P, B>, its tensor type H::T), so one Rules<P> serves every backend.
//   static constexpr bool kCopyIsNewRef;          // copying a handle makes a new reference (+1)
//   struct State;                                // per-program state (scopes, the idiom's serial)
//   static bool can_create(Harness&);            // false: creating throws LifetimeError (no scope)
//   static int scope_for_new(Harness&);          // model scope id of a new reference (-1)
//   static void release(Harness&, T&);           // custody::release and its model consequences
//   static void on_last_handle(Harness&, int s); // before slot s drops the last handle of a live ref
//   static void extra(Harness&, Reader&);
//   static void check_slot(Harness&, int s);     // policy-specific counters
//   static void on_alias(Harness&, int a, int r); // ALIAS made model ref r from ref a
//   static int64_t use_count(Harness&, int s);   // references on the slot's TensorImpl as the
//                                                // model counts them (default: its use_count())
//   static void sync(Harness&);                  // before each check: what the policy gave back on
//                                                // its own (gc: finalized garbage) leaves the model
//   static void finish(Harness&);                // end of program: give everything back
template <class P>
struct Rules;

// What most policies' Rules share; a Rules<P> derives from it and overrides the rest.
template <class P>
struct DefaultRules {
  static constexpr bool kCopyIsNewRef = false;
  template <class H>
  static bool can_create(H&) { return true; }
  template <class H>
  static int scope_for_new(H&) { return -1; }
  template <class H>
  static void on_last_handle(H&, int) {}
  // custody::release (idempotent), then the model drops the slot's reference.
  template <class H>
  static void release(H& h, int s);
  template <class H>
  static void check_slot(H&, int) {}
  template <class H>
  static int64_t use_count(H& h, int s) { return h.slots[s].impl().use_count(); }
  template <class H>
  static void on_alias(H&, int, int) {}
  template <class H>
  static void sync(H&) {}
  template <class H>
  static void finish(H&) {}
  static void settle() {}
};

// The rules of a policy whose handles each own one reference (tensor_ptr,
// counted): copying a handle makes a new reference, the last handle gives it
// back, release() empties the handle, THREAD moves the handle to another
// thread, which uses and drops it there; use_count() is the model's count.
template <class P>
struct OwningHandleRules : DefaultRules<P> {
  static constexpr bool kCopyIsNewRef = true;
  struct State {};
  static bool last_handle_releases(const MRef&) { return true; }
  template <class H>
  static void release(H& h, int s);
  template <class H>
  static void thread(H& h, int s);
  template <class H>
  static void extra(H&, Reader&) {}
  template <class H>
  static void check_slot(H& h, int s);
};

// One program's run of policy P on backend B.
template <class P, class B>
struct Harness {
  using T = BasicTensor<P, B>;
  using Backend = B;
  using R = Rules<P>;

  T slots[kSlots];  // on the stack: visible to gc's conservative scan
  Model m;
  StatsSnapshot base;
  int step = 0;
  typename R::State state;

  Harness() : base(Backend::stats().snapshot()) {}

  [[noreturn]] void fail(const std::string& why) { Fail(why, step); }

  template <class Fn>
  bool expect_lifetime_error(Fn&& fn, const char* what) {
    try {
      fn();
    } catch (const LifetimeError&) {
      return true;
    } catch (const std::exception& e) {
      fail(std::string(what) + ": expected LifetimeError, got another exception: " + e.what());
    }
    return false;
  }

  // Replaces the handle in slot `d` by `t` referring to model ref `r` (-1: a default handle).
  void assign(int d, T t, int r) {
    if (r >= 0) m.refs[r].handles++;
    drop(d);
    slots[d] = std::move(t);
    m.slot[d] = r;
  }
  // Drops slot d's handle (model side first, then real).
  void drop(int d) {
    const int r = m.slot[d];
    if (r < 0) return;
    if (m.refs[r].handles == 1 && m.refs[r].live) R::on_last_handle(*this, d);
    m.refs[r].handles--;
    m.slot[d] = -1;
    slots[d] = T();
    if (m.refs[r].handles == 0 && m.refs[r].live && R::last_handle_releases(m.refs[r])) m.release(r);
  }

  int new_result_ref(int tensor) { return m.new_ref(tensor, R::scope_for_new(*this)); }

  // Runs `make` (returns a T); the model outcome is given by `expect_ok` (else LifetimeError or
  // `other_error` (ShapeError)). On success, `on_ok(t, before)` updates the model and returns the ref.
  template <class Make, class OnOk>
  void produce(int d, bool operands_ok, bool shape_ok, Make&& make, OnOk&& on_ok, const char* what) {
    const bool can = R::can_create(*this);
    const StatsSnapshot before = Backend::stats().snapshot();
    std::optional<T> out;
    try {
      out.emplace(make());
    } catch (const LifetimeError& e) {
      if (operands_ok && can) fail(std::string(what) + ": unexpected LifetimeError: " + e.what());
      return;
    } catch (const ShapeError& e) {
      if (!operands_ok || shape_ok) fail(std::string(what) + ": unexpected ShapeError: " + e.what());
      return;
    } catch (const std::exception& e) {
      fail(std::string(what) + ": unexpected exception: " + e.what());
    }
    if (!operands_ok || !can || !shape_ok) fail(std::string(what) + ": succeeded, the model expected an error");
    const int r = on_ok(*out, before);
    assign(d, std::move(*out), r);
  }

  // Bytes of the one storage an op just made.
  int64_t new_bytes(const StatsSnapshot& before, const T& t) {
    const int64_t b = Backend::stats().snapshot().bytes_in_use - before.bytes_in_use;
    if (b < static_cast<int64_t>(t.numel() * sizeof(float))) {
      fail("a new storage took " + std::to_string(b) + " bytes for " + std::to_string(t.numel()) +
           " floats");
    }
    return b;
  }

  void create(Reader& in) {
    const int d = in.slot();
    const uint8_t k = in.next();
    const std::vector<int64_t>& shape = Shapes()[k % Shapes().size()];
    const int how = (k / Shapes().size()) % 3;
    produce(
        d, true, true,
        [&] {
          IntSpan s(shape.data(), shape.size());
          if (how == 0) return T::zeros(s);
          if (how == 1) return T::ones(s);
          std::vector<float> v(Numel(shape), 1.5f);
          return T::from_vector(v, s);
        },
        [&](const T& t, const StatsSnapshot& before) {
          const int st = m.new_storage(new_bytes(before, t));
          return new_result_ref(m.new_tensor(st, shape, ContiguousStrides(shape)));
        },
        "create");
  }

  void binop(Reader& in) {
    const int d = in.slot(), a = in.slot(), b = in.slot();
    const bool mul = in.next() & 1;
    const bool ok = m.valid(a) && m.valid(b);
    std::optional<std::vector<int64_t>> shape;
    if (ok) shape = Broadcast(m.tensor_of(a).sizes, m.tensor_of(b).sizes);
    produce(
        d, ok, shape.has_value(), [&] { return mul ? slots[a].mul(slots[b]) : slots[a].add(slots[b]); },
        [&](const T& t, const StatsSnapshot& before) {
          const int st = m.new_storage(new_bytes(before, t));
          return new_result_ref(m.new_tensor(st, *shape, ContiguousStrides(*shape)));
        },
        "binop");
  }

  void view(Reader& in) {
    const int d = in.slot(), a = in.slot();
    const int k = in.next() % 3;
    const bool ok = m.valid(a);
    bool shape_ok = true;
    std::vector<int64_t> shape;
    if (ok) {
      shape = m.tensor_of(a).sizes;
      if (k == 1) shape_ok = shape.size() <= 2;
    }
    produce(
        d, ok, shape_ok,
        [&] {
          if (k == 0) return slots[a].narrow(0, 0, 1);
          if (k == 1) return slots[a].t();
          return slots[a].reshape({-1});
        },
        [&](const T& t, const StatsSnapshot& before) {
          const MTensor& src = m.tensor_of(a);
          std::vector<int64_t> out = src.sizes, strides = src.strides;
          int st = src.storage;
          if (k == 0) {
            out[0] = 1;
          } else if (k == 1) {
            if (out.size() == 2) {
              std::swap(out[0], out[1]);
              std::swap(strides[0], strides[1]);
            }
          } else {
            const std::optional<int64_t> flat = FlatViewStride(out, strides);
            out = {Numel(out)};
            if (flat) {
              strides = {*flat};
            } else {  // reshape copies into a fresh storage
              st = m.new_storage(new_bytes(before, t));
              strides = {1};
            }
          }
          if (t.is_contiguous() != IsContiguous(out, strides)) fail("view: contiguity differs from the model");
          if (t.dim() != static_cast<int64_t>(out.size())) fail("view: rank differs from the model");
          for (size_t i = 0; i < out.size(); ++i) {
            if (t.size(i) != out[i]) fail("view: sizes differ from the model");
            if (out[i] != 1 && t.stride(i) != strides[i]) fail("view: strides differ from the model");
          }
          return new_result_ref(m.new_tensor(st, out, strides));
        },
        "view");
  }

  void copy(Reader& in) {
    const int d = in.slot(), a = in.slot();
    if (d == a) return;
    T t = slots[a];
    int r = m.slot[a];
    if (r >= 0 && R::kCopyIsNewRef) {
      // tensor_ptr: the copy is one more reference on the TensorImpl.
      r = m.new_ref(m.refs[r].tensor, -1);
      if (!m.refs[m.slot[a]].live) fail("tensor_ptr: a live-less slot with a ref");
    }
    assign(d, std::move(t), r);
  }

  void alias(Reader& in) {
    const int d = in.slot(), a = in.slot();
    const bool ok = m.valid(a);
    produce(
        d, ok, true, [&] { return slots[a].alias(); },
        [&](const T&, const StatsSnapshot&) {
          const int r = new_result_ref(m.refs[m.slot[a]].tensor);
          R::on_alias(*this, m.slot[a], r);
          return r;
        },
        "alias");
  }

  void release(Reader& in) { R::release(*this, in.slot()); }
  void clear(Reader& in) { drop(in.slot()); }

  void check() {
    R::sync(*this);
    for (int s = 0; s < kSlots; ++s) {
      if (m.valid(s)) {
        const MTensor& mt = m.tensor_of(s);
        int64_t n = -1;
        try {
          n = slots[s].numel();
        } catch (const std::exception& e) {
          fail("slot " + std::to_string(s) + " should be valid: " + e.what());
        }
        if (n != Numel(mt.sizes)) fail("slot " + std::to_string(s) + ": numel differs");
        const int64_t uc = R::use_count(*this, s);
        if (uc != mt.refs) {
          fail("slot " + std::to_string(s) + ": TensorImpl use_count " + std::to_string(uc) +
               ", model " + std::to_string(mt.refs));
        }
        R::check_slot(*this, s);
      } else {
        if (!expect_lifetime_error([&] { (void)slots[s].numel(); }, "use of a dead slot")) {
          fail("slot " + std::to_string(s) + " should be dead but numel() worked");
        }
      }
    }
    for (int a = 0; a < kSlots; ++a) {
      for (int b = a + 1; b < kSlots; ++b) {
        if (!m.valid(a) || !m.valid(b)) continue;
        const bool same = m.tensor_of(a).storage == m.tensor_of(b).storage;
        if (slots[a].is_same_storage(slots[b]) != same) {
          fail("slots " + std::to_string(a) + "," + std::to_string(b) + ": is_same_storage differs");
        }
      }
    }
    check_stats();
  }

  void check_stats() {
    const StatsSnapshot now = Backend::stats().snapshot();
    const int64_t dt = now.live_tensors - base.live_tensors;
    const int64_t ds = now.live_storages - base.live_storages;
    const int64_t db = now.bytes_in_use - base.bytes_in_use;
    if (dt != m.live_tensors() || ds != m.live_storages() || db != m.bytes()) {
      fail("stats: live tensors/storages/bytes " + std::to_string(dt) + "/" + std::to_string(ds) + "/" +
           std::to_string(db) + ", model " + std::to_string(m.live_tensors()) + "/" +
           std::to_string(m.live_storages()) + "/" + std::to_string(m.bytes()));
    }
  }

  void run(const uint8_t* data, size_t size) {
    Reader in{data, size};
    for (step = 0; step < kMaxSteps && !in.done(); ++step) {
      switch (in.next() % kNumOps) {
        case 0: create(in); break;
        case 1: binop(in); break;
        case 2: view(in); break;
        case 3: copy(in); break;
        case 4: alias(in); break;
        case 5: release(in); break;
        case 6: clear(in); break;
        case 7: R::thread(*this, in.slot()); break;
        case 8: R::extra(*this, in); break;
      }
      check();
      count_step();
    }
    for (int s = 0; s < kSlots; ++s) drop(s);
    check();
  }
};

template <class P>
template <class H>
void DefaultRules<P>::release(H& h, int s) {
  custody::release(h.slots[s]);
  if (h.m.slot[s] >= 0) h.m.release(h.m.slot[s]);
}

template <class P>
template <class H>
void OwningHandleRules<P>::release(H& h, int s) {
  custody::release(h.slots[s]);
  const int r = h.m.slot[s];
  if (r < 0) return;
  h.m.refs[r].handles--;
  h.m.release(r);
  h.m.slot[s] = -1;
}

template <class P>
template <class H>
void OwningHandleRules<P>::thread(H& h, int s) {
  const int r = h.m.slot[s];
  const int64_t numel = r >= 0 ? Numel(h.m.tensor_of(s).sizes) : -1;
  typename H::T t = std::move(h.slots[s]);
  h.m.slot[s] = -1;
  bool ok = true;
  std::thread th([t = std::move(t), numel, &ok]() mutable {
    ok = numel_as_modelled(t, numel);
    custody::release(t);
  });
  th.join();
  if (!ok) h.fail("thread: the handle did not behave as the model says");
  if (r >= 0) {
    h.m.refs[r].handles--;
    h.m.release(r);
  }
}

template <class P>
template <class H>
void OwningHandleRules<P>::check_slot(H& h, int s) {
  if (h.slots[s].use_count() != h.m.tensor_of(s).refs) h.fail("use_count differs from the model");
}

// Runs one program on backend B; aborts on any disagreement with the model, or when anything is
// left on B at the end.
template <class P, class B>
void run_program_on(const uint8_t* data, size_t size) {
  const StatsSnapshot base = B::stats().snapshot();
  {
    Harness<P, B> h;
    h.run(data, size);
    Rules<P>::finish(h);
    h.step = -1;
    h.check();
  }
  Rules<P>::settle();
  const StatsSnapshot end = B::stats().snapshot();
  if (end.live_tensors != base.live_tensors || end.live_storages != base.live_storages ||
      end.bytes_in_use != base.bytes_in_use) {
    Fail(std::string("after the program on ") + B::name + ": " + end.to_string() +
             " vs at its start: " + base.to_string(),
         -1);
  }
}

// Runs one program on backend size % kBackends of Backends (the banner's "The backend").
template <class P>
void run_program(const uint8_t* data, size_t size) {
  [[maybe_unused]] static const bool report_at_exit = (std::atexit(print_counts), true);
  ++counts().programs;
  const size_t backend = size % kBackends;
  ++counts().programs_on[backend];
  size_t b = 0;
  custody::lists::for_each_type(Backends{}, [&]<class B>() {
    if (b++ == backend) run_program_on<P, B>(data, size);
  });
}

}  // namespace custody::fuzz

#endif  // CUSTODY_TESTS_FUZZ_LIFETIME_FUZZ_H_
