// absl_tsan_annotations: makes Debian's prebuilt absl::Mutex, CondVar and Notification visible to
// ThreadSanitizer. Linked into //third_party:absl only under --config=tsan.
//
// Note [Why interpose]
// ~~~~~~~~~~~~~~~~~~~~
// libabsl_synchronization.so is not instrumented, so TSan never sees the
// happens-before edges that its Lock/Unlock create, and reports data guarded by an absl::Mutex as a race.
// This file defines the exported member functions again; being loaded before libabsl_synchronization.so,
// these definitions win symbol lookup (for calls from our code and from inside Abseil, which go through
// the PLT). Each forwards to the real function (dlsym RTLD_NEXT) and tells TSan what it did:
//   * after anything that acquires the mutex (Lock, ReaderLock, successful TryLock, LockWhen*, and the
//     re-acquisition at the end of Await*/CondVar::Wait*): __tsan_acquire(mutex);
//   * before anything that releases it (Unlock, ReaderUnlock, and the release inside Await*/Wait*):
//     __tsan_release(mutex);
//   * Notification: __tsan_release before Notify, __tsan_acquire after a WaitForNotification* that saw
//     the notification. HasBeenNotified() is inline and its release store happens in Abseil, so a
//     thread that only polls HasBeenNotified() is still not synchronized in TSan's eyes: wait instead.
// TSan treats the edges as acquire/release on the Mutex's address, not as a lock, so it does not check
// lock order (deadlocks) for absl::Mutex.
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "absl/base/options.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

#define CUSTODY_STR2(x) #x
#define CUSTODY_STR(x) CUSTODY_STR2(x)
static_assert(std::string_view(CUSTODY_STR(ABSL_OPTION_INLINE_NAMESPACE_NAME)) == "debian3",
              "mangled names below assume Abseil's inline namespace 'debian3' (Debian 12 libabsl-dev)");
#define ABSL_SYM(rest) "_ZN4absl7debian3" rest
#define ABSL_CONST_SYM(rest) "_ZNK4absl7debian3" rest

namespace {

void* Real(const char* name) {
  void* fn = dlsym(RTLD_NEXT, name);
  if (fn == nullptr) {
    std::fprintf(stderr, "absl_tsan_annotations: %s not found: %s\n", name, dlerror());
    std::abort();
  }
  return fn;
}

template <typename Fn>
Fn Lookup(const char* name) {
  return reinterpret_cast<Fn>(Real(name));
}

}  // namespace

// Each wrapper resolves its target once (a thread-safe function-local static).
#define REAL(Type, sym)                                         \
  static const auto real = Lookup<Type>(sym);                   \
  (void)real

namespace absl {
ABSL_NAMESPACE_BEGIN

void Mutex::Lock() {
  REAL(void (*)(Mutex*), ABSL_SYM("5Mutex4LockEv"));
  real(this);
  __tsan_acquire(this);
}

void Mutex::Unlock() {
  REAL(void (*)(Mutex*), ABSL_SYM("5Mutex6UnlockEv"));
  __tsan_release(this);
  real(this);
}

bool Mutex::TryLock() {
  REAL(bool (*)(Mutex*), ABSL_SYM("5Mutex7TryLockEv"));
  bool locked = real(this);
  if (locked) __tsan_acquire(this);
  return locked;
}

void Mutex::ReaderLock() {
  REAL(void (*)(Mutex*), ABSL_SYM("5Mutex10ReaderLockEv"));
  real(this);
  __tsan_acquire(this);
}

void Mutex::ReaderUnlock() {
  REAL(void (*)(Mutex*), ABSL_SYM("5Mutex12ReaderUnlockEv"));
  __tsan_release(this);
  real(this);
}

bool Mutex::ReaderTryLock() {
  REAL(bool (*)(Mutex*), ABSL_SYM("5Mutex13ReaderTryLockEv"));
  bool locked = real(this);
  if (locked) __tsan_acquire(this);
  return locked;
}

void Mutex::LockWhen(const Condition& cond) {
  REAL(void (*)(Mutex*, const Condition*), ABSL_SYM("5Mutex8LockWhenERKNS0_9ConditionE"));
  real(this, &cond);
  __tsan_acquire(this);
}

void Mutex::ReaderLockWhen(const Condition& cond) {
  REAL(void (*)(Mutex*, const Condition*), ABSL_SYM("5Mutex14ReaderLockWhenERKNS0_9ConditionE"));
  real(this, &cond);
  __tsan_acquire(this);
}

// The *WithTimeout/*WithDeadline variants return with the lock held whatever they return.
bool Mutex::LockWhenWithTimeout(const Condition& cond, absl::Duration timeout) {
  REAL(bool (*)(Mutex*, const Condition*, absl::Duration),
       ABSL_SYM("5Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE"));
  bool met = real(this, &cond, timeout);
  __tsan_acquire(this);
  return met;
}

bool Mutex::LockWhenWithDeadline(const Condition& cond, absl::Time deadline) {
  REAL(bool (*)(Mutex*, const Condition*, absl::Time),
       ABSL_SYM("5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE"));
  bool met = real(this, &cond, deadline);
  __tsan_acquire(this);
  return met;
}

bool Mutex::ReaderLockWhenWithTimeout(const Condition& cond, absl::Duration timeout) {
  REAL(bool (*)(Mutex*, const Condition*, absl::Duration),
       ABSL_SYM("5Mutex25ReaderLockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE"));
  bool met = real(this, &cond, timeout);
  __tsan_acquire(this);
  return met;
}

bool Mutex::ReaderLockWhenWithDeadline(const Condition& cond, absl::Time deadline) {
  REAL(bool (*)(Mutex*, const Condition*, absl::Time),
       ABSL_SYM("5Mutex26ReaderLockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE"));
  bool met = real(this, &cond, deadline);
  __tsan_acquire(this);
  return met;
}

void Mutex::Await(const Condition& cond) {
  REAL(void (*)(Mutex*, const Condition*), ABSL_SYM("5Mutex5AwaitERKNS0_9ConditionE"));
  __tsan_release(this);
  real(this, &cond);
  __tsan_acquire(this);
}

bool Mutex::AwaitWithTimeout(const Condition& cond, absl::Duration timeout) {
  REAL(bool (*)(Mutex*, const Condition*, absl::Duration),
       ABSL_SYM("5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE"));
  __tsan_release(this);
  bool met = real(this, &cond, timeout);
  __tsan_acquire(this);
  return met;
}

bool Mutex::AwaitWithDeadline(const Condition& cond, absl::Time deadline) {
  REAL(bool (*)(Mutex*, const Condition*, absl::Time),
       ABSL_SYM("5Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE"));
  __tsan_release(this);
  bool met = real(this, &cond, deadline);
  __tsan_acquire(this);
  return met;
}

void CondVar::Wait(Mutex* mu) {
  REAL(void (*)(CondVar*, Mutex*), ABSL_SYM("7CondVar4WaitEPNS0_5MutexE"));
  __tsan_release(mu);
  real(this, mu);
  __tsan_acquire(mu);
}

bool CondVar::WaitWithTimeout(Mutex* mu, absl::Duration timeout) {
  REAL(bool (*)(CondVar*, Mutex*, absl::Duration),
       ABSL_SYM("7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE"));
  __tsan_release(mu);
  bool timed_out = real(this, mu, timeout);
  __tsan_acquire(mu);
  return timed_out;
}

bool CondVar::WaitWithDeadline(Mutex* mu, absl::Time deadline) {
  REAL(bool (*)(CondVar*, Mutex*, absl::Time),
       ABSL_SYM("7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE"));
  __tsan_release(mu);
  bool timed_out = real(this, mu, deadline);
  __tsan_acquire(mu);
  return timed_out;
}

void Notification::Notify() {
  REAL(void (*)(Notification*), ABSL_SYM("12Notification6NotifyEv"));
  __tsan_release(this);
  real(this);
}

void Notification::WaitForNotification() const {
  REAL(void (*)(const Notification*), ABSL_CONST_SYM("12Notification19WaitForNotificationEv"));
  real(this);
  __tsan_acquire(const_cast<Notification*>(this));
}

bool Notification::WaitForNotificationWithTimeout(absl::Duration timeout) const {
  REAL(bool (*)(const Notification*, absl::Duration),
       ABSL_CONST_SYM("12Notification30WaitForNotificationWithTimeoutENS0_8DurationE"));
  bool notified = real(this, timeout);
  if (notified) __tsan_acquire(const_cast<Notification*>(this));
  return notified;
}

bool Notification::WaitForNotificationWithDeadline(absl::Time deadline) const {
  REAL(bool (*)(const Notification*, absl::Time),
       ABSL_CONST_SYM("12Notification31WaitForNotificationWithDeadlineENS0_4TimeE"));
  bool notified = real(this, deadline);
  if (notified) __tsan_acquire(const_cast<Notification*>(this));
  return notified;
}

ABSL_NAMESPACE_END
}  // namespace absl
