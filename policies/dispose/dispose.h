// Copyright 2026 The custody Authors.
//
// policies/dispose/dispose.h — the `dispose` ownership policy: TorchSharp's
// technique 2, explicit disposal.
//
//   using T = custody::BasicTensor<custody::dispose::Policy, custody::Onednn>;
//   T a = T::ones({2, 2});
//   T b = a;                       // copies the *reference*: a and b are one alias
//   {
//     auto c = disposing(a.add(1)); // `using var c = ...`: disposed at the end of the block
//   }
//   a.dispose();                   // gives the reference back; b is disposed too (same alias)
//   b.dispose();                   // idempotent, as TorchSharp
//   T d = b;  d.dim();             // LifetimeError: the alias was disposed
//
// Contract (DESIGN §5.3):
//  * A handle refers to an *alias*, which owns one reference on the tensor.
//    Copying a handle copies the reference to the same alias (C# reference
//    semantics); the handle's C++ destructor does nothing to the tensor.
//  * `dispose()` gives the alias's reference back; it is idempotent. `alias()`
//    makes a new alias (a new reference) to the same tensor.
//  * What is never disposed leaks: `leak_report()` lists each undisposed alias
//    that no handle refers to any more, with its creation site when site
//    tracking is on (CUSTODY_TRACK_SITES=1).
//  * Using a disposed alias is a LifetimeError naming the op.

#ifndef CUSTODY_POLICIES_DISPOSE_DISPOSE_H_
#define CUSTODY_POLICIES_DISPOSE_DISPOSE_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/sites.h"
#include "core/tensor_impl.h"

namespace custody::dispose {

namespace internal {

// One alias: a reference on a TensorImpl, shared by every handle copied from it.
// Note [Alias lifetime]
// ~~~~~~~~~~~~~~~~~~~~~
// `handles` counts C++ handle objects (not tensor references). The alias object
// lives while a handle refers to it *or* while it is undisposed (then it sits in
// the registry so leak_report() can find it). Whoever drops the last of the two
// frees it; both transitions happen under the registry mutex.
struct Alias {
  ImplRef ref;                 // null once disposed
  int64_t handles = 0;         // guarded by the registry mutex
  uint64_t serial = 0;         // creation order
  uint64_t thread = 0;         // creating thread (for per-thread test cleanup)
  sites::Site site;            // creation site, when tracking is on (symbolized on report)
  Alias* prev = nullptr;       // registry links (undisposed aliases only)
  Alias* next = nullptr;
};

Alias* new_alias(ImplRef ref);               // registered, one handle
void add_handle(Alias* a);
void drop_handle(Alias* a);                  // may free a disposed alias
bool dispose(Alias* a);                      // true if this call disposed it
[[noreturn]] void throw_disposed(const Alias* a, const char* op);
[[noreturn]] void throw_null(const char* op);

}  // namespace internal

struct Policy {
  static constexpr const char* name = "dispose";

  template <class Derived>
  class Handle {
   public:
    Handle() = default;
    Handle(AdoptTag, ImplRef ref) : alias_(internal::new_alias(std::move(ref))) {}
    Handle(const Handle& o) : alias_(o.alias_) {
      if (alias_) internal::add_handle(alias_);
    }
    Handle(Handle&& o) noexcept : alias_(std::exchange(o.alias_, nullptr)) {}
    Handle& operator=(Handle o) noexcept {
      std::swap(alias_, o.alias_);
      return *this;
    }
    // Does not dispose: like a C# reference going out of scope.
    ~Handle() {
      if (alias_) internal::drop_handle(alias_);
    }

    // Gives the alias's reference back (TorchSharp's Dispose()); idempotent.
    void dispose() {
      if (alias_) internal::dispose(alias_);
    }
    bool is_disposed() const { return alias_ == nullptr || !alias_->ref; }

    const TensorImpl& checked_impl(const char* op) const {
      if (!alias_) internal::throw_null(op);
      // Reading `ref` races only with a concurrent dispose of the same alias,
      // which is a user error the policy does not make safe (as in TorchSharp).
      if (!alias_->ref) internal::throw_disposed(alias_, op);
      return *alias_->ref;
    }
    void release_reference() { dispose(); }

   private:
    internal::Alias* alias_ = nullptr;
  };
};

// `auto t = disposing(expr);` — the `using var` of C++: a handle that disposes
// its alias at the end of the enclosing block.
template <class T>
class Disposing : public T {
 public:
  explicit Disposing(T t) : T(std::move(t)) {}
  Disposing(const Disposing&) = delete;
  Disposing& operator=(const Disposing&) = delete;
  ~Disposing() { this->dispose(); }
};

template <class T>
Disposing<T> disposing(T t) {
  return Disposing<T>(std::move(t));
}

struct LeakedAlias {
  uint64_t serial;     // creation order
  std::string dtype;
  std::vector<int64_t> sizes;
  std::string site;    // empty unless site tracking is on (symbolized by leak_report())
};

// Undisposed aliases that no handle refers to any more (they can never be
// disposed: their memory is lost until the process ends).
std::vector<LeakedAlias> leak_report();
// leak_report() as text, one alias per line.
std::string leak_report_string();
// Number of aliases not yet disposed (referenced or not).
int64_t live_aliases();

// Turns creation-site recording on or off (default: CUSTODY_TRACK_SITES=1 in the environment).
void set_track_sites(bool on);

namespace testing {
// Disposes every alias created on this thread since `since_serial` (the test idiom).
void dispose_created_on_this_thread_since(uint64_t since_serial);
uint64_t next_serial();
}  // namespace testing

}  // namespace custody::dispose

#endif  // CUSTODY_POLICIES_DISPOSE_DISPOSE_H_
