// Copyright 2026 The custody Authors.
//
// core/sites.h — creation and release sites for leak reports and lifetime
// errors (DESIGN §4), shared by every policy.
//
//   CUSTODY_TRACK_SITES=1 ./my_program      // or custody::sites::set_tracking(true)
//
// When tracking is on, a policy calls `capture()` where it creates (or frees) a
// reference and keeps the returned text; leak reports and LifetimeErrors print
// it. Frames come from absl::GetStackTrace and are symbolized with
// absl::Symbolize. Off by default: capturing costs a few microseconds.

#ifndef CUSTODY_CORE_SITES_H_
#define CUSTODY_CORE_SITES_H_

#include <string>

namespace custody::sites {

// True when sites are recorded: set_tracking() if called, else CUSTODY_TRACK_SITES=1.
bool tracking();
void set_tracking(bool on);

// The calling stack as text, one "    #i 0xADDR symbol" line per frame,
// skipping `skip` frames above the caller. Empty when tracking is off, and
// when memory runs out (never throws: policies call it on release paths).
std::string capture(int skip = 0) noexcept;

// Prefixes `site` with a header line ("  created at:\n"), or returns a hint to
// turn tracking on when `site` is empty.
std::string describe(const char* what, const std::string& site);

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
