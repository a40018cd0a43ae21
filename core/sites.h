// Copyright 2026 The custody Authors.
//
// core/sites.h — creation and release sites for leak reports and lifetime
// errors (docs/design.md §4), shared by every policy.
//
//   CUSTODY_TRACK_SITES=1 ./my_program      // or custody::sites::set_tracking(true)
//
// When tracking is on, a policy calls `capture()` where it creates (or frees) a
// reference and keeps the returned `Site`; leak reports and LifetimeErrors
// print it.
//
// Note [Raw frames]
// ~~~~~~~~~~~~~~~~~
// A Site holds only the program counters absl::GetStackTrace returns (one
// allocation, cheap to copy); they are symbolized to `file:line function`,
// inlined calls included (core/symbolize.h), only when a report or an error
// message is actually produced (`describe`, `Site::to_string`). Capturing costs
// well under a microsecond; symbolizing costs tens of microseconds per new
// program counter, paid only for the sites a message prints. A consequence: a
// frame in a shared library unloaded (dlclose) between capture and report
// prints as "??".

#ifndef CUSTODY_CORE_SITES_H_
#define CUSTODY_CORE_SITES_H_

#include <atomic>
#include <memory>
#include <string>

namespace custody::sites {

namespace internal {
extern std::atomic<int> g_tracking;  // 1 on, 0 off, -1 not read from the environment yet
bool tracking_from_env();
}  // namespace internal

// True when sites are recorded: set_tracking() if called, else CUSTODY_TRACK_SITES=1.
// Inline: policies ask on every create and release (one relaxed load).
inline bool tracking() {
  const int v = internal::g_tracking.load(std::memory_order_relaxed);
  return v >= 0 ? v == 1 : internal::tracking_from_env();
}
void set_tracking(bool on);

// Tracking on from the first hold_tracking() to the matching last
// release_tracking(), then back to what it was: a memory history that records
// sites holds it, so the policies also keep where each reference, scope and
// alias was made (Note [Held by], core/stats.h). set_tracking() meanwhile is
// undone by the last release.
void hold_tracking();
void release_tracking();

// A captured call stack: raw program counters, symbolized on demand. Empty
// when tracking was off or capturing failed. Copies share one immutable frame
// array (copying is a reference-count increment; never throws).
class Site {
 public:
  static constexpr int kMaxFrames = 24;

  Site() noexcept = default;

  // A site made of `n` given program counters (at most kMaxFrames are kept);
  // empty for n <= 0 or when memory runs out. For policies that store frames
  // elsewhere (the gc policy keeps them in the collector's heap).
  static Site from_frames(void* const* pcs, int n) noexcept;

  bool empty() const noexcept { return frames_ == nullptr; }
  int size() const noexcept { return frames_ ? frames_->n : 0; }
  // The program counters, innermost first (null when empty).
  void* const* frames() const noexcept { return frames_ ? frames_->pc : nullptr; }

  // The stack as text, one "    #i 0xADDR file:line function" line per
  // source frame — a call the compiler inlined at frame i is a line of its
  // own, "(inlined)", before the function it was inlined into; "??" when a
  // frame cannot be symbolized; "" when empty. Symbolizes every frame.
  std::string to_string() const;

 private:
  struct Frames {
    int n = 0;
    void* pc[kMaxFrames];
  };
  std::shared_ptr<const Frames> frames_;
};

// The calling stack from the caller of capture() (or from capture() itself,
// depending on how Abseil was built: Note [No skipped frames] in sites.cc),
// after skipping `skip` frames (policies pass 0: a fixed skip count can drop
// the user's own frame, e.g. when ASan builds inline differently). An empty
// Site when tracking is off, and when memory runs out (never throws: policies
// call it on release paths). No symbolization happens here. The tracking check
// is inline (no call when tracking is off); the capture itself is not inlined,
// so frame #0 is still the caller's.
Site capture_stack(int skip) noexcept;
inline Site capture(int skip = 0) noexcept {
  if (!tracking()) return {};
  return capture_stack(skip);
}

// Like capture() for callers that keep the frames themselves: writes up to
// `max_frames` program counters of the calling stack (as capture() does) to
// `pcs` and returns how many; 0 when tracking is off.
int capture_frames(void** pcs, int max_frames, int skip = 0) noexcept;

// Prefixes the symbolized `site` with a header line ("  created at:\n"), or
// returns a hint to turn tracking on when `site` is empty.
std::string describe(const char* what, const Site& site);
// The same for a site already turned into text (Site::to_string()).
std::string describe(const char* what, const std::string& site_text);

// RAII: turns tracking on or off for a scope (tests), restoring the old value.
class ScopedTracking {
 public:
  explicit ScopedTracking(bool on) : old_(tracking()) { set_tracking(on); }
  ~ScopedTracking() { set_tracking(old_); }
  ScopedTracking(const ScopedTracking&) = delete;
  ScopedTracking& operator=(const ScopedTracking&) = delete;

 private:
  bool old_;
};

}  // namespace custody::sites

#endif  // CUSTODY_CORE_SITES_H_
