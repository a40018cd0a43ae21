// Copyright 2026 The custody Authors.
//
// custody/c_api.cc — custody/c_api.h over custody::Tensor, the handle type the
// build selection chose (custody/tensor.h): written once, compiled once per
// selection.
//
// Note [The handle table]
// ~~~~~~~~~~~~~~~~~~~~~~~
// A custody_tensor is a 64-bit value, never a pointer: the build's tag (8
// bits: which library made it), the slot's generation (24 bits) and the slot's
// index (32 bits). A slot holds one custody::Tensor handle, a reference count
// (retain/release) and a state word: its generation, whether it is live,
// whether it is closing, and how many calls are using it now. A call that
// takes a handle enters its slot (a CAS that fails on a stale generation, a
// slot not live or closing: a LifetimeError, never a read of freed memory) and
// leaves it when done. Closing a slot (the last release, a dispose, a scope's
// end) marks it closing, waits until no call uses it, gives the C++ handle's
// reference back with custody::release, bumps the generation and puts the slot
// on the free list. So any thread may release any handle, a runtime's
// finalizer thread in the middle of another thread's call included: the
// handle goes when the call is done. The slots' C++ handles live in
// PolicyTraits<P>::vector (core/policy_traits.h), where a collecting policy's
// collector sees them. Slots come in chunks that are never freed, so a stale
// handle's slot is always there to be checked.

#include "custody/c_api.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/policy_traits.h"
#include "custody/tensor.h"

namespace custody::c_api {
namespace {

using T = Tensor;
using Traits = PolicyTraits<SelectedPolicy>;

// ---- Errors ------------------------------------------------------------------------------

struct LastError {
  custody_status status = CUSTODY_OK;
  int32_t code = 0;
  std::string message;
};
LastError& last_error() {
  thread_local LastError e;
  return e;
}

void set_error(custody_status status, absl::StatusCode code, std::string message) {
  LastError& e = last_error();
  e.status = status;
  e.code = static_cast<int32_t>(code);
  e.message = std::move(message);
}

// The status of the exception being handled (inside a catch block).
void set_error_from_current_exception() {
  try {
    throw;
  } catch (const ShapeError& e) {
    set_error(CUSTODY_ERROR_SHAPE, e.code(), e.what());
  } catch (const DTypeError& e) {
    set_error(CUSTODY_ERROR_DTYPE, e.code(), e.what());
  } catch (const LifetimeError& e) {
    set_error(CUSTODY_ERROR_LIFETIME, e.code(), e.what());
  } catch (const OutOfMemoryError& e) {
    set_error(CUSTODY_ERROR_OUT_OF_MEMORY, e.code(), e.what());
  } catch (const DeviceError& e) {
    set_error(CUSTODY_ERROR_DEVICE, e.code(), e.what());
  } catch (const InvalidArgument& e) {
    set_error(CUSTODY_ERROR_INVALID_ARGUMENT, e.code(), e.what());
  } catch (const Error& e) {
    set_error(CUSTODY_ERROR_INTERNAL, e.code(), e.what());
  } catch (const std::bad_alloc&) {
    set_error(CUSTODY_ERROR_OUT_OF_MEMORY, absl::StatusCode::kResourceExhausted, "out of host memory");
  } catch (const std::exception& e) {
    set_error(CUSTODY_ERROR_INTERNAL, absl::StatusCode::kInternal, e.what());
  } catch (...) {
    set_error(CUSTODY_ERROR_INTERNAL, absl::StatusCode::kInternal, "an unknown exception");
  }
}

// Runs f() for a function returning a status: CUSTODY_OK, or the error.
template <class F>
custody_status guarded(F&& f) {
  try {
    f();
    return CUSTODY_OK;
  } catch (...) {
    set_error_from_current_exception();
    return last_error().status;
  }
}

// Runs f() for a function returning a value: f's, or `failed` on error.
template <class R, class F>
R guarded_value(R failed, F&& f) {
  try {
    return f();
  } catch (...) {
    set_error_from_current_exception();
    return failed;
  }
}

// ---- The handle table (Note [The handle table]) ------------------------------------------

constexpr uint64_t kIndexBits = 32;
constexpr uint64_t kGenerationBits = 24;
constexpr uint64_t kGenerationMask = (uint64_t{1} << kGenerationBits) - 1;
constexpr uint32_t kChunkSlots = 4096;
constexpr uint32_t kMaxChunks = 1u << 14;  // 64M handles at once

// The build's tag: a hash of "policy/backend", its top bit set so that no
// small integer or null is a handle.
constexpr uint64_t build_tag() {
  uint32_t h = 2166136261u;  // FNV-1a
  for (const char* p = SelectedPolicy::name; *p; ++p) h = (h ^ static_cast<uint8_t>(*p)) * 16777619u;
  h = (h ^ '/') * 16777619u;
  for (const char* p = SelectedBackend::name; *p; ++p) h = (h ^ static_cast<uint8_t>(*p)) * 16777619u;
  return 0x80u | ((h ^ (h >> 8) ^ (h >> 16) ^ (h >> 24)) & 0x7fu);
}
constexpr uint64_t kTag = build_tag();

// The state word: generation (bits 40-63), live (bit 39), closing (bit 38), users (bits 0-31).
constexpr uint64_t kLive = uint64_t{1} << 39;
constexpr uint64_t kClosing = uint64_t{1} << 38;
constexpr uint64_t kUsersMask = (uint64_t{1} << 32) - 1;
constexpr uint64_t generation_of(uint64_t state) { return state >> 40; }

struct Slot {
  std::atomic<uint64_t> state{0};
  std::atomic<int64_t> refs{0};
  std::atomic<uint64_t> scope{0};  // the id of the dispose scope it belongs to; 0: none
};

struct Chunk {
  Slot slots[kChunkSlots];
  typename Traits::template vector<T> tensors = typename Traits::template vector<T>(kChunkSlots);
};

class Table {
 public:
  // A slot for `t` (moved in): its handle.
  uint64_t add(T&& t) {
    uint32_t index;
    {
      absl::MutexLock lock(&mu_);
      if (free_.empty()) grow();
      index = free_.back();
      free_.pop_back();
    }
    Slot& s = slot(index);
    tensor(index) = std::move(t);
    s.refs.store(1, std::memory_order_relaxed);
    s.scope.store(0, std::memory_order_relaxed);
    const uint64_t generation = generation_of(s.state.load(std::memory_order_relaxed));
    s.state.store((generation << 40) | kLive, std::memory_order_release);
    live_.fetch_add(1, std::memory_order_relaxed);
    return (kTag << 56) | (generation << kIndexBits) | index;
  }

  // The slot a handle names, checked: InvalidArgument for a value no library
  // of this build made; nullptr when the index was never handed out.
  Slot* find(uint64_t h, const char* op) const {
    if (h == 0) throw InvalidArgument(absl::StrFormat("%s: the tensor handle is null", op));
    if ((h >> 56) != kTag) {
      throw InvalidArgument(absl::StrFormat(
          "%s: 0x%x is not a tensor handle of this library (custody C ABI, policy %s, backend %s)", op, h,
          SelectedPolicy::name, SelectedBackend::name));
    }
    const auto index = static_cast<uint32_t>(h);
    if (index >= chunks_made_.load(std::memory_order_acquire) * kChunkSlots) {
      throw InvalidArgument(absl::StrFormat("%s: 0x%x is not a tensor handle this library made", op, h));
    }
    return &slot(index);
  }

  [[noreturn]] static void throw_gone(uint64_t h, const char* op) {
    throw LifetimeError(absl::StrFormat(
        "%s: tensor handle 0x%x was used after it was released or disposed (custody C ABI)", op, h));
  }

  // Enters the slot for a call: LifetimeError if the handle is gone.
  Slot& enter(uint64_t h, const char* op) {
    Slot& s = *find(h, op);
    const uint64_t generation = (h >> kIndexBits) & kGenerationMask;
    uint64_t state = s.state.load(std::memory_order_acquire);
    do {
      if (generation_of(state) != generation || !(state & kLive) || (state & kClosing)) throw_gone(h, op);
    } while (!s.state.compare_exchange_weak(state, state + 1, std::memory_order_acquire));
    return s;
  }
  static void leave(Slot& s) { s.state.fetch_sub(1, std::memory_order_release); }

  T& tensor(uint64_t h) { return tensor(static_cast<uint32_t>(h)); }

  // Closes the slot: false if the handle was already gone (or closing).
  bool close(uint64_t h, const char* op) {
    Slot& s = *find(h, op);
    const uint64_t generation = (h >> kIndexBits) & kGenerationMask;
    uint64_t state = s.state.load(std::memory_order_acquire);
    do {
      if (generation_of(state) != generation || !(state & kLive) || (state & kClosing)) return false;
    } while (!s.state.compare_exchange_weak(state, state | kClosing, std::memory_order_acq_rel));
    // Wait for the calls using it (another thread's; never this one's: a call
    // that holds a slot closes none).
    while ((s.state.load(std::memory_order_acquire) & kUsersMask) != 0) std::this_thread::yield();
    // Given back in place: a collector still finds the handle in the table
    // while it goes, not only on this thread's stack (a finalizer thread may
    // be one the collector does not scan).
    const auto index = static_cast<uint32_t>(h);
    custody::release(tensor(index));
    tensor(index) = T();
    s.scope.store(0, std::memory_order_relaxed);
    s.state.store(((generation + 1) & kGenerationMask) << 40, std::memory_order_release);
    {
      absl::MutexLock lock(&mu_);
      free_.push_back(index);
    }
    live_.fetch_sub(1, std::memory_order_relaxed);
    return true;
  }

  // Whether h names a live handle now (no error).
  bool is_live(uint64_t h) const {
    if ((h >> 56) != kTag) return false;
    const auto index = static_cast<uint32_t>(h);
    if (index >= chunks_made_.load(std::memory_order_acquire) * kChunkSlots) return false;
    const uint64_t state = slot(index).state.load(std::memory_order_acquire);
    return generation_of(state) == ((h >> kIndexBits) & kGenerationMask) && (state & kLive) &&
           !(state & kClosing);
  }

  int64_t live() const { return live_.load(std::memory_order_relaxed); }

 private:
  Slot& slot(uint32_t index) const { return chunks_[index / kChunkSlots].load()->slots[index % kChunkSlots]; }
  T& tensor(uint32_t index) { return chunks_[index / kChunkSlots].load()->tensors[index % kChunkSlots]; }

  void grow() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const uint32_t n = chunks_made_.load(std::memory_order_relaxed);
    if (n == kMaxChunks) {
      throw OutOfMemoryError(absl::StrFormat("custody C ABI: %d tensor handles are live at once, the most it keeps",
                                             int64_t{kMaxChunks} * kChunkSlots));
    }
    chunks_[n].store(new Chunk, std::memory_order_release);  // never freed: stale handles stay checkable
    for (uint32_t i = kChunkSlots; i-- > 0;) free_.push_back(n * kChunkSlots + i);
    chunks_made_.store(n + 1, std::memory_order_release);
  }

  absl::Mutex mu_;
  std::vector<uint32_t> free_ ABSL_GUARDED_BY(mu_);
  std::atomic<Chunk*> chunks_[kMaxChunks] = {};
  std::atomic<uint32_t> chunks_made_{0};
  std::atomic<int64_t> live_{0};
};

Table& table() {
  static Table* t = new Table;  // never destroyed: finalizer threads may outlive static destructors
  return *t;
}

uint64_t bits(custody_tensor t) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(t)); }
custody_tensor handle(uint64_t h) { return reinterpret_cast<custody_tensor>(static_cast<uintptr_t>(h)); }

// A handle argument in use for one call (RAII).
class Use {
 public:
  Use(custody_tensor t, const char* op) : h_(bits(t)), slot_(table().enter(h_, op)) {}
  ~Use() { Table::leave(slot_); }
  Use(const Use&) = delete;
  Use& operator=(const Use&) = delete;
  const T& operator*() const { return table().tensor(h_); }
  const T* operator->() const { return &table().tensor(h_); }
  uint64_t handle_bits() const { return h_; }
  Slot& slot() const { return slot_; }

 private:
  uint64_t h_;
  Slot& slot_;
};

// ---- Dispose scopes ----------------------------------------------------------------------

struct Scope {
  uint64_t id;
  std::vector<uint64_t> handles;  // what was added; those still in it have slot.scope == id
};
std::atomic<uint64_t> g_next_scope_id{1};
std::vector<Scope>& scopes() {
  thread_local std::vector<Scope> s;
  return s;
}

// A fresh handle for `t`, in this thread's innermost scope if one is open.
custody_tensor fresh(T t) {
  Traits::persist(t);  // the C ABI's scopes own it, not a C++ dispose scope
  const uint64_t h = table().add(std::move(t));
  std::vector<Scope>& open = scopes();
  if (!open.empty()) {
    Scope& top = open.back();
    table().find(h, "fresh")->scope.store(top.id, std::memory_order_relaxed);
    top.handles.push_back(h);
  }
  return handle(h);
}

// Makes a tensor with `make()` (allowed with no C++ dispose scope open) and returns a fresh handle.
template <class F>
custody_tensor make(F&& f) {
  return guarded_value<custody_tensor>(nullptr, [&] {
    [[maybe_unused]] typename Traits::Unscoped unscoped;
    return fresh(f());
  });
}

// Disposes what still belongs to `scope` among `handles`, keeping those `keep` says.
template <class Keep>
void dispose_scope_handles(const Scope& scope, Keep&& keep, std::vector<uint64_t>* kept) {
  for (uint64_t h : scope.handles) {
    if (!table().is_live(h)) continue;
    if (table().find(h, "custody_scope_end")->scope.load(std::memory_order_relaxed) != scope.id) continue;
    if (keep(h)) {
      if (kept != nullptr) kept->push_back(h);
      continue;
    }
    table().close(h, "custody_scope_end");
  }
}

Dims dims(const int64_t* sizes, size_t ndim, const char* op) {
  if (sizes == nullptr && ndim != 0) throw InvalidArgument(absl::StrFormat("%s: sizes is null with ndim %d", op, ndim));
  return Dims(sizes, sizes + ndim);
}

ScalarType scalar_type(int32_t d, const char* op) {
  for (ScalarType t : kAllScalarTypes) {
    if (static_cast<int32_t>(t) == d) return t;
  }
  throw DTypeError(absl::StrFormat("%s: %d is not a custody_dtype", op, d));
}

}  // namespace
}  // namespace custody::c_api

using custody::c_api::Use;
namespace capi = custody::c_api;

extern "C" {

int32_t custody_c_api_version(void) { return CUSTODY_C_API_VERSION; }
const char* custody_policy_name(void) { return custody::SelectedPolicy::name; }
const char* custody_backend_name(void) { return custody::SelectedBackend::name; }

custody_status custody_last_error(void) { return capi::last_error().status; }
int32_t custody_last_error_code(void) { return capi::last_error().code; }
const char* custody_last_error_message(void) { return capi::last_error().message.c_str(); }
void custody_clear_error(void) { capi::last_error() = capi::LastError(); }

custody_status custody_retain(custody_tensor t) {
  return capi::guarded([&] {
    Use u(t, "custody_retain");
    u.slot().refs.fetch_add(1, std::memory_order_relaxed);
  });
}

custody_status custody_release(custody_tensor t) {
  return capi::guarded([&] {
    int64_t left;
    {
      Use u(t, "custody_release");
      left = u.slot().refs.fetch_sub(1, std::memory_order_acq_rel) - 1;
    }
    // Below zero: another thread's release took the last reference first.
    if (left < 0 || (left == 0 && !capi::table().close(capi::bits(t), "custody_release"))) {
      capi::Table::throw_gone(capi::bits(t), "custody_release");
    }
  });
}

custody_status custody_dispose(custody_tensor t) {
  return capi::guarded([&] { capi::table().close(capi::bits(t), "custody_dispose"); });
}

int32_t custody_is_live(custody_tensor t) { return capi::table().is_live(capi::bits(t)) ? 1 : 0; }

custody_status custody_scope_begin(void) {
  return capi::guarded([] {
    capi::scopes().push_back(capi::Scope{capi::g_next_scope_id.fetch_add(1), {}});
  });
}

custody_status custody_scope_end(void) {
  return capi::guarded([] {
    std::vector<capi::Scope>& open = capi::scopes();
    if (open.empty()) throw custody::LifetimeError("custody_scope_end: no dispose scope is open on this thread");
    capi::Scope top = std::move(open.back());
    open.pop_back();
    capi::dispose_scope_handles(top, [](uint64_t) { return false; }, nullptr);
  });
}

int32_t custody_scope_depth(void) { return static_cast<int32_t>(capi::scopes().size()); }

custody_status custody_move_to_outer(custody_tensor t) {
  return capi::guarded([&] {
    Use u(t, "custody_move_to_outer");
    std::vector<capi::Scope>& open = capi::scopes();
    const uint64_t id = u.slot().scope.load(std::memory_order_relaxed);
    if (id == 0) return;  // in no scope: stays in none
    size_t i = 0;
    while (i < open.size() && open[i].id != id) ++i;
    if (i == open.size()) {
      throw custody::LifetimeError(
          "custody_move_to_outer: the tensor belongs to a dispose scope of another thread");
    }
    if (i == 0) {
      u.slot().scope.store(0, std::memory_order_relaxed);
    } else {
      u.slot().scope.store(open[i - 1].id, std::memory_order_relaxed);
      open[i - 1].handles.push_back(u.handle_bits());
    }
  });
}

custody_status custody_detach(custody_tensor t) {
  return capi::guarded([&] {
    Use u(t, "custody_detach");
    u.slot().scope.store(0, std::memory_order_relaxed);
  });
}

custody_status custody_dispose_everything_but(const custody_tensor* keep, size_t n) {
  return capi::guarded([&] {
    std::vector<capi::Scope>& open = capi::scopes();
    if (open.empty()) {
      throw custody::LifetimeError("custody_dispose_everything_but: no dispose scope is open on this thread");
    }
    if (keep == nullptr && n != 0) throw custody::InvalidArgument("custody_dispose_everything_but: keep is null");
    std::vector<uint64_t> kept;
    capi::Scope& top = open.back();
    capi::dispose_scope_handles(
        top,
        [&](uint64_t h) {
          for (size_t i = 0; i < n; ++i) {
            if (capi::bits(keep[i]) == h) return true;
          }
          return false;
        },
        &kept);
    top.handles = std::move(kept);
  });
}

int64_t custody_live_handles(void) { return capi::table().live(); }
int64_t custody_live_tensors(void) { return custody::SelectedBackend::stats().snapshot().live_tensors; }
int64_t custody_bytes_in_use(void) { return custody::SelectedBackend::stats().snapshot().bytes_in_use; }

custody_tensor custody_empty(const int64_t* sizes, size_t ndim, int32_t dtype) {
  return capi::make([&] {
    return capi::T::empty(capi::dims(sizes, ndim, "custody_empty"), capi::scalar_type(dtype, "custody_empty"));
  });
}
custody_tensor custody_zeros(const int64_t* sizes, size_t ndim, int32_t dtype) {
  return capi::make([&] {
    return capi::T::zeros(capi::dims(sizes, ndim, "custody_zeros"), capi::scalar_type(dtype, "custody_zeros"));
  });
}
custody_tensor custody_ones(const int64_t* sizes, size_t ndim, int32_t dtype) {
  return capi::make([&] {
    return capi::T::ones(capi::dims(sizes, ndim, "custody_ones"), capi::scalar_type(dtype, "custody_ones"));
  });
}
custody_tensor custody_full(const int64_t* sizes, size_t ndim, double value, int32_t dtype) {
  return capi::make([&] {
    return capi::T::full(capi::dims(sizes, ndim, "custody_full"), custody::Scalar(value),
                         capi::scalar_type(dtype, "custody_full"));
  });
}
custody_tensor custody_scalar(double value, int32_t dtype) {
  return capi::make([&] { return capi::T::scalar(custody::Scalar(value), capi::scalar_type(dtype, "custody_scalar")); });
}
custody_tensor custody_arange(double start, double end, double step, int32_t dtype) {
  return capi::make([&] {
    return capi::T::arange(custody::Scalar(start), custody::Scalar(end), custody::Scalar(step),
                           capi::scalar_type(dtype, "custody_arange"));
  });
}
custody_tensor custody_randn(const int64_t* sizes, size_t ndim, int32_t dtype) {
  return capi::make([&] {
    return capi::T::randn(capi::dims(sizes, ndim, "custody_randn"), capi::scalar_type(dtype, "custody_randn"));
  });
}
custody_tensor custody_from_data(const void* data, size_t nbytes, const int64_t* sizes, size_t ndim,
                                 int32_t dtype) {
  return capi::make([&] {
    const char* op = "custody_from_data";
    if (data == nullptr && nbytes != 0) throw custody::InvalidArgument("custody_from_data: data is null");
    const custody::Dims s = capi::dims(sizes, ndim, op);
    return capi::T::adopt(custody::internal::Ops<custody::SelectedBackend>::from_host(
        data, nbytes, capi::scalar_type(dtype, op), custody::IntSpan(s.data(), s.size()),
        custody::TensorShapeDynamism::DYNAMIC_BOUND, op));
  });
}

int64_t custody_dim(custody_tensor t) {
  return capi::guarded_value<int64_t>(-1, [&] { return Use(t, "custody_dim")->dim(); });
}
int64_t custody_numel(custody_tensor t) {
  return capi::guarded_value<int64_t>(-1, [&] { return Use(t, "custody_numel")->numel(); });
}
int64_t custody_size(custody_tensor t, int64_t dim) {
  return capi::guarded_value<int64_t>(-1, [&] { return Use(t, "custody_size")->size(dim); });
}
int64_t custody_sizes(custody_tensor t, int64_t* out, size_t capacity) {
  return capi::guarded_value<int64_t>(-1, [&] {
    Use u(t, "custody_sizes");
    const custody::IntSpan s = u->sizes();
    if (out == nullptr && capacity != 0) throw custody::InvalidArgument("custody_sizes: out is null");
    for (size_t i = 0; i < s.size() && i < capacity; ++i) out[i] = s[i];
    return static_cast<int64_t>(s.size());
  });
}
int32_t custody_dtype_of(custody_tensor t) {
  return capi::guarded_value<int32_t>(-1, [&] { return static_cast<int32_t>(Use(t, "custody_dtype_of")->dtype()); });
}
int64_t custody_nbytes(custody_tensor t) {
  return capi::guarded_value<int64_t>(-1, [&] { return static_cast<int64_t>(Use(t, "custody_nbytes")->nbytes()); });
}
custody_status custody_item(custody_tensor t, double* out) {
  return capi::guarded([&] {
    if (out == nullptr) throw custody::InvalidArgument("custody_item: out is null");
    *out = Use(t, "custody_item")->item<double>();
  });
}
custody_status custody_copy_to(custody_tensor t, void* out, size_t capacity) {
  return capi::guarded([&] {
    Use u(t, "custody_copy_to");
    const size_t need = static_cast<size_t>(u->numel()) * u->element_size();
    if (capacity < need) {
      throw custody::InvalidArgument(absl::StrFormat("custody_copy_to: %d bytes of room for %s of %d bytes",
                                                     capacity, custody::dtype_name(u->dtype()), need));
    }
    if (out == nullptr && need != 0) throw custody::InvalidArgument("custody_copy_to: out is null");
    custody::visit_dtype(u->dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      if constexpr (std::is_same_v<E, bool>) {
        const std::vector<bool> v = u->template to_vector<bool>();
        auto* o = static_cast<uint8_t*>(out);
        for (size_t i = 0; i < v.size(); ++i) o[i] = v[i] ? 1 : 0;
      } else {
        const std::vector<E> v = u->template to_vector<E>();
        if (need != 0) std::memcpy(out, v.data(), need);
      }
    });
  });
}

#define CUSTODY_C_BINARY(name, expr)                                      \
  custody_tensor custody_##name(custody_tensor a, custody_tensor b) {     \
    return capi::make([&] {                                               \
      Use x(a, "custody_" #name), y(b, "custody_" #name);                 \
      return expr;                                                        \
    });                                                                   \
  }
CUSTODY_C_BINARY(add, x->add(*y))
CUSTODY_C_BINARY(sub, x->sub(*y))
CUSTODY_C_BINARY(mul, x->mul(*y))
CUSTODY_C_BINARY(div, x->div(*y))
CUSTODY_C_BINARY(matmul, x->matmul(*y))
CUSTODY_C_BINARY(eq, x->eq(*y))
CUSTODY_C_BINARY(add_, x->add_(*y))
CUSTODY_C_BINARY(mul_, x->mul_(*y))
CUSTODY_C_BINARY(copy_, x->copy_(*y))
#undef CUSTODY_C_BINARY

#define CUSTODY_C_UNARY(name, expr)                       \
  custody_tensor custody_##name(custody_tensor a) {       \
    return capi::make([&] {                               \
      Use x(a, "custody_" #name);                         \
      return expr;                                        \
    });                                                   \
  }
CUSTODY_C_UNARY(neg, x->neg())
CUSTODY_C_UNARY(exp, x->exp())
CUSTODY_C_UNARY(log, x->log())
CUSTODY_C_UNARY(tanh, x->tanh())
CUSTODY_C_UNARY(sigmoid, x->sigmoid())
CUSTODY_C_UNARY(relu, x->relu())
CUSTODY_C_UNARY(sum, x->sum())
CUSTODY_C_UNARY(mean, x->mean())
CUSTODY_C_UNARY(alias, x->alias())
CUSTODY_C_UNARY(contiguous, x->contiguous())
#undef CUSTODY_C_UNARY

#define CUSTODY_C_WITH(name, params, expr)               \
  custody_tensor custody_##name(custody_tensor a, params) { \
    return capi::make([&] {                              \
      Use x(a, "custody_" #name);                        \
      return expr;                                       \
    });                                                  \
  }
#define CUSTODY_C_COMMA ,
CUSTODY_C_WITH(add_scalar, double s, x->add(s))
CUSTODY_C_WITH(mul_scalar, double s, x->mul(s))
CUSTODY_C_WITH(mul_scalar_, double s, x->mul_(s))
CUSTODY_C_WITH(fill_, double v, x->fill_(custody::Scalar(v)))
CUSTODY_C_WITH(sum_dim, int64_t dim CUSTODY_C_COMMA int32_t keepdim, x->sum(dim, keepdim != 0))
CUSTODY_C_WITH(argmax, int64_t dim CUSTODY_C_COMMA int32_t keepdim, x->argmax(dim, keepdim != 0))
CUSTODY_C_WITH(softmax, int64_t dim, x->softmax(dim))
CUSTODY_C_WITH(log_softmax, int64_t dim, x->log_softmax(dim))
CUSTODY_C_WITH(to_dtype, int32_t dtype, x->to(capi::scalar_type(dtype, "custody_to_dtype")))
CUSTODY_C_WITH(reshape, const int64_t* sizes CUSTODY_C_COMMA size_t ndim,
               x->reshape(capi::dims(sizes, ndim, "custody_reshape")))
CUSTODY_C_WITH(transpose, int64_t d0 CUSTODY_C_COMMA int64_t d1, x->transpose(d0, d1))
CUSTODY_C_WITH(flatten, int64_t start CUSTODY_C_COMMA int64_t end, x->flatten(start, end))
#undef CUSTODY_C_COMMA
#undef CUSTODY_C_WITH

}  // extern "C"
