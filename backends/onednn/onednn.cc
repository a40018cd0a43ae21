// Copyright 2026 The custody Authors.

#include "backends/onednn/onednn.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <algorithm>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "backends/host/loops.h"
#include "core/foreign_stack.h"
#include "core/host_allocator.h"
#include "core/spin_lock.h"
#include "core/threads.h"
#include "oneapi/dnnl/dnnl.hpp"

#include <omp.h>

#include <array>

namespace custody {
namespace {

namespace loops = host;
using dt = dnnl::memory::data_type;

std::atomic<int64_t> g_threshold{1 << 14};
std::atomic<int64_t> g_primitive_calls{0};

// Note [Small work on the calling thread]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// core/threads.h decides the thread count (Note [One thread count]); oneDNN
// reads omp_get_max_threads() on the calling thread, both when it makes a
// primitive (brgemm matmul fixes its split then) and when it runs one, so the
// count is applied before each. Work too small to split runs on the calling
// thread alone: below host::kParallelGrain elements (libtorch's grain, and the
// loops'), or up to 2^18 multiply-adds for a matmul (OpenBLAS's rule: n = 64
// square and below). A parallel region costs a fork and a join, more than
// such work takes, and on a loaded machine the join waits for a descheduled
// thread (docs/decisions.md has the measurements). So each primitive is cached per thread
// count (a small one is made for one thread) and run with that count. After
// it, the thread's count is custody's again: libtorch's ops read the same
// OpenMP setting (at::get_num_threads), and must not be left on one thread.
constexpr int64_t kMatmulGrain = (int64_t{1} << 18) + 1;  // multiply-adds

int threads_for(int64_t work, int64_t grain = loops::kParallelGrain) {
  return work < grain ? 1 : num_threads();
}
void apply_threads(int n) {
  if (omp_get_max_threads() != n) omp_set_num_threads(n);
}
// `threads` for the OpenMP regions of this scope; custody's count after it.
class ThreadsInScope {
 public:
  explicit ThreadsInScope(int threads) : threads_(threads), all_(num_threads()) { apply_threads(threads); }
  ~ThreadsInScope() {
    if (threads_ != all_) apply_threads(all_);
  }
  ThreadsInScope(const ThreadsInScope&) = delete;
  ThreadsInScope& operator=(const ThreadsInScope&) = delete;

 private:
  int threads_, all_;
};

dnnl::engine& engine() {
  static dnnl::engine* e = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *e;
}

// What a thread bound for one primitive (execute()): a memory object per
// argument, in the order the caller passes them, what each points to now,
// and the primitive's scratchpad.
struct Bound {
  std::array<dnnl::memory, 4> args;
  std::array<void*, 4> data{};  // what each memory object points to now
  bool queried = false;         // the scratchpad's size
  size_t scratch_bytes = 0;     // 0: the primitive needs none
  dnnl::memory scratch;         // over this thread's buffer when scratch_bytes > 0
  void* scratch_data = nullptr; // what `scratch` points to now
};

// A primitive as a thread sees it: the cache's primitive (empty when none may
// run) and what this thread bound for it.
struct ThreadPrimitive {
  dnnl::primitive p;
  Bound bound;
};

// Note [Primitive cache]
// ~~~~~~~~~~~~~~~~~~~~~~
// Creating a oneDNN primitive descriptor and primitive costs tens of
// microseconds; the same shapes recur every training step, so primitives are
// cached by a key of (op, dims, strides). Primitives are immutable and may be
// executed concurrently from several threads, each with its own stream.
//
// Note [Primitives per thread]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A thread looks a key up first in a map of its own, which holds the
// primitives it has used and, beside each, what it bound for it (the memory
// objects of its arguments and scratchpad, re-pointed only when the data
// moved). A hit then takes no lock, copies no reference and needs no second
// lookup for the binding, which is most of what a small matmul pays around its
// primitive besides its output (docs/decisions.md). A miss goes to the shared
// cache, which makes the primitive once for every thread. When the shared
// cache is cleared, every thread's map is cleared at its next lookup.
//
// Note [No reference kernels]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// oneDNN answers every descriptor it cannot map onto a JIT kernel with its
// reference implementation (`ref:any`), 100-2,000x slower than the JIT ones and
// slower than our own loops. So a primitive whose implementation name starts
// with "ref" is never used: the cache remembers an empty primitive for that key
// and the caller takes its fallback (a contiguous copy for matmul, the loops for
// the rest). Every primitive that is used is logged with its implementation name
// (Onednn::implementations()), which is what the no-`ref` test checks.

class PrimitiveCache {
 public:
  // The primitive for `op` over `views` (`extra`: its algorithm, axis, ...),
  // made by `make()` on first use; empty when oneDNN would run a reference
  // kernel or rejects the descriptor. The key is the views' dtypes, sizes and
  // strides as raw bytes (built in a per-thread buffer: no allocation, no
  // formatting on a hit); the readable form is made only for the log.
  // `threads`: the count it is made for and run with (Note [Small work on the
  // calling thread]).
  //
  // Each thread keeps the primitives it used in a map of its own (Note
  // [Primitives per thread]), so a hit takes no lock and copies no reference.
  template <class Make>
  ThreadPrimitive& get(const char* op, std::initializer_list<const KernelView*> views, int64_t extra,
                       int threads, Make&& make) {
    size_t total = 3 * sizeof(int64_t);
    for (const KernelView* v : views) total += (1 + 2 * v->sizes.size()) * sizeof(int64_t);
    char local[512];
    thread_local std::string spill;  // keys of many high-rank views
    char* buf = local;
    if (total > sizeof(local)) {
      spill.resize(total);
      buf = spill.data();
    }
    char* w = buf;
    auto put = [&w](const void* p, size_t n) {
      std::memcpy(w, p, n);
      w += n;
    };
    const int64_t head[3] = {static_cast<int64_t>(reinterpret_cast<uintptr_t>(op)), extra, threads};
    put(head, sizeof(head));
    for (const KernelView* v : views) {
      const int64_t tag = static_cast<int64_t>(v->dtype) << 32 | static_cast<int64_t>(v->sizes.size());
      put(&tag, sizeof(tag));
      put(v->sizes.data(), v->sizes.size() * sizeof(int64_t));
      put(v->strides.data(), v->strides.size() * sizeof(int64_t));
    }
    const absl::string_view key(buf, total);
    thread_local absl::flat_hash_map<std::string, ThreadPrimitive> mine;
    thread_local uint64_t mine_generation = 0;
    if (const uint64_t g = generation(); g != mine_generation || mine.size() > kMaxEntries) {
      mine.clear();  // primitives left the cache: the same key may make another
      mine_generation = g;
    }
    if (auto it = mine.find(key); it != mine.end()) return it->second;
    dnnl::primitive p = shared(op, key, views, extra, threads, std::forward<Make>(make));
    ThreadPrimitive& entry = mine[key];
    entry.p = std::move(p);
    return entry;  // valid until this thread's next get()
  }

  // Changes whenever primitives leave the cache (so a primitive's address may be reused).
  uint64_t generation() const { return generation_.load(std::memory_order_relaxed); }

  std::vector<std::string> log() {
    SpinLockHolder lock(&mu_);
    return log_;
  }
  int64_t rejected() {
    SpinLockHolder lock(&mu_);
    return rejected_;
  }

 private:
  static constexpr size_t kMaxEntries = 4096;  // bounded: shapes churn in odd workloads

  // The process-wide cache behind the threads' maps.
  template <class Make>
  dnnl::primitive shared(const char* op, absl::string_view key,
                         std::initializer_list<const KernelView*> views, int64_t extra, int threads,
                         Make&& make) {
    {
      SpinLockHolder lock(&mu_);
      auto it = cache_.find(key);
      if (it != cache_.end()) return it->second;
    }
    // One primitive is made at a time, process-wide, and a thread that waited
    // here looks again before making its own: threads meeting a new shape
    // together make it once. oneDNN's own creation is thread-safe, but it
    // synchronises inside libdnnl, which ThreadSanitizer does not see (the
    // stress test's threads making one 16x16 matmul at once read as a race).
    absl::MutexLock make_lock(&make_mu_);
    {
      SpinLockHolder lock(&mu_);
      auto it = cache_.find(key);
      if (it != cache_.end()) return it->second;
    }
    dnnl::primitive p;
    std::string impl = "unimplemented";
    try {
      ThreadsInScope scope(threads);
      p = make();
      impl = implementation_of(p);
    } catch (const dnnl::error&) {
      p = dnnl::primitive();
    }
    if (p && absl::StartsWith(impl, "ref")) p = dnnl::primitive();
    std::string entry = absl::StrCat(op, ":", extra, threads == 1 ? ":1 thread" : "");
    for (const KernelView* v : views) {
      absl::StrAppend(&entry, "|", dtype_name(v->dtype), ":", absl::StrJoin(v->sizes, "x"), "/",
                      absl::StrJoin(v->strides, ","));
    }
    SpinLockHolder lock(&mu_);
    if (cache_.size() > kMaxEntries) {
      cache_.clear();
      generation_.fetch_add(1, std::memory_order_relaxed);
    }
    cache_.emplace(std::string(key), p);
    if (!p) ++rejected_;
    if (log_.size() < 4096) log_.push_back(absl::StrCat(entry, " -> ", impl, p ? "" : " (rejected)"));
    return p;
  }

  static std::string implementation_of(const dnnl::primitive& p) {
    const char* info = nullptr;
    if (dnnl_primitive_desc_query(p.get_primitive_desc(), dnnl_query_impl_info_str, 0, &info) !=
            dnnl_success ||
        info == nullptr) {
      return "unknown";
    }
    return info;
  }

  std::atomic<uint64_t> generation_{0};
  absl::Mutex make_mu_;  // held while a primitive is made
  SpinLock mu_;          // held for a hash lookup or insert (core/spin_lock.h)
  absl::flat_hash_map<std::string, dnnl::primitive> cache_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> log_ ABSL_GUARDED_BY(mu_);
  int64_t rejected_ ABSL_GUARDED_BY(mu_) = 0;
};

PrimitiveCache& cache() {
  static PrimitiveCache* c = new PrimitiveCache;
  return *c;
}

dnnl::memory::dims to_dims(IntSpan s) { return dnnl::memory::dims(s.begin(), s.end()); }

// Note [User scratchpad]
// ~~~~~~~~~~~~~~~~~~~~~~
// Every primitive is made with scratchpad_mode::user: execute() hands it the
// calling thread's own scratch buffer (DNNL_ARG_SCRATCHPAD). With the default,
// library-managed scratchpad, oneDNN 2.6.3's brgemm matmul (`brg:avx512_core`,
// what it picks on AVX-512 CPUs) gives wrong answers when one primitive runs on
// several threads at once: 704 of 800 products of [16,128]x[128,512] differed
// from the serial result with 4 threads (the serve workload on 4 workers, and
// a standalone oneDNN program alike; none with a user scratchpad, none with
// the AVX2 `gemm:jit` kernel). A per-thread buffer also means no allocation
// inside oneDNN per call. The buffer grows to the largest scratchpad the
// thread has needed and is freed with the thread.
dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

struct Arg {
  int kind;               // DNNL_ARG_*
  const KernelView* view; // laid out as when the primitive was made (its cache key)
};

dnnl::memory::desc md(const KernelView& v);

// Runs `tp`'s primitive on this thread's stream; false (nothing run) when it
// is empty. The memory objects of each (primitive, argument) are kept per
// thread (`tp.bound`) and pointed at this call's data (set_data_handle, when
// it moved), so a call allocates nothing
// and builds no descriptor: creating them and an argument map each time cost
// about 1 us per primitive. A primitive's arguments always have the layout of
// its cache key, so the memory made at its first call fits every later one.
// kMayLeaveStack: the primitive may run its kernel with the stack pointer on a
// heap workspace (matmul; Note [Kernels off the thread's stack]).
// `threads`: the count the primitive was made for.
enum class Stack { kStays, kMayLeaveStack };
bool execute(ThreadPrimitive& tp, int threads, std::initializer_list<Arg> args,
             Stack stack = Stack::kStays) {
  const dnnl::primitive& p = tp.p;
  if (!p) return false;
  ThreadsInScope scope(threads);
  thread_local dnnl::stream s(engine());
  Bound& b = tp.bound;
  std::array<dnnl_exec_arg_t, 5> c_args;
  size_t n = 0;
  for (const Arg& a : args) {
    dnnl::memory& m = b.args[n];
    if (!m) {
      m = dnnl::memory(md(*a.view), engine(), a.view->data);
      b.data[n] = a.view->data;
    } else if (b.data[n] != a.view->data) {  // the same operands again: nothing to re-point
      m.set_data_handle(a.view->data);
      b.data[n] = a.view->data;
    }
    c_args[n++] = dnnl_exec_arg_t{a.kind, m.get()};
  }
  // This thread's scratch buffer (Note [User scratchpad]); a primitive's
  // scratchpad memory and size are looked up once per thread.
  thread_local std::unique_ptr<void, decltype(&std::free)> scratch{nullptr, &std::free};
  thread_local size_t scratch_bytes = 0;
  if (!b.queried) {
    const dnnl_memory_desc_t* sp_md =
        dnnl_primitive_desc_query_md(p.get_primitive_desc(), dnnl_query_scratchpad_md, 0);
    b.scratch_bytes = sp_md == nullptr ? 0 : dnnl_memory_desc_get_size(sp_md);
    if (b.scratch_bytes > 0) {
      b.scratch = dnnl::memory(dnnl::memory::desc(*sp_md), engine(), DNNL_MEMORY_NONE);
    }
    b.queried = true;
  }
  if (b.scratch_bytes > 0) {
    if (b.scratch_bytes > scratch_bytes) {
      const size_t bytes = (b.scratch_bytes + 4095) / 4096 * 4096;
      scratch.reset(std::aligned_alloc(64, bytes));
      scratch_bytes = scratch == nullptr ? 0 : bytes;
      if (scratch == nullptr) return false;  // the caller's fallback runs instead
    }
    if (b.scratch_data != scratch.get()) {
      b.scratch.set_data_handle(scratch.get());
      b.scratch_data = scratch.get();
    }
    c_args[n++] = dnnl_exec_arg_t{DNNL_ARG_SCRATCHPAD, b.scratch.get()};
  }
  auto run = [&] {
    dnnl::error::wrap_c_api(dnnl_primitive_execute(p.get(), s.get(), static_cast<int>(n), c_args.data()),
                            "could not execute a primitive");
    s.wait();
  };
  if (stack == Stack::kMayLeaveStack) {
    internal::run_off_stack(run);
  } else {
    run();
  }
  g_primitive_calls.fetch_add(1, std::memory_order_relaxed);
  return true;
}

// The strides oneDNN sees. A size-1 dim's stride means nothing to us, but a 0
// there (a broadcast dim squashed to 1, matmul's batch of one, a vector operand)
// makes oneDNN fail to recognise a plain layout and fall back to `ref`. Such a
// dim gets the stride a dense layout would give it: the footprint of the dims
// inside it (1 when there are none), so the layout's dim order is unchanged.
void dnnl_strides(const KernelView& v, int64_t* st) {
  const size_t rank = v.sizes.size();
  for (size_t i = 0; i < rank; ++i) st[i] = v.strides[i];
  for (size_t i = rank; i-- > 0;) {
    if (v.sizes[i] != 1) continue;
    int64_t footprint = 1;
    for (size_t j = i + 1; j < rank; ++j) footprint = std::max(footprint, st[j] * v.sizes[j]);
    st[i] = footprint;
  }
}
dnnl::memory::dims dnnl_strides(const KernelView& v) {
  dnnl::memory::dims st(v.sizes.size());
  dnnl_strides(v, st.data());
  return st;
}

dnnl::memory::desc md(const KernelView& v) {
  if (v.sizes.empty()) return dnnl::memory::desc({1}, dt::f32, dnnl::memory::dims{1});
  return dnnl::memory::desc(to_dims(v.sizes), dt::f32, dnnl_strides(v));
}

// Note [Work, not elements]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// The primitive threshold (Onednn::set_primitive_threshold) is a count of
// cheap element operations: an add, a relu, a copy of one float, which the
// loops do at a few to the nanosecond. Below it a primitive's fixed cost
// (cache lookup, argument binding, oneDNN's dispatch: about half a
// microsecond) is more than it saves. An op whose element costs more on the
// loops counts as that many: exp, tanh, sigmoid and the others the loops
// compute one element at a time through libm (~4 ns), a matmul's
// multiply-add in the loops' plain triple loop. So oneDNN's vectorised
// kernels take exp over 1K floats while a 1K add stays on the loops
// (docs/decisions.md has the measurements).
constexpr int64_t kLibmElementCost = 32;  // exp, log, tanh, sigmoid, gelu, silu; softmax
constexpr int64_t kMatmulMacCost = 16;    // one multiply-add of the loops' matmul

bool big_f32(const KernelView& v, int64_t cost = 1) {
  return v.dtype == ScalarType::Float && v.numel() * cost >= g_threshold.load(std::memory_order_relaxed);
}
int64_t element_cost(UnaryOp op) {
  switch (op) {
    case UnaryOp::kNeg:
    case UnaryOp::kAbs:
    case UnaryOp::kSqrt:
    case UnaryOp::kRsqrt:
      return 1;
    default:
      return kLibmElementCost;
  }
}
bool has_zero_stride(const KernelView& v) {
  for (size_t i = 0; i < v.sizes.size(); ++i) {
    if (v.strides[i] == 0 && v.sizes[i] > 1) return true;
  }
  return false;
}
// A broadcast operand as oneDNN wants it: size 1 where our stride is 0 (in
// the first `dims` dims only, e.g. a matmul's batch dims).
OwnedKernelView squash_broadcast(const KernelView& v, size_t dims = SIZE_MAX) {
  OwnedKernelView r(v);
  for (size_t i = 0; i < std::min(dims, r.sizes.size()); ++i) {
    if (r.strides[i] == 0) r.sizes[i] = 1;
  }
  return r;
}

// Note [Special values]
// ~~~~~~~~~~~~~~~~~~~~~
// oneDNN's JIT eltwise and softmax kernels do not treat special values as ATen
// does: relu(NaN) is 0, exp(NaN) inf, rsqrt(-0.) +inf, rsqrt(-inf) 0, log of a
// subnormal is taken of 0 (denormals are flushed), a softmax row holding NaN or
// inf comes out as zeros. Before a primitive runs, one read-only vectorised
// pass looks for such values (NaN, +-inf, subnormals, and for rsqrt zeros); if
// any is there, the whole op runs on the loops, which give ATen's answers
// (core/element_ops.h). Ordinary data pays one read of its input. (softmax
// runs on custody's row kernel instead, which checks each row as it reads it
// for its max: Note [Softmax rows], backends/host/loops.cc.)
bool has_special_f32(const KernelView& v, bool zeros_are_special) {
  const auto* data = static_cast<const float*>(v.data);
  std::atomic<bool> found{false};
  loops::parallel_ranges(v.numel(), [&](int64_t begin, int64_t end) {
    if (loops::any_special_f32(data + begin, end - begin, zeros_are_special)) {
      found.store(true, std::memory_order_relaxed);
    }
  });
  return found.load(std::memory_order_relaxed);
}

// Runs `f`, turning oneDNN exceptions into "not handled" so the loop path runs.
// `f` returns false when the cache has no usable primitive (Note [No reference kernels]).
template <class F>
bool try_dnnl(F&& f) {
  try {
    return f();
  } catch (const dnnl::error&) {
    return false;
  }
}

}  // namespace

void Onednn::set_primitive_threshold(int64_t numel) { g_threshold.store(numel); }
int64_t Onednn::primitive_threshold() { return g_threshold.load(); }
int64_t Onednn::primitive_calls() { return g_primitive_calls.load(); }
std::vector<std::string> Onednn::implementations() { return cache().log(); }
int64_t Onednn::rejected_primitives() { return cache().rejected(); }

MemoryStats& Onednn::stats() {
  static MemoryStats* s = new MemoryStats;
  return *s;
}

// The host memory: the caching allocator of core/host_allocator.h; in-use
// bytes are exact, reserved bytes include the cache, reclaim() empties it.
static CachingHostAllocator& host_allocator() {
  static auto* a = new CachingHostAllocator(&Onednn::stats(), {.thread_cache = true});
  return *a;
}

absl::StatusOr<void*> Onednn::allocate(size_t bytes) { return host_allocator().allocate(bytes); }
void Onednn::deallocate(void* p, size_t bytes) { host_allocator().deallocate(p, bytes); }
int64_t Onednn::reclaim() { return host_allocator().reclaim(); }
int64_t Onednn::cached_bytes() { return host_allocator().cached_bytes(); }
void Onednn::set_cache_limit(int64_t bytes) { host_allocator().set_cache_limit(bytes); }

absl::Status Onednn::copy_to_host(void* dst, const void* src, size_t bytes) {
  std::memcpy(dst, src, bytes);
  return absl::OkStatus();
}

absl::Status Onednn::copy_from_host(void* dst, const void* src, size_t bytes) {
  std::memcpy(dst, src, bytes);
  return absl::OkStatus();
}

absl::Status Onednn::copy(const KernelView& dst, const KernelView& src) {
  // Large strided float32 copies: oneDNN reorder (same dtype only: its float ->
  // int conversion rounds, ATen's truncates).
  if (big_f32(dst) && src.dtype == ScalarType::Float && !has_zero_stride(src) &&
      !(dst.is_contiguous() && src.is_contiguous())) {
    if (try_dnnl([&] {
          const int threads = threads_for(dst.numel());
          auto& p = cache().get("reorder", {&dst, &src}, 0, threads, [&] {
            return dnnl::reorder(dnnl::reorder::primitive_desc(engine(), md(src), engine(), md(dst),
                                                               user_scratchpad()));
          });
          return execute(p, threads, {{DNNL_ARG_FROM, &src}, {DNNL_ARG_TO, &dst}});
        })) {
      return absl::OkStatus();
    }
  }
  return loops::copy_loop(dst, src);
}

absl::Status Onednn::fill(const KernelView& dst, const Scalar& value) {
  return loops::fill_loop(dst, value);
}

absl::Status Onednn::binary(BinaryOp op, const KernelView& out, const KernelView& a,
                            const KernelView& b) {
  dnnl::algorithm alg;
  bool commutative = true;
  switch (op) {
    case BinaryOp::kAdd: alg = dnnl::algorithm::binary_add; break;
    case BinaryOp::kMul: alg = dnnl::algorithm::binary_mul; break;
    case BinaryOp::kSub: alg = dnnl::algorithm::binary_sub; commutative = false; break;
    case BinaryOp::kDiv: alg = dnnl::algorithm::binary_div; commutative = false; break;
    default: return loops::binary_loop(op, out, a, b);  // max/min: ATen propagates NaN; compare: bool out
  }
  if (!big_f32(out) || has_zero_stride(out)) return loops::binary_loop(op, out, a, b);
  // Dense operands of one shape: the loops' pass at the CPU's vector width
  // (backends/host/loops.cc) costs no primitive dispatch; oneDNN's kernel takes
  // over from 8x the threshold (128K floats), where both are bound by memory.
  const bool dense = out.is_contiguous() && a.is_contiguous() && b.is_contiguous() && a.sizes == out.sizes &&
                     b.sizes == out.sizes;
  if (dense && out.numel() < 8 * g_threshold.load(std::memory_order_relaxed)) {
    return loops::binary_loop(op, out, a, b);
  }
  const KernelView* s0 = &a;
  const KernelView* s1 = &b;
  if (has_zero_stride(a)) {
    if (!commutative || has_zero_stride(b)) return loops::binary_loop(op, out, a, b);
    std::swap(s0, s1);
  }
  const OwnedKernelView squashed = squash_broadcast(*s1);
  const KernelView src1 = squashed;
  const int threads = threads_for(out.numel());
  if (try_dnnl([&] {
        auto& p = cache().get("binary", {&out, s0, &src1}, static_cast<int>(alg), threads, [&] {
          return dnnl::binary(
              dnnl::binary::primitive_desc(dnnl::binary::desc(alg, md(*s0), md(src1), md(out)),
                                       user_scratchpad(), engine()));
        });
        return execute(p, threads, {{DNNL_ARG_SRC_0, s0}, {DNNL_ARG_SRC_1, &src1}, {DNNL_ARG_DST, &out}});
      })) {
    return absl::OkStatus();
  }
  return loops::binary_loop(op, out, a, b);
}

absl::Status Onednn::binary_scalar(BinaryOp op, const KernelView& out, const KernelView& a,
                                   const Scalar& s, bool scalar_first) {
  // Large float32 `t + s`, `t - s`, `t * s` (and `s + t`, `s * t`): oneDNN's
  // binary primitive with the scalar as a broadcast one-element operand, whose
  // value is data, not part of the primitive (one cached primitive per shape).
  const bool commutes = op == BinaryOp::kAdd || op == BinaryOp::kMul;
  if (big_f32(out) && a.dtype == ScalarType::Float && (commutes || (op == BinaryOp::kSub && !scalar_first)) &&
      !has_zero_stride(a)) {
    float v = static_cast<float>(s.to_double());
    const Dims zeros(a.sizes.size(), 0);
    const KernelView sv{&v, ScalarType::Float, a.sizes, zeros};
    return binary(op, out, a, sv);
  }
  return loops::binary_scalar_loop(op, out, a, s, scalar_first);
}

absl::Status Onednn::unary(UnaryOp op, const KernelView& out, const KernelView& in) {
  // relu: one pass on the loops, NaN kept (Note [Relu clones], backends/host/loops.cc).
  if (op == UnaryOp::kRelu) return loops::unary_loop(op, out, in);
  if (!big_f32(out, element_cost(op)) || !out.is_contiguous() || !in.is_contiguous()) {
    return loops::unary_loop(op, out, in);
  }
  dnnl::algorithm alg;
  float alpha = 0.f, beta = 0.f;
  switch (op) {
    case UnaryOp::kNeg: alg = dnnl::algorithm::eltwise_linear; alpha = -1.f; break;
    case UnaryOp::kAbs: alg = dnnl::algorithm::eltwise_abs; break;
    case UnaryOp::kExp: alg = dnnl::algorithm::eltwise_exp; break;
    case UnaryOp::kLog: alg = dnnl::algorithm::eltwise_log; break;
    case UnaryOp::kSqrt: alg = dnnl::algorithm::eltwise_sqrt; break;
    case UnaryOp::kRsqrt: alg = dnnl::algorithm::eltwise_pow; alpha = 1.f; beta = -0.5f; break;
    case UnaryOp::kTanh: alg = dnnl::algorithm::eltwise_tanh; break;
    case UnaryOp::kSigmoid: alg = dnnl::algorithm::eltwise_logistic; break;
    case UnaryOp::kGelu: alg = dnnl::algorithm::eltwise_gelu_erf; break;
    case UnaryOp::kSilu: alg = dnnl::algorithm::eltwise_swish; alpha = 1.f; break;
    default: return loops::unary_loop(op, out, in);  // sin, cos: no oneDNN eltwise
  }
  if (has_special_f32(in, /*zeros_are_special=*/op == UnaryOp::kRsqrt)) {
    return loops::unary_loop(op, out, in);  // Note [Special values]
  }
  const int threads = threads_for(out.numel());
  if (try_dnnl([&] {
        auto& p = cache().get("eltwise", {&in, &out}, static_cast<int>(op), threads, [&] {
          return dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(
              dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, alg, md(in), alpha, beta),
              user_scratchpad(), engine()));
        });
        return execute(p, threads, {{DNNL_ARG_SRC, &in}, {DNNL_ARG_DST, &out}});
      })) {
    return absl::OkStatus();
  }
  return loops::unary_loop(op, out, in);
}

absl::Status Onednn::where(const KernelView& out, const KernelView& cond, const KernelView& a,
                           const KernelView& b) {
  return loops::where_loop(out, cond, a, b);
}

absl::Status Onednn::reduce(ReduceOp op, const KernelView& out, const KernelView& in) {
  // No oneDNN primitive: 2.6 has JIT reductions only over trailing dims, where
  // the loops (vector lanes in double, split over the threads) are faster and
  // more accurate (sum/4096x4096 in onednn_benchmark); max/min there do not
  // propagate NaN as ATen does; every other layout runs `ref`.
  return loops::reduce_loop(op, out, in);
}

namespace {

// Whether the float views' memory overlaps (their spans, contiguous views).
bool spans_overlap(const KernelView& a, const KernelView& b) {
  const auto* a0 = static_cast<const char*>(a.data);
  const auto* b0 = static_cast<const char*>(b.data);
  const auto* a1 = a0 + a.numel() * static_cast<int64_t>(sizeof(float));
  const auto* b1 = b0 + b.numel() * static_cast<int64_t>(sizeof(float));
  return a0 < b1 && b0 < a1;
}

// A softmax over `dim` of contiguous float32 whose later dims all have size 1,
// on custody's row kernel (Note [Softmax rows], backends/host/loops.cc), which
// checks each row for special values as it reads it for its max; a row holding
// one runs on the loops. Rows are split over the threads from kParallelGrain
// elements read and written.
absl::Status softmax_rows(const KernelView& out, const KernelView& in, int64_t dim, bool log) {
  const int64_t cols = in.sizes[static_cast<size_t>(dim)];
  const int64_t rows = in.numel() / cols;
  auto* o = static_cast<float*>(out.data);
  const auto* x = static_cast<const float*>(in.data);
  std::atomic<bool> failed{false};
  absl::Mutex mu;
  absl::Status error;
  loops::parallel_ranges(
      rows,
      [&](int64_t r0, int64_t r1) {
        const Dims sizes{cols}, strides{1};
        for (int64_t r = r0; r < r1 && !failed.load(std::memory_order_relaxed);) {
          r += loops::softmax_rows_f32(o + r * cols, x + r * cols, r1 - r, cols, log);
          if (r == r1) break;
          const KernelView row_in{const_cast<float*>(x + r * cols), ScalarType::Float, sizes, strides};
          const KernelView row_out{o + r * cols, ScalarType::Float, sizes, strides};
          if (absl::Status st = loops::softmax_loop(row_out, row_in, 0, log); !st.ok()) {
            absl::MutexLock lock(&mu);
            error = st;
            failed.store(true, std::memory_order_relaxed);
          }
          ++r;
        }
      },
      2 * in.numel());
  return error;
}

}  // namespace

absl::Status Onednn::softmax(const KernelView& out, const KernelView& in, int64_t dim, bool log) {
  // oneDNN's softmax primitive is not used: over the innermost axis custody's
  // row kernel does its work and the special-value check in the same passes
  // (Note [Softmax rows]); over another axis oneDNN 2.6 has only `ref`.
  bool innermost = in.numel() > 0;
  for (size_t d = static_cast<size_t>(dim) + 1; d < in.sizes.size(); ++d) innermost &= in.sizes[d] == 1;
  if (innermost && big_f32(in, kLibmElementCost) && out.dtype == ScalarType::Float && in.is_contiguous() &&
      out.is_contiguous() && (out.data == in.data || !spans_overlap(out, in))) {
    return softmax_rows(out, in, dim, log);
  }
  return loops::softmax_loop(out, in, dim, log);
}

namespace {

// Note [Matmul layouts]
// ~~~~~~~~~~~~~~~~~~~~~
// oneDNN's JIT matmuls (brgemm, gemm:jit) take each [batch, rows, cols]
// operand in a plain layout: the matrix row-major (col stride 1, row stride >=
// cols) or column-major (transposed views), and batches that do not overlap.
// Broadcast batches come as a batch of one. Any other view custody passes
// (a narrowed column, a permuted batch, a strided inner dim) is first copied
// into a dense scratch buffer, which costs O(n^2) against the O(n^3) product.
bool gemm_layout(const KernelView& v) {
  const size_t r = v.sizes.size();
  int64_t st[DNNL_MAX_NDIMS];  // no allocation on the per-call path
  dnnl_strides(v, st);
  const int64_t rows = v.sizes[r - 2], cols = v.sizes[r - 1];
  const bool row_major = st[r - 1] == 1 && st[r - 2] >= cols;
  const bool col_major = st[r - 2] == 1 && st[r - 1] >= rows;
  if (!row_major && !col_major) return false;
  // The batch dims nest outside the matrix, each outside the next.
  int64_t footprint = row_major ? rows * st[r - 2] : cols * st[r - 1];
  for (size_t d = r - 2; d-- > 0;) {
    if (v.sizes[d] == 1) continue;
    if (st[d] < footprint) return false;
    footprint = st[d] * v.sizes[d];
  }
  return true;
}

// A dense copy of `v` in scratch memory owned by the caller.
struct DenseCopy {
  std::unique_ptr<void, decltype(&std::free)> buffer{nullptr, &std::free};
  OwnedKernelView view;
};
absl::Status dense_copy(const KernelView& v, DenseCopy& out) {
  const size_t bytes = static_cast<size_t>(v.numel()) * sizeof(float);
  out.buffer.reset(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
  if (out.buffer == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("matmul: out of host memory for a %d-byte dense copy of an operand", bytes));
  }
  out.view = OwnedKernelView(out.buffer.get(), v.dtype, Dims(v.sizes.begin(), v.sizes.end()),
                             contiguous_strides(v.sizes));
  return Onednn::copy(out.view, v);
}

}  // namespace

// The longest inner dim (K) for which oneDNN's f32 JIT gemm keeps its packed
// copy on the thread's own stack, with room to spare (the kernel's is 252).
constexpr int64_t kOnStackInnerDim = 128;

absl::Status Onednn::matmul(const KernelView& out, const KernelView& a, const KernelView& b) {
  const size_t r = out.sizes.size(), nbatch = r - 2;
  const int64_t work = out.numel() * a.sizes[r - 1];
  if (a.dtype != ScalarType::Float || work * kMatmulMacCost < g_threshold.load(std::memory_order_relaxed) ||
      r > DNNL_MAX_NDIMS) {
    return loops::matmul_loop(out, a, b);
  }
  // A broadcast batch dim (stride 0) is a dim of size 1 to oneDNN, which
  // broadcasts it; zero strides inside a matrix (expanded views) are not a
  // gemm layout and take the dense copy. (Views are copied, as
  // OwnedKernelViews, only where they change.)
  const auto broadcasts = [nbatch](const KernelView& v) {
    for (size_t d = 0; d < nbatch; ++d) {
      if (v.strides[d] == 0 && v.sizes[d] != 1) return true;
    }
    return false;
  };
  KernelView va = a, vb = b, vo = out;
  OwnedKernelView sa, sb, o;
  if (broadcasts(a)) va = sa = squash_broadcast(a, nbatch);
  if (broadcasts(b)) vb = sb = squash_broadcast(b, nbatch);
  // A batch dim both operands broadcast (expanded views on both sides) has no
  // oneDNN form: with one batch dim, one product is copied into every output
  // batch; with more, the loops compute it.
  bool one_product = false;
  for (size_t d = 0; d < nbatch; ++d) {
    if (va.sizes[d] == 1 && vb.sizes[d] == 1 && out.sizes[d] != 1) {
      if (nbatch > 1) return loops::matmul_loop(out, a, b);
      one_product = true;
    }
  }
  if (one_product) {
    o = OwnedKernelView(out);
    o.sizes[0] = 1;
    vo = o;
  }
  DenseCopy ca, cb;
  if (!gemm_layout(va)) {
    if (absl::Status s = dense_copy(va, ca); !s.ok()) return s;
    va = ca.view;
  }
  if (!gemm_layout(vb)) {
    if (absl::Status s = dense_copy(vb, cb); !s.ok()) return s;
    vb = cb.view;
  }
  bool single = true;
  for (size_t d = 0; d < nbatch; ++d) single = single && vo.sizes[d] == 1;
  if (single) {
    // One product: described as 2-D (oneDNN's batched brgemm costs ~2 us more
    // per call at n = 64; matmul_2d/n=64 in onednn_benchmark).
    for (KernelView* v : {&va, &vb, &vo}) {
      v->sizes = v->sizes.subspan(nbatch);
      v->strides = v->strides.subspan(nbatch);
    }
  }
  const int threads = threads_for(work, kMatmulGrain);
  // Only a long inner dim may move the kernel's stack pointer off this
  // thread's stack (Note [Kernels off the thread's stack]: K > 252); the runner
  // costs a getcontext, a signal-mask syscall, on every call.
  const Stack stack = a.sizes[r - 1] > kOnStackInnerDim ? Stack::kMayLeaveStack : Stack::kStays;
  if (try_dnnl([&] {
        auto& p = cache().get("matmul", {&va, &vb, &vo}, 0, threads, [&] {
          return dnnl::matmul(
              dnnl::matmul::primitive_desc(dnnl::matmul::desc(md(va), md(vb), md(vo)), user_scratchpad(),
                                       engine()));
        });
        return execute(p, threads, {{DNNL_ARG_SRC, &va}, {DNNL_ARG_WEIGHTS, &vb}, {DNNL_ARG_DST, &vo}},
                       stack);
      })) {
    if (!one_product) return absl::OkStatus();
    OwnedKernelView first = o, rest(out);
    first.strides[0] = 0;  // batch 0, broadcast over the other batches
    first.sizes[0] = rest.sizes[0] = out.sizes[0] - 1;
    rest.data = static_cast<char*>(out.data) + out.strides[0] * sizeof(float);
    return copy(rest, first);
  }
  return loops::matmul_loop(out, a, b);
}

absl::Status Onednn::index_select(const KernelView& out, const KernelView& in, int64_t dim,
                                  const KernelView& index) {
  return loops::index_select_loop(out, in, dim, index);
}

absl::Status Onednn::random(const KernelView& out, RandomDist dist, const RandomParams& params) {
  return loops::random_loop(out, dist, params);
}

}  // namespace custody
